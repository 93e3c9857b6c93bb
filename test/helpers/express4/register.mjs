/**
 * `node --import ./test/helpers/express4/register.mjs`: every `import 'express'`
 * (the library's and the tests') resolves to express@4, installed as the dev
 * dependency `express4`, so the suites run against Express 4 unchanged
 * (`MOBISITE_TEST_EXPRESS=4 npm test`). CommonJS `require("express")` is redirected too.
 */
import Module, { register } from 'node:module'

// Registered twice in a test process (scripts/run-tests.mjs): a fresh URL each time.
register(`./hooks.mjs?${process.hrtime.bigint()}`, import.meta.url)

const resolveFilename = Module._resolveFilename
Module._resolveFilename = function (request, ...rest) {
  if (request === 'express' || request.startsWith('express/')) {
    try {
      return resolveFilename.call(this, `express4${request.slice(7)}`, ...rest)
    } catch {
      // No express4 here (see hooks.mjs): the project's own express.
    }
  }
  return resolveFilename.call(this, request, ...rest)
}
