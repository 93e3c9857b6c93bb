/**
 * The Store contract: what the engine asks of storage.
 *
 * The engine owns every rule; a store only keeps data and performs the atomic
 * operations below. Each method that guards a rule which must hold under
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
 */
import type { ActivityKind, CreationFailure, Lang, SiteProperties } from '../../types/index.js'

/** Raised by a store whose backend cannot be reached; the API answers 503. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StoreUnavailableError'
  }
}

/**
 * Build state of a site: `built`; `delayed` (create_now=false, built on first
 * visit); `pending` (create_now=async, builder running); or a failure.
 */
export type BuildState = 'built' | 'delayed' | 'pending' | CreationFailure

/** A site as the store keeps it. Property keys are those of {@link SiteProperties}. */
export interface SiteRecord extends SiteProperties {
  site_name: string
  /** The master user the site belongs to. */
  owner: string
  /** The properties given at creation; Recreate Site restores them. */
  initial: SiteProperties
  created_at: number
  modified_at: number
  /** Time of the last publish; present only while published. */
  published_at?: number
  /** Set once, by the first publish ever; the first-publish charge is decided there. */
  first_published_at?: number
  /** Last confirmed redirect to this site. */
  redirect_confirmed_at?: number
  /** Last Reset Runtime Cache. */
  cache_reset_at?: number
  build: BuildState
  /** Whether Create Site asked to publish once the build succeeds. */
  publish_when_built?: boolean
  /** Duda's paths: the template the site was created or reset from (recorded and echoed only). */
  template_id?: string | number
  /** Time of the last unpublish (Duda's unpublished listing and activity log). */
  unpublished_at?: number
  /** The site's activity log, oldest first, bounded (see {@link Store.appendSiteActivity}). */
  activity_log?: SiteActivityEntry[]
}

/** One entry of a site's activity log: when, and what (Duda's activity type, e.g. `site_published`). */
export interface SiteActivityEntry {
  at: number
  activity: string
}

/**
 * A partial update of a site. A key set to `null` removes that field; an
 * absent key leaves it alone. Setting `modified_at` moves the site in the
 * modification index; a new `external_uid` moves it in the external-uid index.
 */
export type SitePatch = {
  [K in Exclude<keyof SiteRecord, 'site_name' | 'owner' | 'created_at' | 'first_published_at'>]?: SiteRecord[K] | null
}

/**
 * A precondition on the stored site: the mutation applies only if every given
 * field equals the stored one. It lets a caller that read a site act on THAT
 * site only: a delete and re-create of the same name gives a new `created_at`,
 * and a rebuild or recorded failure a new `build`. The check is part of the
 * mutation's atomic step, never a separate read. A key holding `undefined` is
 * not given; any other key rejects with a TypeError before anything changes.
 */
export interface SiteExpectation {
  created_at?: number
  build?: BuildState
}

/** What {@link Store.publishSite} did. */
export interface PublishOutcome {
  /** True when this publish was the site's first and charged the owner. */
  charged: boolean
}

/** A sub-user account as the store keeps it. */
export interface AccountRecord {
  account_name: string
  /** The master user that created it. */
  owner: string
  first_name?: string
  last_name?: string
  email?: string
  lang?: Lang
  created_at: number
  /**
   * A random id given when the account is created. Sign-in sessions carry it,
   * so an account deleted and re-created under the same name (even within
   * the same millisecond of a frozen test clock) does not inherit them.
   * Absent on accounts created without one; stores keep it like any field.
   */
  incarnation?: string
}

/** A partial update of an account; `null` removes the field. */
export type AccountPatch = {
  [K in 'first_name' | 'last_name' | 'email' | 'lang']?: AccountRecord[K] | null
}

/** A master account: who may call the API. */
export interface MasterRecord {
  user: string
  partner: boolean
  /** Hex salt (the one inside an scrypt `password_hash`, or the salt of an older SHA-256 hash). */
  salt: string
  /**
   * `$scrypt$ln=..,r=..,p=..$<salt hex>$<key hex>`, or, from older versions,
   * hex SHA-256 of salt + password (upgraded on the next successful login).
   * The store keeps it as an opaque string.
   */
  password_hash: string
}

/** The billing ledger of one master account. Times are epoch ms. */
export interface BillingRecord {
  /** One charge per first publish, oldest first. */
  charges: { site_name: string; at: number }[]
  /** One subscription per charged site incarnation, oldest first; Delete Site cancels it. */
  subscriptions: { site_name: string; status: 'active' | 'cancelled' }[]
}

