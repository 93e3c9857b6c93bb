/**
 * MemoryStore: the default Store, keeping everything in this process.
 *
 * Atomicity comes from JavaScript running one piece of code at a time: every
 * method does its whole check-and-write synchronously, with no `await` between
 * reading the state and changing it, so no other call can interleave.
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
import { foldName } from './names.js'
import { StoreUnavailableError } from './contract.js'
import { accountPatchEntries, expectationEntries, sitePatchEntries } from './guards.js'
import { MemoryAnalytics } from './memory-analytics.js'
import { MemorySso } from './memory-sso.js'
import { applyPatch, copy, copySite, meets, shallowCopy } from './memory-records.js'
import { clearMemory, exportMemory, importMemory, type MemoryParts } from './memory-state.js'
import { OrderedIndex } from './ordered-index.js'

/** The per-owner indexes behind listings and external-uid lookups. */
interface OwnerIndexes {
  created: OrderedIndex
  modified: OrderedIndex
  /** external_uid → names of the owner's sites that carry it. */
  externalUids: Map<string, Set<string>>
}

interface Counter {
  count: number
  expiresAt: number
}

/**
 * The in-memory {@link Store}.
 *
 * - Everything keyed by user input is a `Map`, so `__proto__` or `constructor`
 *   are ordinary names.
 * - Records go in and come out as deep copies.
 * - Patches are checked before anything changes: one touching `site_name`,
 *   `owner`, `created_at` or `first_published_at`, or removing (null) a field
 *   every site has, rejects with a TypeError; so does an account patch with a
 *   key other than first_name, last_name, email or lang; so does a site
 *   expectation with a key other than created_at or build.
 * - After {@link MemoryStore.close} every call rejects with
 *   {@link StoreUnavailableError}, as a store whose backend is gone would.
 */
export class MemoryStore implements Store {
  private readonly masters = new Map<string, MasterRecord>()
  private readonly sites = new Map<string, SiteRecord>()
  /** The active subscription of each charged site, by name (names are global): Delete Site cancels it without a ledger scan. */
  private readonly activeSubscriptions = new Map<string, { site_name: string; status: 'active' | 'cancelled' }>()
  private readonly owners = new Map<string, OwnerIndexes>()
  private readonly accounts = new Map<string, AccountRecord>()
  /** Folded name → the name in use, for sites and for accounts: names are unique regardless of case. */
  private readonly siteFolds = new Map<string, string>()
  private readonly accountFolds = new Map<string, string>()
  /** account_name → granted site names, and the reverse, so both deletes cascade without a scan. */
  private readonly grantsByAccount = new Map<string, Set<string>>()
  private readonly grantsBySite = new Map<string, Set<string>>()
  private readonly ledgers = new Map<string, BillingRecord>()
  private readonly counters = new Map<string, Counter>()
  /** The latest `expiresAt` any counter call has passed; see {@link MemoryStore.incrementWithinLimit}. */
  private counterHorizon = -Infinity // written by memory-state.ts too
  private readonly analytics = new MemoryAnalytics()
  private readonly sso = new MemorySso()
  private closed = false

  // ------------------------------------------------------------ masters

  async putMaster(master: MasterRecord): Promise<void> {
    this.ensureOpen()
    this.masters.set(master.user, copy(master))
  }

  async getMaster(user: string): Promise<MasterRecord | undefined> {
    this.ensureOpen()
    const master = this.masters.get(user)
    return master && copy(master)
  }

  async putMasterIf(master: MasterRecord, expected_hash: string | null): Promise<boolean> {
    this.ensureOpen()
    if ((this.masters.get(master.user)?.password_hash ?? null) !== expected_hash) return false
    this.masters.set(master.user, copy(master))
    return true
  }

  // -------------------------------------------------------------- sites

  async createSite(site: SiteRecord): Promise<boolean> {
    this.ensureOpen()
    const folded = foldName(site.site_name)
    if (this.sites.has(site.site_name) || this.siteFolds.has(folded)) return false
    this.siteFolds.set(folded, site.site_name)
    const stored = copySite(site)
    this.sites.set(stored.site_name, stored)
    const idx = this.indexesOf(stored.owner)
    idx.created.insert(stored.created_at, stored.site_name)
    idx.modified.insert(stored.modified_at, stored.site_name)
    if (stored.external_uid !== undefined) this.addExternalUid(idx, stored.external_uid, stored.site_name)
    return true
  }

  async getSite(site_name: string): Promise<SiteRecord | undefined> {
    this.ensureOpen()
    const site = this.sites.get(site_name)
    return site && copySite(site)
  }

