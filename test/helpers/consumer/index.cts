// A strict CommonJS TypeScript consumer of the packed mobisite (compiled by test/packaging/package.ts).
import mobisite = require('mobisite')
import testing = require('mobisite/testing')

export const engine: mobisite.Engine = mobisite.createEngine()
export const isError = (error: unknown): boolean => error instanceof mobisite.ServiceError
export const conformance: typeof testing.storeConformance = testing.storeConformance