/** Result of {@link Store.grantAccess} and {@link Store.revokeAccess}. */
export type GrantOutcome = 'ok' | 'no-account' | 'no-site'

/**
 * Result of {@link Store.getGrant}: the grant's permissions (`null`: every
 * permission, as a grant made by Grant Access holds), `'no-grant'` when the
 * owner's account and site exist but are not granted, else why not.
 */
export type GrantLookup = { permissions: string[] | null } | 'no-grant' | 'no-account' | 'no-site'

/** Result of {@link Store.incrementWithinLimit}. */
export interface LimitOutcome {
  /** True when the call fits within the limit and was counted. */
  allowed: boolean
  /** The count after this call (a refused call is not counted). */
  count: number
}

// ---------------------------------------------------------------- analytics

/** The analytics dimensions (`dimension` of Get Site Analytics). */
export type Dimension = 'system' | 'geo'

/**
 * One visit, already reduced by the engine to its day bucket and dimension
 * values (browser "<name> <major>", OS name, country, region; "Unknown" where
 * not known). It names no owner: the store reads it from the site record in
 * the same atomic step that records the visit (see {@link Store.recordVisit}).
 */
export interface VisitEvent {
  site_name: string
  day: string
  visitor_id: string
  page_views: number
  browser: string
  os: string
  country: string
  region: string
}

/** One activity, reduced like {@link VisitEvent}. */
export interface ActivityEvent {
  site_name: string
  day: string
  kind: ActivityKind
  browser: string
  os: string
  country: string
  region: string
}

/**
 * What {@link Store.recordVisit} and {@link Store.recordActivity} answer: the
 * owner and build state of the site the event was recorded for, as they were
 * when it was recorded.
 */
export interface RecordOutcome {
  owner: string
  build: BuildState
}

/** One event of a {@link Store.recordEvents} batch: a visit or an activity. */
export type RecordedEvent = VisitEvent | ActivityEvent

/** The value every dimension value past the cap is folded into (both parts of the key). */
export const OTHER = '(other)'

/** How a {@link Store.recordEvents} batch is recorded. */
export interface RecordOptions {
  /**
   * At most this many distinct values per dimension (`system`, `geo`) per
   * site-day; an event bringing a new value past it is counted under
   * `["(other)", "(other)"]` ({@link OTHER}) instead. That key itself is not
   * counted against the cap, so a day holds at most `maxDimensionValues + 1`
   * rows per dimension.
   */
  maxDimensionValues: number
  /**
   * Days kept: events of days before `today - retentionDays + 1` are not
   * recorded, and the store may drop whole days older than that (Redis: key
   * expiry; PostgreSQL: whole days deleted in batches off the hot path;
   * memory: whole days dropped). Undefined: kept forever.
   */
  retentionDays?: number
  /** The engine clock's UTC day (`YYYY-MM-DD`), from which retention counts back. */
  today: string
}

/** Traffic totals of a period (lower-case; the engine renames them for the API). */
export interface TrafficTotals {
  visits: number
  page_views: number
  /**
   * Distinct visitor_ids over the whole period (and dimension value). A memory
   * store counts exactly up to its `exactVisitors` threshold per site-day
   * (default 10,000), then estimates like Redis; a shared store may estimate
   * (Redis HyperLogLog: about 0.81 % standard error), and the conformance
   * suite allows 2 % from 1,000 up.
   */
  unique_visitors: number
}

/** Activity totals of a period, keyed by {@link ActivityKind}. */
export type ActivityTotals = Record<ActivityKind, number>

/**
 * One row of a period query. Without a dimension there is exactly one row and
 * `key` is `[]`; with `system` the key is `[browser, os]`, with `geo` it is
 * `[country, region]`. Rows come sorted by key.
 */
export interface PeriodRow<T> {
  key: string[]
  data: T
}

// ----------------------------------------------------------------------- SSO

/** Where an SSO link lands: the dashboard, or one site's statistics page. */
export type SsoTarget = 'DASHBOARD' | 'STATS'

/**
 * What a single sign-on token grants, copied unchanged into the session it is
 * redeemed for. The session belongs to the account whatever the target.
 */
export interface SsoGrant {
  account_name: string
  /** The partner master account the sub-account belongs to. */
  owner: string
  /** The account's {@link AccountRecord.incarnation} when the token was issued. */
  incarnation: string
  target: SsoTarget
  /** The site of a `STATS` link. */
  site_name?: string
}

