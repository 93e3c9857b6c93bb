/**
 * PostgresStore: the Store contract on PostgreSQL (node-postgres), a durable
 * system of record that several mobisite processes share.
 *
 * Every rule that must hold across processes is one statement or one
 * function call (one transaction, one round trip): unique names (a unique
 * index, regardless of letter case), the daily limit (an upsert whose WHERE
 * sees the latest count), the first-publish charge (a row lock), grants
 * removed with their site or account (foreign-key cascades) and recording
 * only for a site that exists (a key-share lock), single-use sign-in tokens
 * (a DELETE ... RETURNING feeding the session INSERT). The tables, functions and
 * indexes are created on first use by versioned migrations
 * (lib/store/postgres-migrations.ts) in the store's own schema.
 *
 * When PostgreSQL cannot be reached, or does not answer, every call rejects
 * within `timeoutMs` (default 2 s) with StoreUnavailableError (the API
 * answers 503); broken connections are dropped from the pool and calls
 * succeed again as soon as the database is back, without a restart.
 */
import type {
  AccountPatch,
  AccountRecord,
  ActivityEvent,
  ActivityTotals,
  BillingRecord,
  Dimension,
  GrantOutcome,
  LimitOutcome,
  MasterRecord,
  PeriodRow,
  PublishOutcome,
  RecordOutcome,
  SiteExpectation,
  SitePatch,
  SiteRecord,
  SsoGrant,
  SsoRecord,
  StateDump,
  Store,
  TrafficTotals,
  VisitEvent,
} from './contract.js'
import { PgAccounts } from './postgres-accounts.js'
import { PgAnalytics } from './postgres-analytics.js'
import { PgConn, type PostgresConnOptions } from './postgres-conn.js'
import { PgSites } from './postgres-sites.js'
import { PgSso } from './postgres-sso.js'
import { PgState } from './postgres-state.js'

/** Options of {@link PostgresStore}. */
export type PostgresStoreOptions = PostgresConnOptions

/** The Store contract on PostgreSQL. */
export class PostgresStore implements Store {
  /** The schema holding this store's tables. */
  readonly schema: string
  private readonly conn: PgConn
  private readonly sites: PgSites
  private readonly accounts: PgAccounts
  private readonly analytics: PgAnalytics
  private readonly sso: PgSso
  private readonly state: PgState

  constructor(options: PostgresStoreOptions = {}) {
    this.conn = new PgConn(options)
    this.schema = this.conn.schema
    this.sites = new PgSites(this.conn)
    this.accounts = new PgAccounts(this.conn)
    this.analytics = new PgAnalytics(this.conn)
    this.sso = new PgSso(this.conn)
    this.state = new PgState(this.conn)
  }

  /** The pg pool in use (for diagnostics and benchmarks). */
  get pool(): PgConn['pool'] {
    return this.conn.pool
  }

  // ------------------------------------------------------------ masters

  putMaster(master: MasterRecord): Promise<void> {
    return this.accounts.putMaster(master)
  }

  getMaster(user: string): Promise<MasterRecord | undefined> {
    return this.accounts.getMaster(user)
  }

  putMasterIf(master: MasterRecord, expected_hash: string | null): Promise<boolean> {
    return this.accounts.putMasterIf(master, expected_hash)
  }

  // -------------------------------------------------------------- sites

  createSite(site: SiteRecord): Promise<boolean> {
    return this.sites.createSite(site)
  }

  getSite(site_name: string): Promise<SiteRecord | undefined> {
    return this.sites.getSite(site_name)
  }

  getSites(site_names: string[]): Promise<(SiteRecord | undefined)[]> {
    return this.sites.getSites(site_names)
  }

  findSiteByExternalUid(owner: string, external_uid: string): Promise<SiteRecord | undefined> {
    return this.sites.findSiteByExternalUid(owner, external_uid)
  }

  updateSite(
    owner: string,
    site_name: string,
    patch: SitePatch,
    expect?: SiteExpectation,
  ): Promise<SiteRecord | undefined> {
    return this.sites.updateSite(owner, site_name, patch, expect)
  }