  async getSites(site_names: string[]): Promise<(SiteRecord | undefined)[]> {
    this.ensureOpen()
    return site_names.map((name) => {
      const site = this.sites.get(name)
      return site && copySite(site)
    })
  }

  /** Ties on created_at go to the greatest site_name, as a descending sorted-set read would. */
  async findSiteByExternalUid(owner: string, external_uid: string): Promise<SiteRecord | undefined> {
    this.ensureOpen()
    const names = this.owners.get(owner)?.externalUids.get(external_uid)
    let best: SiteRecord | undefined
    for (const name of names ?? []) {
      const site = this.sites.get(name) as SiteRecord
      if (
        best === undefined ||
        site.created_at > best.created_at ||
        (site.created_at === best.created_at && site.site_name > best.site_name)
      ) {
        best = site
      }
    }
    return best && copySite(best)
  }

  async updateSite(
    owner: string,
    site_name: string,
    patch: SitePatch,
    expect?: SiteExpectation,
  ): Promise<SiteRecord | undefined> {
    this.ensureOpen()
    const entries = sitePatchEntries(patch)
    const expected = expectationEntries(expect, 'updateSite')
    const site = this.ownedSite(owner, site_name)
    if (site === undefined || !meets(site, expected)) return undefined
    const next = applyPatch(site, entries)
    this.replaceSite(site, next)
    return copySite(next)
  }

  async publishSite(
    owner: string,
    site_name: string,
    at: number,
    charge: boolean,
    expect?: SiteExpectation,
  ): Promise<PublishOutcome | undefined> {
    this.ensureOpen()
    const expected = expectationEntries(expect, 'publishSite')
    const site = this.ownedSite(owner, site_name)
    if (site === undefined || !meets(site, expected)) return undefined
    const first = site.first_published_at === undefined
    // Not `{ ...site, published_at, modified_at }`: see createSite in lib/engine/sites.ts on object spreads in Node 20.
    const next = shallowCopy(site)
    next.published_at = at
    next.modified_at = at
    if (first) next.first_published_at = at
    this.replaceSite(site, next)
    const charged = first && charge
    if (charged) {
      const ledger = this.ledgerOf(owner)
      ledger.charges.push({ site_name, at })
      const subscription = { site_name, status: 'active' as const }
      ledger.subscriptions.push(subscription)
      this.activeSubscriptions.set(site_name, subscription)
    }
    return { charged }
  }

  async deleteSite(owner: string, site_name: string, expect?: SiteExpectation): Promise<boolean> {
    this.ensureOpen()
    const expected = expectationEntries(expect, 'deleteSite')
    const site = this.ownedSite(owner, site_name)
    if (site === undefined || !meets(site, expected)) return false
    this.sites.delete(site_name)
    this.siteFolds.delete(foldName(site_name))
    const idx = this.indexesOf(owner)
    idx.created.remove(site.created_at, site_name)
    idx.modified.remove(site.modified_at, site_name)
    if (site.external_uid !== undefined) this.removeExternalUid(idx, site.external_uid, site_name)
    for (const account of this.grantsBySite.get(site_name) ?? []) this.grantsByAccount.get(account)?.delete(site_name)
    this.grantsBySite.delete(site_name)
    // Earlier incarnations of the name were cancelled when they were deleted,
    // so only this incarnation's subscription can still be active.
    const subscription = this.activeSubscriptions.get(site_name)
    if (subscription !== undefined) {
      subscription.status = 'cancelled'
      this.activeSubscriptions.delete(site_name)
    }
    this.analytics.dropSite(owner, site_name)
    return true
  }

  async listSites(owner: string, by: 'created' | 'modified', from: number, to: number): Promise<string[]> {
    this.ensureOpen()
    return this.owners.get(owner)?.[by].range(from, to) ?? []
  }

  async getBilling(owner: string): Promise<BillingRecord> {
    this.ensureOpen()
    return copy(this.ledgers.get(owner) ?? { charges: [], subscriptions: [] })
  }

  // ----------------------------------------------------------- accounts

  async createAccount(account: AccountRecord): Promise<boolean> {
    this.ensureOpen()
    const folded = foldName(account.account_name)
    if (this.accounts.has(account.account_name) || this.accountFolds.has(folded)) return false
    this.accountFolds.set(folded, account.account_name)
    this.accounts.set(account.account_name, copy(account))
    return true
  }

  async getAccount(account_name: string): Promise<AccountRecord | undefined> {
    this.ensureOpen()
    const account = this.accounts.get(account_name)
    return account && copy(account)
  }

