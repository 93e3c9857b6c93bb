/**
 * mobisite: a mobile-site management service as a library.
 *
 * - `apiRouter(engine)`: the HTTP API, mountable in any Express app.
 * - `dashboardRouter(engine)`: the single sign-on landing and sub-accounts' dashboard.
 * - `createEngine()`: every rule of the service, callable in-process.
 * - `mobileRedirect()`: sends phone visitors of a desktop site to its mobile site.
 * - `redirectScript(engine)`: serves `/redirect.js`, the same redirect for any page, in the browser.
 * - `startServer()`: a real, stateful server; also a test double with a fake clock.
 */
export { createEngine } from './engine/index.js'
export type { CredentialCacheOptions } from './engine/auth/masters.js'
export type { FailedLoginOptions } from './engine/auth/failed-logins.js'
export type {
  ActivityInput,
  Caller,
  Engine,
  EngineOptions,
  MasterApi,
  Query,
  RecordingStats,
  VisitInput,
} from './engine/types.js'
export { ServiceError, type ErrorCode } from './errors.js'
/** Inputs of MasterApi, typed from the JSON Schemas that validate them. */
export type { CreateAccountBody, UpdateAccountBody } from './schema/accounts.js'
export type { MostTrafficQuery, SiteAnalyticsQuery } from './schema/analytics.js'
export type {
  CreateSiteBody,
  GetManyBody,
  PeriodQuery,
  PublishQuery,
  RecreateSiteBody,
  SiteData,
  UpdateSiteBody,
} from './schema/sites.js'
export type { SsoLink, SsoLinkQuery } from './schema/sso.js'
export { apiRouter, type ApiRouterOptions } from './http/router.js'
export { RateLimit, MAX_PER_SECOND, type RateLimitOptions } from './http/rate-limit.js'
export { openApiDocument, type OpenApiOptions } from './http/openapi.js'
export { dashboardRouter, SESSION_COOKIE, type DashboardRouterOptions } from './dashboard/index.js'
export {
  analyticsCollector,
  cdnGeo,
  VISITOR_COOKIE,
  DEFAULT_BEACONS_PER_MINUTE,
  DEFAULT_MAX_PENDING_RECORDINGS,
  type CdnGeoOptions,
  type CdnProvider,
  type CollectorEngine,
  type CollectorOptions,
  type GeoInfo,
  type GeoResolver,
} from './collector/index.js'
export { startServer, type RunningServer, type ServerOptions, type ServerTimeouts } from './server/index.js'
export { MemoryStore, type MemoryStoreOptions } from './store/memory/store.js'
export * from './store/contract/index.js'
export * from './agents/index.js'
export * from './redirect/index.js'
export {
  redirectScript,
  type RedirectScriptEngine,
  type RedirectScriptHandler,
} from './redirect/script/handler.js'
export type { MobisiteRedirectApi } from './redirect/script/runtime.js'
export type * from '../types/index.js'
export { ACTIVITY_KINDS, SITE_EVENT_TYPES } from '../types/index.js'
