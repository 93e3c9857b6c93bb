/**
 * `mobisite/testing`: mobisite as a test double, and helpers for testing
 * against mobisite.
 *
 * - `createControls(engine)`: reset, seed, snapshot, clock, builder, events,
 *   billing, request journal (with counts and near misses), faults, webhooks
 *   and the rate limit, in process (`server.controls` of `startServer` is the
 *   same object).
 * - `verifyWebhook` / `signWebhook`: Duda's webhook signature, for receivers.
 * - `adminRouter(engine, { token })`: the same calls over HTTP (`/__admin`).
 * - `storeConformance`: the suite every Store passes, analytics included;
 *   run it on your own Store with node-tap (or any runner whose test object
 *   fits {@link Tap}), with {@link ConformanceOptions} for what your store
 *   does differently. `analyticsConformance` is its deprecated analytics half.
 * - Record builders for such tests (`siteRecord`, `accountRecord`, ...).
 * - `dudaClientOptions(server)`: what Duda's own client
 *   (`@dudadev/partner-api`) needs to reach a `startServer({ tls: true })`
 *   on its own port (docs/duda-api.md).
 */
export { adminRouter, type AdminRouterOptions } from './admin.js'
export {
  Controls,
  createControls,
  type ControlsOptions,
  type Health,
  type RateLimitState,
  type StartupSettings,
} from './controls.js'
export type { Deliveries, DeliveryAttempt, Webhook, WebhookSpec } from './webhooks.js'
export type { DestinationPolicy, ResolveAll } from './webhook-destination.js'
export { SIGNATURE_HEADER, SIGNATURE_TIMESTAMP_HEADER, signWebhook, verifyWebhook } from './webhook-signature.js'
export type { NearMiss } from './near-miss.js'
export { DEFAULT_STATE_INTERVAL } from './state-file.js'
export type { PublishData, SiteEvent, SiteEventType } from '../../types/index.js'
export type { ClockState } from './clock.js'
export { BuildFailure, type BuilderOverride } from './builder.js'
export { DEFAULT_JOURNAL_SIZE, MAX_JOURNAL_BODY, type JournalEntry, type JournalFilter } from './journal.js'
export { ROUTE_TEMPLATES, type Fault, type FaultSpec } from './faults.js'
export type { SeedBody } from './seed.js'
export type { ApiCallRecord, ApiFault, ApiHooks } from '../http/hooks.js'
export { storeConformance, type ConformanceOptions, type StoreFactory, type Tap } from './conformance/index.js'
export { analyticsConformance } from './conformance/analytics.js'
export { dudaClientOptions, type DudaClientOptions, type DudaTargetServer } from './duda/client-options.js'
export {
  T0,
  accountRecord,
  activityEvent,
  at,
  fullSiteRecord,
  masterRecord,
  siteRecord,
  TRICKY_NAMES,
  visitEvent,
} from './conformance/fixtures.js'
