/**
 * RedisStore: the Store contract on Redis (ioredis), so that several mobisite
 * processes share one state. Every rule that must hold across processes is
 * one Lua script, i.e. one atomic round trip; see lib/store/redis-scripts.ts
 * and the key layout in lib/store/redis-keys.ts.
 *
 * When Redis cannot be reached every call rejects within about a second with
 * StoreUnavailableError (the API answers 503); the client reconnects on its
 * own and calls succeed again as soon as Redis is back.
 */
import type { Redis } from 'ioredis'
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
import { RedisAnalytics } from './redis-analytics.js'
import { RedisConn, type RedisTimeouts } from './redis-conn.js'
import { PUT_MASTER_IF } from './redis-masters.js'
import { foldName } from './names.js'
import {
  RedisKeys,
  checkAccountPatch,
  checkSitePatch,
  decodeFieldBuffers,
  decodeFields,
  encodeExpectation,
  encodeFields,
  encodePatch,
} from './redis-keys.js'
import * as S from './redis-scripts.js'
import { RedisSso } from './redis-sso.js'
import { RedisState } from './redis-state.js'

/** Options of {@link RedisStore}. */
export interface RedisStoreOptions extends RedisTimeouts {
  /** Redis URL, e.g. `redis://127.0.0.1:6379`. Default: ioredis' default (localhost:6379). */
  url?: string
  /**
   * A client to use instead of creating one; it is not closed by `close()`.
   * Its own settings then decide how calls behave while Redis is away (the
   * store's client fails fast: no offline queue, no retries per request).
   */
  client?: Redis
  /** Prefix of every key, so several apps can share one Redis. Default `mobisite:`. */
  prefix?: string
}

/** The Store contract on Redis. */
export class RedisStore implements Store {
  /** The prefix of every key this store writes. */
  readonly prefix: string
  private readonly conn: RedisConn
  private readonly keys: RedisKeys
  private readonly analytics: RedisAnalytics
  private readonly sso: RedisSso
  private readonly state: RedisState

  constructor(options: RedisStoreOptions = {}) {
    this.prefix = options.prefix ?? 'mobisite:'
    this.conn = new RedisConn(options)
    this.keys = new RedisKeys(this.prefix)
    this.analytics = new RedisAnalytics(this.conn, this.keys)
    this.sso = new RedisSso(this.conn, this.prefix)
    this.state = new RedisState(this.conn, this.keys)
  }

  /** The ioredis client in use (for diagnostics and benchmarks). */
  get client(): Redis {
    return this.conn.client
  }

  // ------------------------------------------------------------ masters

  async putMaster(master: MasterRecord): Promise<void> {
    await this.conn.call((c) => c.set(this.keys.master(master.user), JSON.stringify(master)))
  }

  async getMaster(user: string): Promise<MasterRecord | undefined> {
    const json = await this.conn.call((c) => c.get(this.keys.master(user)))
    return json === null ? undefined : (JSON.parse(json) as MasterRecord)
  }

  async putMasterIf(master: MasterRecord, expected_hash: string | null): Promise<boolean> {
    const args = [JSON.stringify(master), expected_hash ?? '']
    return (await this.conn.run(PUT_MASTER_IF, [this.keys.master(master.user)], args)) === 1
  }

  // -------------------------------------------------------------- sites

  async createSite(site: SiteRecord): Promise<boolean> {
    const k = this.keys
    const keys = [k.site(site.site_name), k.created(site.owner), k.modified(site.owner), k.siteFolds()]
    if (site.external_uid !== undefined) keys.push(k.externalUid(site.owner, site.external_uid))
    const args = [
      site.site_name,
      String(site.created_at),
      String(site.modified_at),
      foldName(site.site_name),
      ...encodeFields(site),
    ]
    return (await this.conn.run(S.CREATE_SITE, keys, args)) === 1
  }

  getSite(site_name: string): Promise<SiteRecord | undefined> {
    // One key needs no script: a plain HGETALL is the same single read, and
    // cheaper for Redis than running Lua (this is the API's most frequent call).
    // callBuffer leaves the reply a flat array of Buffers, decoded in one parse.
    const key = this.keys.site(site_name)
    return this.conn.call((c) => c.callBuffer('HGETALL', key)).then(decodeFieldBuffers<SiteRecord>)
  }

  async getSites(site_names: string[]): Promise<(SiteRecord | undefined)[]> {
    if (site_names.length === 0) return []
    const keys = site_names.map((n) => this.keys.site(n))
    const hashes = (await this.conn.run(S.GET_HASHES, keys, [])) as unknown[]
    return hashes.map((h) => decodeFields<SiteRecord>(h))
  }

  async findSiteByExternalUid(owner: string, external_uid: string): Promise<SiteRecord | undefined> {
    const hash = await this.conn.run(
      S.FIND_BY_EXTERNAL_UID,
      [this.keys.externalUid(owner, external_uid)],
      [this.prefix],
    )
    return decodeFields<SiteRecord>(hash)
  }

  async updateSite(
    owner: string,
    site_name: string,
    patch: SitePatch,
    expect?: SiteExpectation,
  ): Promise<SiteRecord | undefined> {
    checkSitePatch(patch)
    const expected = encodeExpectation(expect, 'updateSite')
    let uidAction = ''
    if (patch.external_uid === null) uidAction = '-'
    else if (patch.external_uid !== undefined) uidAction = this.keys.externalUid(owner, patch.external_uid)
    const hash = await this.conn.run(
      S.UPDATE_SITE,
      [this.keys.site(site_name), this.keys.modified(owner)],
      [JSON.stringify(owner), site_name, uidAction, ...expected, ...encodePatch(patch)],
    )
    return decodeFields<SiteRecord>(hash)
  }