  publishSite(
    owner: string,
    site_name: string,
    at: number,
    charge: boolean,
    expect?: SiteExpectation,
  ): Promise<PublishOutcome | undefined> {
    return this.sites.publishSite(owner, site_name, at, charge, expect)
  }

  deleteSite(owner: string, site_name: string, expect?: SiteExpectation): Promise<boolean> {
    return this.sites.deleteSite(owner, site_name, expect)
  }

  listSites(owner: string, by: 'created' | 'modified', from: number, to: number): Promise<string[]> {
    return this.sites.listSites(owner, by, from, to)
  }

  getBilling(owner: string): Promise<BillingRecord> {
    return this.sites.getBilling(owner)
  }

  // ----------------------------------------------------------- accounts

  createAccount(account: AccountRecord): Promise<boolean> {
    return this.accounts.createAccount(account)
  }

  getAccount(account_name: string): Promise<AccountRecord | undefined> {
    return this.accounts.getAccount(account_name)
  }

  updateAccount(owner: string, account_name: string, patch: AccountPatch): Promise<boolean> {
    return this.accounts.updateAccount(owner, account_name, patch)
  }

  deleteAccount(owner: string, account_name: string): Promise<boolean> {
    return this.accounts.deleteAccount(owner, account_name)
  }

  /** The account is checked first: when neither is the owner's the answer is 'no-account'. */
  grantAccess(owner: string, account_name: string, site_name: string): Promise<GrantOutcome> {
    return this.accounts.setGrant(owner, account_name, site_name, true)
  }

  revokeAccess(owner: string, account_name: string, site_name: string): Promise<GrantOutcome> {
    return this.accounts.setGrant(owner, account_name, site_name, false)
  }

  listGrants(owner: string, account_name: string): Promise<string[] | undefined> {
    return this.accounts.listGrants(owner, account_name)
  }

  // ------------------------------------------------------------- limits

  incrementWithinLimit(key: string, limit: number, expiresAt: number): Promise<LimitOutcome> {
    return this.accounts.incrementWithinLimit(key, limit, expiresAt)
  }

  // ---------------------------------------------------------- analytics

  recordVisit(visit: VisitEvent): Promise<RecordOutcome | undefined> {
    return this.analytics.recordVisit(visit)
  }

  recordActivity(activity: ActivityEvent): Promise<RecordOutcome | undefined> {
    return this.analytics.recordActivity(activity)
  }

  siteTraffic(site_name: string, from: string, to: string, dimension?: Dimension): Promise<PeriodRow<TrafficTotals>[]> {
    return this.analytics.siteTraffic(site_name, from, to, dimension)
  }

  siteActivities(
    site_name: string,
    from: string,
    to: string,
    dimension?: Dimension,
  ): Promise<PeriodRow<ActivityTotals>[]> {
    return this.analytics.siteActivities(site_name, from, to, dimension)
  }

  mostTraffic(
    owner: string,
    from: string,
    to: string,
    limit: number,
  ): Promise<{ site_name: string; data: TrafficTotals }[]> {
    return this.analytics.mostTraffic(owner, from, to, limit)
  }

  // ---------------------------------------------------------------- SSO

  issueSsoToken(digest: string, token: SsoRecord, now: number): Promise<void> {
    return this.sso.issue(digest, token, now)
  }

  redeemSsoToken(
    digest: string,
    now: number,
    session_digest: string,
    session_expires_at: number,
  ): Promise<SsoGrant | undefined> {
    return this.sso.redeem(digest, now, session_digest, session_expires_at)
  }

  getSession(digest: string, now: number): Promise<SsoRecord | undefined> {
    return this.sso.get(digest, now)
  }

  deleteSession(digest: string): Promise<boolean> {
    return this.sso.end(digest)
  }

  // -------------------------------------------------------------- state

  /** TRUNCATEs every table of the store's schema, in one transaction. */
  clearState(): Promise<void> {
    return this.state.clear()
  }

  /** One transaction: a consistent snapshot. Visitors are exact ids. */
  exportState(): Promise<StateDump> {
    return this.state.export()
  }

  importState(dump: StateDump): Promise<void> {
    return this.state.import(dump)
  }

  /** Ends the pool if the store created it (a pool passed in stays open); every later call rejects. */
  close(): Promise<void> {
    return this.conn.close()
  }
}
