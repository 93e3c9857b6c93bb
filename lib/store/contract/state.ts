/**
 * The state part of the Store contract, behind the test-double controls
 * (reset, snapshot, seed): the whole state as store-neutral JSON, and the
 * operations that empty, export and import it. Conventions: see index.ts.
 */
import type { AccountRecord, MasterRecord } from './accounts.js'
import type { ActivityTotals } from './analytics.js'
import type { Operations } from './shared.js'
import type { BillingRecord, SiteRecord } from './sites.js'

/**
 * Who visited an analytics cell: the exact visitor ids (a store that keeps
 * them), or `visitors_sketch`, a store-specific summary (RedisStore: its
 * HyperLogLog, base64) that only a store of the same kind can import.
 */
export interface VisitorsDump {
  visitors?: string[]
  visitors_sketch?: string
}

/** One dimension value of a site-day: its counters and visitors. */
export interface AnalyticsCellDump extends VisitorsDump {
  /** `[browser, os]` or `[country, region]`. */
  key: [string, string]
  visits: number
  page_views: number
  activities: ActivityTotals
}

/** Everything recorded for one site on one UTC day. */
export interface AnalyticsDayDump extends VisitorsDump {
  site_name: string
  day: string
  visits: number
  page_views: number
  activities: ActivityTotals
  system: AnalyticsCellDump[]
  geo: AnalyticsCellDump[]
}

/** The billing ledger of one master account. */
export interface LedgerDump extends BillingRecord {
  owner: string
}

/**
 * The whole state of a store, as {@link StateStore.exportState} gives it and
 * {@link StateStore.importState} takes it. Store-neutral JSON, apart from visitor
 * sketches. Lists are sorted (masters by user, sites and accounts by name,
 * grants by account then site, ledgers by owner, analytics by site then day,
 * cells by key) so two exports of the same state are deep-equal.
 */
export interface StateDump {
  masters: MasterRecord[]
  sites: SiteRecord[]
  accounts: AccountRecord[]
  /** `permissions` absent: the grant holds every permission (made by Grant Access). */
  grants: { account_name: string; site_name: string; permissions?: string[] }[]
  billing: LedgerDump[]
  analytics: AnalyticsDayDump[]
}

/** Raised by {@link StateStore.importState} when the dump cannot be applied; nothing was. */
export class StateConflictError extends Error {
  constructor(readonly problems: string[]) {
    super(`the state cannot be imported: ${problems.join('; ')}`)
    this.name = 'StateConflictError'
  }
}

/** The state operations behind the test-double controls. */
export interface StateStore {
  /**
   * Empties the store: masters, sites, accounts, grants, billing, analytics,
   * limit counters, SSO tokens and sessions. Not atomic with respect to
   * concurrent calls.
   */
  clearState(): Promise<void>
  /** Everything the store holds except limit counters, SSO tokens and sessions, as a {@link StateDump}. */
  exportState(): Promise<StateDump>
  /**
   * Adds a dump to the store, all or nothing. Masters replace same-named ones;
   * a site or account whose name is taken (names are global, as in
   * createSite), a grant, ledger or analytics day naming a site or account
   * neither in the dump nor the store, or a visitor sketch this store cannot
   * read, is a problem: the call rejects with {@link StateConflictError}
   * listing every one, and changes nothing.
   */
  importState(dump: StateDump): Promise<void>
}

/** The methods of {@link StateStore}, as {@link Operations} lists them. */
export const STATE_OPERATIONS = {
  clearState: 'write',
  exportState: 'read',
  importState: 'write',
} as const satisfies Operations<StateStore>