  async publishSite(
    owner: string,
    site_name: string,
    at: number,
    charge: boolean,
    expect?: SiteExpectation,
  ): Promise<PublishOutcome | undefined> {
    const expected = encodeExpectation(expect, 'publishSite')
    const k = this.keys
    const result = await this.conn.run(
      S.PUBLISH_SITE,
      [k.site(site_name), k.modified(owner), k.charges(owner), k.subscriptions(owner)],
      [
        JSON.stringify(owner),
        site_name,
        String(at),
        charge ? '1' : '0',
        JSON.stringify({ site_name, at }),
        JSON.stringify({ site_name, status: 'active' }),
        ...expected,
      ],
    )
    return result === -1 ? undefined : { charged: result === 1 }
  }

  async deleteSite(owner: string, site_name: string, expect?: SiteExpectation): Promise<boolean> {
    const expected = encodeExpectation(expect, 'deleteSite')
    const k = this.keys
    const result = await this.conn.run(
      S.DELETE_SITE,
      [
        k.site(site_name),
        k.created(owner),
        k.modified(owner),
        k.subscriptions(owner),
        k.siteGrants(site_name),
        k.siteFolds(),
      ],
      [
        this.prefix,
        JSON.stringify(owner),
        owner,
        site_name,
        JSON.stringify({ site_name, status: 'cancelled' }),
        ...expected,
        foldName(site_name),
      ],
    )
    return result === 1
  }

  async listSites(owner: string, by: 'created' | 'modified', from: number, to: number): Promise<string[]> {
    if (from > to) return []
    const key = by === 'created' ? this.keys.created(owner) : this.keys.modified(owner)
    // Equal scores come back in member (byte) order: ties by name.
    return this.conn.call((c) => c.zrangebyscore(key, from, to))
  }

  async getBilling(owner: string): Promise<BillingRecord> {
    const [charges, subs] = (await this.conn.run(
      S.GET_BILLING,
      [this.keys.charges(owner), this.keys.subscriptions(owner)],
      [],
    )) as [string[], string[]]
    return {
      charges: charges.map((j) => JSON.parse(j) as BillingRecord['charges'][number]),
      subscriptions: subs.map((j) => JSON.parse(j) as BillingRecord['subscriptions'][number]),
    }
  }

  // ----------------------------------------------------------- accounts

  async createAccount(account: AccountRecord): Promise<boolean> {
    const args = [foldName(account.account_name), account.account_name, ...encodeFields(account)]
    const keys = [this.keys.account(account.account_name), this.keys.accountFolds()]
    return (await this.conn.run(S.CREATE_ACCOUNT, keys, args)) === 1
  }

  async getAccount(account_name: string): Promise<AccountRecord | undefined> {
    const [hash] = (await this.conn.run(S.GET_HASHES, [this.keys.account(account_name)], [])) as unknown[]
    return decodeFields<AccountRecord>(hash)
  }

  async updateAccount(owner: string, account_name: string, patch: AccountPatch): Promise<boolean> {
    checkAccountPatch(patch)
    const args = [JSON.stringify(owner), ...encodePatch(patch)]
    return (await this.conn.run(S.UPDATE_ACCOUNT, [this.keys.account(account_name)], args)) === 1
  }

  async deleteAccount(owner: string, account_name: string): Promise<boolean> {
    const keys = [this.keys.account(account_name), this.keys.accountGrants(account_name), this.keys.accountFolds()]
    const args = [this.prefix, JSON.stringify(owner), account_name, foldName(account_name)]
    return (await this.conn.run(S.DELETE_ACCOUNT, keys, args)) === 1
  }

  grantAccess(owner: string, account_name: string, site_name: string): Promise<GrantOutcome> {
    return this.grant(owner, account_name, site_name, 'grant')
  }

  revokeAccess(owner: string, account_name: string, site_name: string): Promise<GrantOutcome> {
    return this.grant(owner, account_name, site_name, 'revoke')
  }

  async listGrants(owner: string, account_name: string): Promise<string[] | undefined> {
    const keys = [this.keys.account(account_name), this.keys.accountGrants(account_name)]
    const sites = (await this.conn.run(S.LIST_GRANTS, keys, [JSON.stringify(owner)])) as string[] | null
    return sites === null ? undefined : sites.sort()
  }

  private async grant(owner: string, account: string, site: string, op: 'grant' | 'revoke'): Promise<GrantOutcome> {
    const k = this.keys
    const keys = [k.account(account), k.site(site), k.accountGrants(account), k.siteGrants(site)]
    return (await this.conn.run(S.GRANT, keys, [JSON.stringify(owner), account, site, op])) as GrantOutcome
  }

  // ------------------------------------------------------------- limits

  async incrementWithinLimit(key: string, limit: number, expiresAt: number): Promise<LimitOutcome> {
    const [allowed, count] = (await this.conn.run(
      S.INCREMENT_WITHIN_LIMIT,
      [this.keys.limit(key)],
      [limit, Math.ceil(expiresAt)],
    )) as [number, number]
    return { allowed: allowed === 1, count }
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

  /** UNLINKs every key under this store's prefix (SCAN: time grows with the state). */
  clearState(): Promise<void> {
    return this.state.clear()
  }

  /** Visitors come out as HyperLogLogs (`visitors_sketch`), which only a RedisStore imports. */
  exportState(): Promise<StateDump> {
    return this.state.export()
  }

  importState(dump: StateDump): Promise<void> {
    return this.state.import(dump)
  }

  /** Quits the client if the store created it; a client passed in stays open. */
  close(): Promise<void> {
    return this.conn.close()
  }
}
