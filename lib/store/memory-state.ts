/**
 * MemoryStore's state operations (clear, export, import) for the
 * test-double controls. They read the store's own maps; see the
 * {@link MemoryParts} cast in lib/store/memory.ts.
 */
import type { AccountRecord, BillingRecord, MasterRecord, SiteRecord, StateDump } from './contract.js'
import { StateConflictError } from './contract.js'
import type { MemoryAnalytics } from './memory-analytics.js'
import { copy } from './memory-records.js'
import { checkDump } from './state-check.js'

/** The parts of a MemoryStore the state operations work on. */
export interface MemoryParts {
  masters: Map<string, MasterRecord>
  sites: Map<string, SiteRecord>
  activeSubscriptions: Map<string, { site_name: string; status: 'active' | 'cancelled' }>
  owners: Map<string, unknown>
  accounts: Map<string, AccountRecord>
  siteFolds: Map<string, string>
  accountFolds: Map<string, string>
  grantsByAccount: Map<string, Set<string>>
  grantsBySite: Map<string, Set<string>>
  ledgers: Map<string, BillingRecord>
  counters: Map<string, unknown>
  counterHorizon: number
  analytics: MemoryAnalytics
  sso: { clear(): void }
}

const byKey =
  <T>(key: (item: T) => string) =>
  (a: T, b: T): number =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0

/** Empties every map. */
export function clearMemory(m: MemoryParts): void {
  for (const map of [
    m.masters,
    m.sites,
    m.siteFolds,
    m.accountFolds,
    m.activeSubscriptions,
    m.owners,
    m.accounts,
    m.grantsByAccount,
    m.grantsBySite,
    m.ledgers,
    m.counters,
  ]) {
    map.clear()
  }
  m.counterHorizon = -Infinity
  m.analytics.clear()
  m.sso.clear()
}

/** The whole state, sorted as the contract says. */
export function exportMemory(m: MemoryParts): StateDump {
  const grants: StateDump['grants'] = []
  for (const [account_name, sites] of m.grantsByAccount)
    for (const site_name of sites) grants.push({ account_name, site_name })
  return {
    masters: [...m.masters.values()].map(copy).sort(byKey((r) => r.user)),
    sites: [...m.sites.values()].map(copy).sort(byKey((r) => r.site_name)),
    accounts: [...m.accounts.values()].map(copy).sort(byKey((r) => r.account_name)),
    grants: grants.sort(byKey((g) => JSON.stringify([g.account_name, g.site_name]))),
    billing: [...m.ledgers]
      .filter(([, ledger]) => ledger.charges.length + ledger.subscriptions.length > 0)
      .map(([owner, ledger]) => ({ owner, ...copy(ledger) }))
      .sort(byKey((l) => l.owner)),
    analytics: m.analytics.dump(),
  }
}

/**
 * Checks the whole dump, then applies it in one synchronous run, so no other
 * call sees half of it. `store` methods used here are async in signature but
 * do their work synchronously, before their first (absent) await.
 */
export function importMemory(
  m: MemoryParts,
  dump: StateDump,
  store: {
    createSite(s: SiteRecord): Promise<boolean>
    createAccount(a: AccountRecord): Promise<boolean>
    grantAccess(o: string, a: string, s: string): Promise<unknown>
  },
): void {
  const existing = {
    sites: new Map([...m.sites].map(([name, site]) => [name, site.owner])),
    accounts: new Map([...m.accounts].map(([name, account]) => [name, account.owner])),
    siteFolds: m.siteFolds,
    accountFolds: m.accountFolds,
  }
  const { problems, siteOwners } = checkDump(dump, existing, false)
  if (problems.length > 0) throw new StateConflictError(problems)
  for (const master of dump.masters) m.masters.set(master.user, copy(master))
  for (const site of dump.sites) void store.createSite(site)
  for (const account of dump.accounts) void store.createAccount(account)
  for (const { account_name, site_name } of dump.grants)
    void store.grantAccess(siteOwners.get(site_name)!, account_name, site_name)
  for (const { owner, charges, subscriptions } of dump.billing) {
    let ledger = m.ledgers.get(owner)
    if (ledger === undefined) m.ledgers.set(owner, (ledger = { charges: [], subscriptions: [] }))
    ledger.charges.push(...copy(charges))
    for (const subscription of copy(subscriptions)) {
      ledger.subscriptions.push(subscription)
      // The live subscription of a site that exists: Delete Site must cancel it.
      if (subscription.status === 'active' && m.sites.get(subscription.site_name)?.owner === owner) {
        m.activeSubscriptions.set(subscription.site_name, subscription)
      }
    }
  }
  for (const day of dump.analytics) m.analytics.load(day, siteOwners.get(day.site_name)!)
}
