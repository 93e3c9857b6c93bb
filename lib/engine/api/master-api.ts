/**
 * MasterApi, the in-process API, follows from the operations table: one
 * method per entry, typed by its rule (the parameters after the call
 * context) and documented by the entry's comment.
 *
 * The object behind `engine.as(caller)` costs one closure per operation to
 * build, more than a cached read on the API's hot path, so an authenticated
 * Caller's object is built once and kept (bounded), and every call goes
 * straight to its rule with no per-call allocation of a context.
 */
import type { CallContext, EngineContext } from '../context.js'
import type { Caller } from '../auth/masters.js'
import type { MethodOf, Operation } from './operation-definition.js'
import { OPERATIONS } from './operations.js'
import { checkStrings } from './strict-strings.js'

type Operations = typeof OPERATIONS

/** One method per operation, named by its key in the table. */
type Methods = { [K in keyof Operations]: MethodOf<Operations[K]> }

/**
 * Every operation of the API (docs/api.md) on behalf of one master account.
 * Bodies and queries are typed from the same JSON Schemas that validate them,
 * and are still validated at run time exactly as over HTTP, so a JavaScript
 * caller passing anything gets InvalidInput, never a crash.
 */
export interface MasterApi extends Methods {}

/** Wraps a rule so it runs in the context `resolve` gives, with the engine's error translation. */
type Binder = <A extends unknown[], R>(
  operation: (call: CallContext, ...args: A) => Promise<R>,
) => (...args: A) => Promise<R>

/** Every operation of the table, each bound by `bind` after the strict-strings check of its arguments. */
export function buildMasterApi(bind: Binder): MasterApi {
  // One Object.fromEntries, not a store per key: docs/PERFORMANCE.md, "Object shapes on hot paths".
  const methods = (Object.entries(OPERATIONS) as [string, Operation][]).map(([name, { run }]) => [
    name,
    bind((call, ...args: unknown[]) => {
      checkStrings(args)
      return run(call, ...args)
    }),
  ])
  return Object.fromEntries(methods) as MasterApi
}

/** How many callers' API objects an engine keeps; beyond it the oldest is rebuilt on next use. */
const CACHED_CALLERS = 1024

/**
 * The call context of a trusted Caller. It inherits from the engine context
 * rather than copying it, so it always reads the engine's current store,
 * clock and builder, however long it is cached.
 */
export function callContextOf(ctx: EngineContext, caller: Caller): CallContext {
  const call = Object.create(ctx) as { caller: Caller }
  call.caller = { user: caller.user, partner: caller.partner }
  return call as unknown as CallContext
}

/**
 * A bounded cache of API objects by caller. The key holds both fields of the
 * Caller, so a caller whose partner flag differs gets its own object; an
 * insertion-ordered Map evicts the oldest entry when full.
 */
export function callerApiCache(build: (caller: Caller) => MasterApi): (caller: Caller) => MasterApi {
  const apis = new Map<string, MasterApi>()
  return (caller) => {
    const key = `${caller.partner ? 'p' : 'm'}${caller.user}`
    let api = apis.get(key)
    if (api === undefined) {
      if (apis.size >= CACHED_CALLERS) apis.delete(apis.keys().next().value!)
      api = build(caller)
      apis.set(key, api)
    }
    return api
  }
}