/** A token or a session as the store keeps it. */
export interface SsoRecord extends SsoGrant {
  /** Epoch ms on the ENGINE clock after which it is dead. */
  expires_at: number
}

// -------------------------------------------------------------------- state

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
 * The whole state of a store, as {@link Store.exportState} gives it and
 * {@link Store.importState} takes it. Store-neutral JSON, apart from visitor
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

/** Raised by {@link Store.importState} when the dump cannot be applied; nothing was. */
export class StateConflictError extends Error {
  constructor(readonly problems: string[]) {
    super(`the state cannot be imported: ${problems.join('; ')}`)
    this.name = 'StateConflictError'
  }
}

// -------------------------------------------------------------------- store

/** Storage behind an engine. See the module comment for the conventions. */
export interface Store {
  // Master accounts
  /** Adds or replaces a master account. */
  putMaster(master: MasterRecord): Promise<void>
  getMaster(user: string): Promise<MasterRecord | undefined>
  /**
   * Writes the master only if the stored one's password_hash equals
   * `expected_hash`, or, when `expected_hash` is null, only if no master has
   * that user. One atomic step; true when written. Lets the engine upgrade a
   * hash or re-create a lost master without overwriting what another
   * instance wrote meanwhile.
   */
  putMasterIf(master: MasterRecord, expected_hash: string | null): Promise<boolean>

  // Sites
  /** Creates the site if no site has its name (names are global). False when taken. */
  createSite(site: SiteRecord): Promise<boolean>
  getSite(site_name: string): Promise<SiteRecord | undefined>
  /** One lookup for many names; the answer is in request order. */
  getSites(site_names: string[]): Promise<(SiteRecord | undefined)[]>
  /** The owner's site with that external_uid (the most recently created if several). */
  findSiteByExternalUid(owner: string, external_uid: string): Promise<SiteRecord | undefined>
  /**
   * Applies the patch if the owner's site exists and meets `expect`; returns
   * the updated record. Undefined when not found or the expectation fails
   * (the expectation is checked against the site before the patch).
   */
  updateSite(
    owner: string,
    site_name: string,
    patch: SitePatch,
    expect?: SiteExpectation,
  ): Promise<SiteRecord | undefined>
  /**
   * Publishes the owner's site at `at` (sets published_at and modified_at).
   * When `charge` is true and first_published_at is unset, sets it and
   * appends a charge and an active subscription to the owner's ledger, all
   * in the same atomic step. A publish with `charge` false (a test publish)
   * is not a first publish: it leaves first_published_at unset. Undefined when not found or
   * the site does not meet `expect`; nothing is then published or charged.
   */
  publishSite(
    owner: string,
    site_name: string,
    at: number,
    charge: boolean,
    expect?: SiteExpectation,
  ): Promise<PublishOutcome | undefined>
  /**
   * Deletes the owner's site with its index entries, grants and analytics, and
   * cancels its active subscription. False when not found or the site does not
   * meet `expect`.
   */
  deleteSite(owner: string, site_name: string, expect?: SiteExpectation): Promise<boolean>
  /**
   * Appends the entry to the owner's site's `activity_log` and drops its
   * oldest entries beyond `max`, in one atomic step (concurrent appends all
   * land). False, with nothing changed, when the site is not the owner's.
   */
  appendSiteActivity(owner: string, site_name: string, entry: SiteActivityEntry, max: number): Promise<boolean>
  /**
   * Names of the owner's sites whose created_at (or modified_at) lies in
   * [from, to], both ends included, oldest first (ties by name). Served from an
   * ordered index, never a scan of every site.
   */
  listSites(owner: string, by: 'created' | 'modified', from: number, to: number): Promise<string[]>
  getBilling(owner: string): Promise<BillingRecord>

