/**
 * Everything one MemoryStore holds, shared by its parts (sites.ts,
 * accounts.ts, analytics.ts, sso.ts, state.ts in this folder).
 *
 * Atomicity comes from JavaScript running one piece of code at a time: every
 * operation does its whole check-and-write synchronously, with no `await`
 * between reading this state and changing it, so no other call can
 * interleave. Everything keyed by user input is a `Map`, so `__proto__` or
 * `constructor` are ordinary names.
 */
import type { AccountRecord, BillingRecord, MasterRecord, SiteRecord } from '../contract/index.js'
import { StoreUnavailableError } from '../contract/index.js'
import { MemoryAnalytics } from './analytics-buckets.js'
import { ExpiringRecords } from './expiring-records.js'
import { OrderedIndex } from './ordered-index.js'

/** The per-owner indexes behind listings and external-uid lookups. */
export interface OwnerIndexes {
  created: OrderedIndex
  modified: OrderedIndex
  /** external_uid → names of the owner's sites that carry it. */
  externalUids: Map<string, Set<string>>
}

/** A limit counter; see memory/accounts.ts. */
export interface Counter {
  count: number
  expiresAt: number
}

/** A subscription in an owner's ledger. */
export type Subscription = BillingRecord['subscriptions'][number]

/** The state of one MemoryStore. */
export class MemoryData {
  readonly masters = new Map<string, MasterRecord>()
  readonly sites = new Map<string, SiteRecord>()
  /** The active subscription of each charged site, by name (names are global): Delete Site cancels it without a ledger scan. */
  readonly activeSubscriptions = new Map<string, Subscription>()
  readonly owners = new Map<string, OwnerIndexes>()
  readonly accounts = new Map<string, AccountRecord>()
  /** Folded name → the name in use, for sites and for accounts: names are unique regardless of case. */
  readonly siteFolds = new Map<string, string>()
  readonly accountFolds = new Map<string, string>()
  /** account_name → granted site names, and the reverse, so both deletes cascade without a scan. */
  readonly grantsByAccount = new Map<string, Set<string>>()
  readonly grantsBySite = new Map<string, Set<string>>()
  /** {@link grantKey} → the grant's permissions; absent: every permission (a Grant Access grant). */
  readonly grantPermissions = new Map<string, string[]>()
  readonly ledgers = new Map<string, BillingRecord>()
  readonly counters = new Map<string, Counter>()
  /**
   * The latest `expiresAt` any counter call has passed, per key family (the
   * key up to its first ':'); see incrementWithinLimit in memory/accounts.ts.
   */
  readonly counterHorizons = new Map<string, number>()
  readonly analytics: MemoryAnalytics

  /** `exactVisitors`: see {@link MemoryStoreOptions.exactVisitors}. */
  constructor(exactVisitors?: number) {
    this.analytics = new MemoryAnalytics(exactVisitors)
  }
  readonly tokens = new ExpiringRecords()
  readonly sessions = new ExpiringRecords()
  private closed = false

  /** Rejects (by throwing inside an async operation) once the store is closed. */
  ensureOpen(): void {
    if (this.closed) throw new StoreUnavailableError('MemoryStore is closed')
  }

  /** Empties everything (clearState). */
  clear(): void {
    for (const map of [
      this.masters,
      this.sites,
      this.activeSubscriptions,
      this.owners,
      this.accounts,
      this.siteFolds,
      this.accountFolds,
      this.grantsByAccount,
      this.grantsBySite,
      this.grantPermissions,
      this.ledgers,
      this.counters,
    ]) {
      map.clear()
    }
    this.counterHorizons.clear()
    this.analytics.clear()
    this.tokens.clear()
    this.sessions.clear()
  }

  /** Drops everything; every later call rejects with StoreUnavailableError. */
  close(): void {
    this.closed = true
    this.clear()
  }

  ownedSite(owner: string, site_name: string): SiteRecord | undefined {
    const site = this.sites.get(site_name)
    return site !== undefined && site.owner === owner ? site : undefined
  }

  ownedAccount(owner: string, account_name: string): AccountRecord | undefined {
    const account = this.accounts.get(account_name)
    return account !== undefined && account.owner === owner ? account : undefined
  }

  indexesOf(owner: string): OwnerIndexes {
    let idx = this.owners.get(owner)
    if (idx === undefined) {
      idx = { created: new OrderedIndex(), modified: new OrderedIndex(), externalUids: new Map() }
      this.owners.set(owner, idx)
    }
    return idx
  }

  ledgerOf(owner: string): BillingRecord {
    let ledger = this.ledgers.get(owner)
    if (ledger === undefined) {
      ledger = { charges: [], subscriptions: [] }
      this.ledgers.set(owner, ledger)
    }
    return ledger
  }
}

/** The set under `key`, added if new. */
export function setOf(map: Map<string, Set<string>>, key: string): Set<string> {
  let set = map.get(key)
  if (set === undefined) {
    set = new Set()
    map.set(key, set)
  }
  return set
}

/** The key of one grant in {@link MemoryData.grantPermissions}. */
export function grantKey(account_name: string, site_name: string): string {
  return JSON.stringify([account_name, site_name])
}
