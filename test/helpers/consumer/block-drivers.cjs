// Preloaded by test/packaging/package.ts: any require() of a database driver fails, as if it were not
// installed, whatever node_modules directories exist above the temporary project.
const Module = require('node:module')
const resolve = Module._resolveFilename
Module._resolveFilename = function (request, ...rest) {
  if (/^(ioredis|pg)(\/|$)/.test(request)) {
    throw Object.assign(new Error(`Cannot find module '${request}' (blocked by the test)`), {
      code: 'MODULE_NOT_FOUND',
    })
  }
  return resolve.call(this, request, ...rest)
}
