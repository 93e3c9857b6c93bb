/**
 * MemoryStore's state operations (clear, export, import) for the test-double
 * controls.
 */
import type {
  AccountRecord,
  AnalyticsDayDump,
  LedgerDump,
  MasterRecord,
  SiteRecord,
  StateDump,
} from '../contract/index.js'
import { StateConflictError } from '../contract/index.js'
import type { AccountsStore } from '../contract/accounts.js'
import type { SitesStore } from '../contract/sites.js'
import type { StateStore } from '../contract/state.js'
import { checkDump } from '../shared/dump-checks.js'
import { Hll } from './hll.js'
import { byText } from '../shared/order.js'
import { grantKey, type MemoryData } from './data.js'
import { copy } from './records.js'

/**
 * The state methods of the Store contract, in memory. An import is checked
 * whole, then applied in one synchronous run through the `sites` and
 * `accounts` parts (async in signature, they do their work before their first,
 * absent, await), so no other call sees half of it.
 */
export function memoryState(data: MemoryData, parts: { sites: SitesStore; accounts: AccountsStore }): StateStore {
  return {
    async clearState() {
      data.ensureOpen()
      data.clear()
    },

    async exportState() {
      data.ensureOpen()
      const grants: StateDump['grants'] = []
      for (const [account_name, sites] of data.grantsByAccount)
        for (const site_name of sites) {
          const permissions = data.grantPermissions.get(grantKey(account_name, site_name))
          grants.push(
            permissions === undefined
              ? { account_name, site_name }
              : { account_name, site_name, permissions: [...permissions] },
          )
        }
      return {
        masters: [...data.masters.values()].map(copy).sort(byText((r) => r.user)),
        sites: [...data.sites.values()].map(copy).sort(byText((r) => r.site_name)),
        accounts: [...data.accounts.values()].map(copy).sort(byText((r) => r.account_name)),
        grants: grants.sort(byText((g) => JSON.stringify([g.account_name, g.site_name]))),
        billing: [...data.ledgers]
          .filter(([, ledger]) => ledger.charges.length + ledger.subscriptions.length > 0)
          .map(([owner, ledger]) => ({ owner, ...copy(ledger) }))
          .sort(byText((l) => l.owner)),
        analytics: data.analytics.dump(),
      }
    },

    async importState(dump) {
      data.ensureOpen()
      const existing = {
        sites: new Map([...data.sites].map(([name, site]) => [name, site.owner])),
        accounts: new Map([...data.accounts].map(([name, account]) => [name, account.owner])),
        siteFolds: data.siteFolds,
        accountFolds: data.accountFolds,
      }
      const { problems, siteOwners } = checkDump(dump, existing, true)
      // Only this store's own sketches (hll.ts) can be merged: another store's hash differs.
      for (const day of dump.analytics) {
        const sketches = [day, ...day.system, ...day.geo].filter((c) => c.visitors === undefined && c.visitors_sketch)
        if (sketches.some((c) => Hll.fromDump(c.visitors_sketch!) === undefined)) {
          problems.push(
            `analytics of ${day.site_name} on ${day.day}: visitor sketches come from another kind of store and cannot be imported here`,
          )
        }
      }
      if (problems.length > 0) throw new StateConflictError(problems)
      for (const master of dump.masters) data.masters.set(master.user, copy(master))
      for (const site of dump.sites) void parts.sites.createSite(site)
      for (const account of dump.accounts) void parts.accounts.createAccount(account)
      for (const { account_name, site_name, permissions } of dump.grants)
        void parts.accounts.grantAccess(siteOwners.get(site_name)!, account_name, site_name, permissions)
      for (const { owner, charges, subscriptions } of dump.billing) {
        const ledger = data.ledgerOf(owner)
        ledger.charges.push(...copy(charges))
        for (const subscription of copy(subscriptions)) {
          ledger.subscriptions.push(subscription)
          // The live subscription of a site that exists: Delete Site must cancel it.
          if (subscription.status === 'active' && data.sites.get(subscription.site_name)?.owner === owner) {
            data.activeSubscriptions.set(subscription.site_name, subscription)
          }
        }
      }
      for (const day of dump.analytics) data.analytics.load(day, siteOwners.get(day.site_name)!)
    },
  }
}

/** The state of a MemoryStore at one instant; see {@link MemoryStore.captureState}. */
export interface StateCapture {
  /** The store's own records, in no particular order: read them, never change them. */
  masters: readonly MasterRecord[]
  sites: readonly SiteRecord[]
  accounts: readonly AccountRecord[]
  /** Each grant with the owner of its account (and site). */
  grants: readonly { owner: string; account_name: string; site_name: string; permissions?: string[] }[]
  billing: readonly LedgerDump[]
  /** The analytics, a site at a time: `next()` until undefined, or `end()` to give up; `sites` of them. */
  analytics: { readonly sites: number; next(): AnalyticsDayDump[] | undefined; end(): void }
}

/**
 * The state at this instant, in one synchronous step that copies no record:
 * stored masters, sites and accounts are never changed in place (a change
 * stores a new record, see records.ts), so holding them is a point-in-time
 * copy. Grants and billing, which are changed in place, are copied here (a
 * few objects a grant or charge); analytics are copied on write per site.
 */
export function captureState(data: MemoryData): StateCapture {
  data.ensureOpen()
  const grants: { owner: string; account_name: string; site_name: string; permissions?: string[] }[] = []
  for (const [account_name, sites] of data.grantsByAccount) {
    const owner = data.accounts.get(account_name)!.owner
    for (const site_name of sites) {
      // Replaced, never changed in place (accounts.ts): the array itself is safe to hold.
      const permissions = data.grantPermissions.get(grantKey(account_name, site_name))
      grants.push(
        permissions === undefined
          ? { owner, account_name, site_name }
          : { owner, account_name, site_name, permissions },
      )
    }
  }
  const billing: LedgerDump[] = []
  for (const [owner, ledger] of data.ledgers) {
    if (ledger.charges.length + ledger.subscriptions.length === 0) continue
    billing.push({
      owner,
      // Charges are only ever appended; a subscription's status changes in place (Delete Site).
      charges: ledger.charges.slice(),
      subscriptions: ledger.subscriptions.map(({ site_name, status }) => ({ site_name, status })),
    })
  }
  return {
    masters: [...data.masters.values()],
    sites: [...data.sites.values()],
    accounts: [...data.accounts.values()],
    grants,
    billing,
    analytics: data.analytics.capture(),
  }
}