  // Sub-user accounts
  /** Creates the account if no account has its name (names are global). False when taken. */
  createAccount(account: AccountRecord): Promise<boolean>
  getAccount(account_name: string): Promise<AccountRecord | undefined>
  updateAccount(owner: string, account_name: string, patch: AccountPatch): Promise<boolean>
  /** Deletes the owner's account and its grants. False when not found. */
  deleteAccount(owner: string, account_name: string): Promise<boolean>
  /**
   * Grants when both the account and the site exist and are the owner's;
   * idempotent. `permissions` (today's Duda API) replaces the grant's
   * permissions; without it the grant holds every permission, whatever it
   * held before. The permission list is kept as given (the engine normalises it).
   */
  grantAccess(owner: string, account_name: string, site_name: string, permissions?: string[]): Promise<GrantOutcome>
  /** The permissions of one grant of the owner's, under the same checks as grantAccess. */
  getGrant(owner: string, account_name: string, site_name: string): Promise<GrantLookup>
  /** Revokes under the same checks; revoking a missing grant is 'ok'. */
  revokeAccess(owner: string, account_name: string, site_name: string): Promise<GrantOutcome>
  /** Sites granted to the owner's account, sorted; undefined when the account is not the owner's. */
  listGrants(owner: string, account_name: string): Promise<string[] | undefined>

  // Limits
  /**
   * Atomically counts one call against `key` unless the count has reached
   * `limit`. The counter may be dropped after `expiresAt` (epoch ms), but
   * correctness never depends on expiry: the engine puts the period in the key.
   */
  incrementWithinLimit(key: string, limit: number, expiresAt: number): Promise<LimitOutcome>

  // Analytics
  /**
   * Adds a visit to the site's day bucket and its owner's ranking, and answers
   * the site's owner and build state. Finding the site and recording are ONE
   * atomic step, so a visit is never recorded for a site that does not exist
   * (or was deleted meanwhile) and never ranks under a former owner.
   * Undefined, with nothing recorded, when no site has that name. No
   * cardinality cap or retention applies: the engine records through
   * {@link Store.recordEvents}; this stays for single events and older callers.
   */
  recordVisit(visit: VisitEvent): Promise<RecordOutcome | undefined>
  /** Adds an activity to the site's day bucket; otherwise as {@link Store.recordVisit}. */
  recordActivity(activity: ActivityEvent): Promise<RecordOutcome | undefined>
  /**
   * Records a batch of visits and activities, in order, each as
   * {@link Store.recordVisit} / {@link Store.recordActivity} would (each event
   * is atomic with the read of its site), under the cardinality cap and
   * retention of `options`, and answers one outcome per event, in order
   * (undefined for an event whose site does not exist: nothing recorded for
   * it). One round trip on a shared store: the engine sends every recording of
   * an event-loop turn as one batch.
   */
  recordEvents(events: readonly RecordedEvent[], options: RecordOptions): Promise<(RecordOutcome | undefined)[]>
  /** Traffic of the site over the days [from, to], grouped by the dimension if given. */
  siteTraffic(site_name: string, from: string, to: string, dimension?: Dimension): Promise<PeriodRow<TrafficTotals>[]>
  /** Activities of the site over the days [from, to], grouped by the dimension if given. */
  siteActivities(
    site_name: string,
    from: string,
    to: string,
    dimension?: Dimension,
  ): Promise<PeriodRow<ActivityTotals>[]>
  /**
   * The owner's sites with at least one visit in [from, to], by visits
   * descending, ties by site_name ascending, at most `limit` rows.
   */
  mostTraffic(
    owner: string,
    from: string,
    to: string,
    limit: number,
  ): Promise<{ site_name: string; data: TrafficTotals }[]>

  // Single sign-on tokens and dashboard sessions. Both are keyed by a digest
  // (the engine hashes the secret), so the store never holds a usable secret.
  // Expiry is decided by the engine clock passed in `now`; a store may also
  // drop a record on its own clock, but no earlier than `expires_at - now` ms
  // after it was written.
  /** Keeps a sign-in token under `digest` (a new, random digest: it replaces nothing). */
  issueSsoToken(digest: string, token: SsoRecord, now: number): Promise<void>
  /**
   * Redeems a token once, atomically: removes it and, if it was alive at
   * `now` (`now < expires_at`), keeps a session under `session_digest` holding
   * the token's grant and `session_expires_at`, and answers the grant.
   * Undefined when there was no such token or it had expired (it is removed
   * either way). Of any number of parallel redemptions, one at most succeeds.
   */
  redeemSsoToken(
    digest: string,
    now: number,
    session_digest: string,
    session_expires_at: number,
  ): Promise<SsoGrant | undefined>
  /** The session, or undefined when there is none or it has expired at `now`. */
  getSession(digest: string, now: number): Promise<SsoRecord | undefined>
  /** Ends a session. False when there was none. */
  deleteSession(digest: string): Promise<boolean>
  // State (test-double controls: reset, snapshot, seed)
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

  /** Releases connections. The store is unusable afterwards. */
  close(): Promise<void>
}
