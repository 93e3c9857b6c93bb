/**
 * The Store contract: what the engine asks of storage, in five parts, one
 * file each (sites, accounts, analytics, sso, state); {@link Store} is all
 * of them plus `close`.
 *
 * The engine owns every rule; a store only keeps data and performs the atomic
 * operations of the parts. Each method that guards a rule which must hold under
 * concurrency (unique names, the first-publish charge, the daily limit, grants
 * against deletes) is ONE atomic operation, so a shared store can do it in one
 * round trip (a Redis Lua script, one PostgreSQL statement or transaction).
 *
 * Conventions:
 * - Times are epoch milliseconds, taken from the engine's injected clock.
 * - Days are UTC `YYYY-MM-DD` strings; they sort lexicographically.
 * - Every mutation of a site or account takes the `owner` (master user) and
 *   applies only when the record exists AND belongs to that owner; otherwise
 *   it reports "not found" and changes nothing.
 * - Records returned are copies: mutating them never changes the store.
 * - A store that cannot reach its backend rejects with {@link StoreUnavailableError}.
 *
 * Every adapter passes the shared conformance suite in `lib/testing/conformance/`.
 * This file re-exports the parts' types by name, not the part interfaces:
 * the package root re-exports all of it, and a store is written against
 * {@link Store}.
 */
import type { AccountsStore } from './accounts.js'
import type { AnalyticsStore } from './analytics.js'
import type { SitesStore } from './sites.js'
import type { SsoStore } from './sso.js'
import type { StateStore } from './state.js'

export { StoreUnavailableError } from './shared.js'
export type {
  BillingRecord,
  BuildState,
  PublishOutcome,
  SiteActivityEntry,
  SiteExpectation,
  SitePatch,
  SiteRecord,
} from './sites.js'
export type {
  AccountPatch,
  AccountRecord,
  GrantLookup,
  GrantOutcome,
  LimitOutcome,
  MasterRecord,
} from './accounts.js'
export {
  OTHER,
  type ActivityEvent,
  type ActivityTotals,
  type Dimension,
  type PeriodRow,
  type RecordedEvent,
  type RecordOptions,
  type RecordOutcome,
  type TrafficTotals,
  type VisitEvent,
} from './analytics.js'
export type { SsoGrant, SsoRecord, SsoTarget } from './sso.js'
export {
  StateConflictError,
  type AnalyticsCellDump,
  type AnalyticsDayDump,
  type LedgerDump,
  type StateDump,
  type VisitorsDump,
} from './state.js'

/** Storage behind an engine: every part of the contract. See the module comment for the conventions. */
export interface Store extends AccountsStore, SitesStore, AnalyticsStore, SsoStore, StateStore {
  /** Releases connections. The store is unusable afterwards. */
  close(): Promise<void>
}
