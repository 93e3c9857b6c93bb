/**
 * The MasterApi object behind `engine.as(caller)`. Building it means 21
 * closures, which cost more than a cached read on the API's hot path, so an
 * authenticated Caller's object is built once and kept (bounded), and every
 * call goes straight to its rule with no per-call allocation of a context.
 */
import * as accounts from './accounts.js'
import * as analytics from './analytics.js'
import type { CallContext, EngineContext } from './context.js'
import * as lifecycle from './lifecycle.js'
import * as sites from './sites.js'
import * as sso from './sso.js'
import { checkStrings } from './strict-strings.js'
import type { Caller, MasterApi } from './types.js'

/** Wraps a rule so it runs in the context `resolve` gives, with the engine's error translation. */
type Binder = <A extends unknown[], R>(
  operation: (call: CallContext, ...args: A) => Promise<R>,
) => (...args: A) => Promise<R>

/** Every operation of the API, each bound by `bind` after the strict-strings check of its arguments. */
export function buildMasterApi(bind: Binder): MasterApi {
  const on: Binder = (operation) =>
    bind((call, ...args) => {
      checkStrings(args)
      return operation(call, ...args)
    })
  return {
    createSite: on(sites.createSite),
    getSite: on(sites.getSite),
    getSiteByExternalUid: on(sites.getSiteByExternalUid),
    updateSite: on(sites.updateSite),
    deleteSite: on(sites.deleteSite),
    recreateSite: on(lifecycle.recreateSite),
    publishSite: on(lifecycle.publishSite),
    unpublishSite: on(lifecycle.unpublishSite),
    resetCache: on(lifecycle.resetCache),
    sitesCreated: on((call, query) => sites.listSites(call, 'created', query)),
    sitesModified: on((call, query) => sites.listSites(call, 'modified', query)),
    getManySites: on(sites.getManySites),
    createAccount: on(accounts.createAccount),
    getAccount: on(accounts.getAccount),
    updateAccount: on(accounts.updateAccount),
    deleteAccount: on(accounts.deleteAccount),
    grantAccess: on(accounts.grantAccess),
    revokeAccess: on(accounts.revokeAccess),
    accountSites: on(accounts.accountSites),
    ssoLink: on(sso.ssoLink),
    siteAnalytics: on(analytics.siteAnalytics),
    sitesWithMostTraffic: on(analytics.sitesWithMostTraffic),
  }
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