  async updateAccount(owner: string, account_name: string, patch: AccountPatch): Promise<boolean> {
    this.ensureOpen()
    const entries = accountPatchEntries(patch)
    const account = this.ownedAccount(owner, account_name)
    if (account === undefined) return false
    this.accounts.set(account_name, applyPatch(account, entries))
    return true
  }

  async deleteAccount(owner: string, account_name: string): Promise<boolean> {
    this.ensureOpen()
    if (this.ownedAccount(owner, account_name) === undefined) return false
    this.accounts.delete(account_name)
    this.accountFolds.delete(foldName(account_name))
    for (const site of this.grantsByAccount.get(account_name) ?? []) this.grantsBySite.get(site)?.delete(account_name)
    this.grantsByAccount.delete(account_name)
    return true
  }

  /** The account is checked first: when neither is the owner's the answer is 'no-account'. */
  async grantAccess(owner: string, account_name: string, site_name: string): Promise<GrantOutcome> {
    this.ensureOpen()
    const outcome = this.checkGrant(owner, account_name, site_name)
    if (outcome !== 'ok') return outcome
    setOf(this.grantsByAccount, account_name).add(site_name)
    setOf(this.grantsBySite, site_name).add(account_name)
    return 'ok'
  }

  async revokeAccess(owner: string, account_name: string, site_name: string): Promise<GrantOutcome> {
    this.ensureOpen()
    const outcome = this.checkGrant(owner, account_name, site_name)
    if (outcome !== 'ok') return outcome
    this.grantsByAccount.get(account_name)?.delete(site_name)
    this.grantsBySite.get(site_name)?.delete(account_name)
    return 'ok'
  }

  async listGrants(owner: string, account_name: string): Promise<string[] | undefined> {
    this.ensureOpen()
    if (this.ownedAccount(owner, account_name) === undefined) return undefined
    return [...(this.grantsByAccount.get(account_name) ?? [])].sort()
  }

  // ------------------------------------------------------------- limits

  /**
   * `expiresAt` is on the engine's clock, which may be a test clock far from
   * this process's, so the real clock alone cannot say a counter is dead.
   * Expired counters are swept only when a call brings a later `expiresAt`
   * than any before (the engine has entered a later period), and only those
   * that are also past expiry on the real clock. A counter still being called
   * is never dropped, so with a clock set in the past the limit still holds.
   * This reads "a later expiresAt" as "the earlier periods are over", which
   * holds while keys end on period boundaries, as the engine's daily keys do.
   */
  async incrementWithinLimit(key: string, limit: number, expiresAt: number): Promise<LimitOutcome> {
    this.ensureOpen()
    if (expiresAt > this.counterHorizon) {
      this.counterHorizon = expiresAt
      const now = Date.now()
      for (const [other, counter] of this.counters) {
        if (other !== key && counter.expiresAt < now) this.counters.delete(other)
      }
    }
    let counter = this.counters.get(key)
    if (counter === undefined) {
      counter = { count: 0, expiresAt }
      this.counters.set(key, counter)
    } else if (expiresAt > counter.expiresAt) {
      counter.expiresAt = expiresAt
    }
    if (counter.count >= limit) return { allowed: false, count: counter.count }
    counter.count += 1
    return { allowed: true, count: counter.count }
  }

  // ---------------------------------------------------------- analytics

  async recordVisit(visit: VisitEvent): Promise<RecordOutcome | undefined> {
    this.ensureOpen()
    const site = this.sites.get(visit.site_name)
    if (site === undefined) return undefined
    this.analytics.recordVisit(visit, site.owner)
    return { owner: site.owner, build: site.build }
  }

  async recordActivity(activity: ActivityEvent): Promise<RecordOutcome | undefined> {
    this.ensureOpen()
    const site = this.sites.get(activity.site_name)
    if (site === undefined) return undefined
    this.analytics.recordActivity(activity, site.owner)
    return { owner: site.owner, build: site.build }
  }

  async siteTraffic(
    site_name: string,
    from: string,
    to: string,
    dimension?: Dimension,
  ): Promise<PeriodRow<TrafficTotals>[]> {
    this.ensureOpen()
    return this.analytics.siteTraffic(site_name, from, to, dimension)
  }

  async siteActivities(
    site_name: string,
    from: string,
    to: string,
    dimension?: Dimension,
  ): Promise<PeriodRow<ActivityTotals>[]> {
    this.ensureOpen()
    return this.analytics.siteActivities(site_name, from, to, dimension)
  }

  async mostTraffic(
    owner: string,
    from: string,
    to: string,
    limit: number,
  ): Promise<{ site_name: string; data: TrafficTotals }[]> {
    this.ensureOpen()
    return this.analytics.mostTraffic(owner, from, to, limit)
  }

