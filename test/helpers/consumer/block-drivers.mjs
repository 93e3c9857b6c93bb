// Preloaded by test/packaging/package.ts: any import of a database driver fails, as if it were not installed.
import { register } from 'node:module'

register(
  'data:text/javascript,' +
    encodeURIComponent(`export async function resolve(specifier, context, next) {
  if (/^(ioredis|pg)(\\/|$)/.test(specifier)) {
    throw Object.assign(new Error("Cannot find package '" + specifier + "' (blocked by the test)"), { code: 'ERR_MODULE_NOT_FOUND' })
  }
  return next(specifier, context)
}`),
)