  // ---------------------------------------------------------------- SSO

  async issueSsoToken(digest: string, token: SsoRecord, now: number): Promise<void> {
    this.ensureOpen()
    this.sso.issue(digest, token, now)
  }

  async redeemSsoToken(
    digest: string,
    now: number,
    session_digest: string,
    session_expires_at: number,
  ): Promise<SsoGrant | undefined> {
    this.ensureOpen()
    return this.sso.redeem(digest, now, session_digest, session_expires_at)
  }

  async getSession(digest: string, now: number): Promise<SsoRecord | undefined> {
    this.ensureOpen()
    return this.sso.session(digest, now)
  }

  async deleteSession(digest: string): Promise<boolean> {
    this.ensureOpen()
    return this.sso.endSession(digest)
  }

  // -------------------------------------------------------------- state

  async clearState(): Promise<void> {
    this.ensureOpen()
    clearMemory(this.parts())
  }

  async exportState(): Promise<StateDump> {
    this.ensureOpen()
    return exportMemory(this.parts())
  }

  async importState(dump: StateDump): Promise<void> {
    this.ensureOpen()
    importMemory(this.parts(), dump, this)
  }

  /** The private maps, for the state operations in lib/store/memory-state.ts. */
  private parts(): MemoryParts {
    return this as unknown as MemoryParts
  }

  // -------------------------------------------------------------- close

  /** Drops all data; every later call rejects with StoreUnavailableError. Closing twice is harmless. */
  async close(): Promise<void> {
    this.closed = true
    this.masters.clear()
    this.sites.clear()
    this.owners.clear()
    this.accounts.clear()
    this.grantsByAccount.clear()
    this.grantsBySite.clear()
    this.ledgers.clear()
    this.counters.clear()
    this.sso.clear()
  }

  // ------------------------------------------------------------ helpers

  private ensureOpen(): void {
    if (this.closed) throw new StoreUnavailableError('MemoryStore is closed')
  }

  private ownedSite(owner: string, site_name: string): SiteRecord | undefined {
    const site = this.sites.get(site_name)
    return site !== undefined && site.owner === owner ? site : undefined
  }

  private ownedAccount(owner: string, account_name: string): AccountRecord | undefined {
    const account = this.accounts.get(account_name)
    return account !== undefined && account.owner === owner ? account : undefined
  }

  private checkGrant(owner: string, account_name: string, site_name: string): GrantOutcome {
    if (this.ownedAccount(owner, account_name) === undefined) return 'no-account'
    if (this.ownedSite(owner, site_name) === undefined) return 'no-site'
    return 'ok'
  }

  private indexesOf(owner: string): OwnerIndexes {
    let idx = this.owners.get(owner)
    if (idx === undefined) {
      idx = { created: new OrderedIndex(), modified: new OrderedIndex(), externalUids: new Map() }
      this.owners.set(owner, idx)
    }
    return idx
  }

  private ledgerOf(owner: string): BillingRecord {
    let ledger = this.ledgers.get(owner)
    if (ledger === undefined) {
      ledger = { charges: [], subscriptions: [] }
      this.ledgers.set(owner, ledger)
    }
    return ledger
  }

  /** Stores `next` in place of `prev` (same site), moving its index entries as needed. */
  private replaceSite(prev: SiteRecord, next: SiteRecord): void {
    const idx = this.indexesOf(prev.owner)
    if (next.modified_at !== prev.modified_at) {
      idx.modified.remove(prev.modified_at, prev.site_name)
      idx.modified.insert(next.modified_at, next.site_name)
    }
    if (next.external_uid !== prev.external_uid) {
      if (prev.external_uid !== undefined) this.removeExternalUid(idx, prev.external_uid, prev.site_name)
      if (next.external_uid !== undefined) this.addExternalUid(idx, next.external_uid, next.site_name)
    }
    this.sites.set(next.site_name, next)
  }

  private addExternalUid(idx: OwnerIndexes, uid: string, site_name: string): void {
    setOf(idx.externalUids, uid).add(site_name)
  }

  private removeExternalUid(idx: OwnerIndexes, uid: string, site_name: string): void {
    const names = idx.externalUids.get(uid)
    names?.delete(site_name)
    if (names?.size === 0) idx.externalUids.delete(uid)
  }
}

function setOf(map: Map<string, Set<string>>, key: string): Set<string> {
  let set = map.get(key)
  if (set === undefined) {
    set = new Set()
    map.set(key, set)
  }
  return set
}
