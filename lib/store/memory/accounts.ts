/**
 * MemoryStore's masters, sub-user accounts, grants and limit counters.
 * Grants are kept both ways (account → sites, site → accounts), so deleting
 * either side cascades without a scan.
 */
import type { GrantOutcome } from '../contract/index.js'
import type { AccountsStore } from '../contract/accounts.js'
import { foldName } from '../shared/name-fold.js'
import { accountPatchEntries } from '../shared/patch-checks.js'
import { grantKey, type MemoryData, setOf } from './data.js'
import { applyPatch, copy } from './records.js'

/** The master, account, grant and limit methods of the Store contract, in memory. */
export function memoryAccounts(data: MemoryData): AccountsStore {
  /** The account is checked first: when neither is the owner's the answer is 'no-account'. */
  const checkGrant = (owner: string, account_name: string, site_name: string): GrantOutcome => {
    if (data.ownedAccount(owner, account_name) === undefined) return 'no-account'
    if (data.ownedSite(owner, site_name) === undefined) return 'no-site'
    return 'ok'
  }

  return {
    async putMaster(master) {
      data.ensureOpen()
      data.masters.set(master.user, copy(master))
    },

    async getMaster(user) {
      data.ensureOpen()
      const master = data.masters.get(user)
      return master && copy(master)
    },

    async putMasterIf(master, expected_hash) {
      data.ensureOpen()
      if ((data.masters.get(master.user)?.password_hash ?? null) !== expected_hash) return false
      data.masters.set(master.user, copy(master))
      return true
    },

    async createAccount(account) {
      data.ensureOpen()
      const folded = foldName(account.account_name)
      if (data.accounts.has(account.account_name) || data.accountFolds.has(folded)) return false
      data.accountFolds.set(folded, account.account_name)
      data.accounts.set(account.account_name, copy(account))
      return true
    },

    async getAccount(account_name) {
      data.ensureOpen()
      const account = data.accounts.get(account_name)
      return account && copy(account)
    },

    async updateAccount(owner, account_name, patch) {
      data.ensureOpen()
      const entries = accountPatchEntries(patch)
      const account = data.ownedAccount(owner, account_name)
      if (account === undefined) return false
      data.accounts.set(account_name, applyPatch(account, entries))
      return true
    },

    async deleteAccount(owner, account_name) {
      data.ensureOpen()
      if (data.ownedAccount(owner, account_name) === undefined) return false
      data.accounts.delete(account_name)
      data.accountFolds.delete(foldName(account_name))
      for (const site of data.grantsByAccount.get(account_name) ?? []) {
        data.grantsBySite.get(site)?.delete(account_name)
        data.grantPermissions.delete(grantKey(account_name, site))
      }
      data.grantsByAccount.delete(account_name)
      return true
    },

    async grantAccess(owner, account_name, site_name, permissions) {
      data.ensureOpen()
      const outcome = checkGrant(owner, account_name, site_name)
      if (outcome !== 'ok') return outcome
      setOf(data.grantsByAccount, account_name).add(site_name)
      setOf(data.grantsBySite, site_name).add(account_name)
      if (permissions === undefined) data.grantPermissions.delete(grantKey(account_name, site_name))
      else data.grantPermissions.set(grantKey(account_name, site_name), [...permissions])
      return 'ok'
    },

    async getGrant(owner, account_name, site_name) {
      data.ensureOpen()
      const outcome = checkGrant(owner, account_name, site_name)
      if (outcome !== 'ok') return outcome
      if (!data.grantsByAccount.get(account_name)?.has(site_name)) return 'no-grant'
      const permissions = data.grantPermissions.get(grantKey(account_name, site_name))
      return { permissions: permissions === undefined ? null : [...permissions] }
    },

    async revokeAccess(owner, account_name, site_name) {
      data.ensureOpen()
      const outcome = checkGrant(owner, account_name, site_name)
      if (outcome !== 'ok') return outcome
      data.grantsByAccount.get(account_name)?.delete(site_name)
      data.grantsBySite.get(site_name)?.delete(account_name)
      data.grantPermissions.delete(grantKey(account_name, site_name))
      return 'ok'
    },

    async listGrants(owner, account_name) {
      data.ensureOpen()
      if (data.ownedAccount(owner, account_name) === undefined) return undefined
      return [...(data.grantsByAccount.get(account_name) ?? [])].sort()
    },

    /**
     * `expiresAt` is on the engine's clock, which may be a test clock far from
     * this process's, so the real clock alone cannot say a counter is dead.
     * Expired counters are swept only when a call brings a later `expiresAt`
     * than any before (the engine has entered a later period), and only those
     * that are also past expiry on the real clock. A counter still being called
     * is never dropped, so with a clock set in the past the limit still holds.
     * This reads "a later expiresAt" as "the earlier periods are over", which
     * holds while keys end on period boundaries, as the engine's daily keys do.
     * Each key family (the key up to its first ':') has its own horizon and
     * sweeps only its own counters: the failed-login counters run on real
     * minutes, and must not sweep daily counters of a test clock set in the past.
     */
    async incrementWithinLimit(key, limit, expiresAt) {
      data.ensureOpen()
      const colon = key.indexOf(':')
      const family = colon < 0 ? '' : key.slice(0, colon + 1)
      if (expiresAt > (data.counterHorizons.get(family) ?? -Infinity)) {
        data.counterHorizons.set(family, expiresAt)
        const now = Date.now()
        for (const [other, counter] of data.counters) {
          if (other !== key && counter.expiresAt < now && other.startsWith(family)) data.counters.delete(other)
        }
      }
      let counter = data.counters.get(key)
      if (counter === undefined) {
        counter = { count: 0, expiresAt }
        data.counters.set(key, counter)
      } else if (expiresAt > counter.expiresAt) {
        counter.expiresAt = expiresAt
      }
      if (counter.count >= limit) return { allowed: false, count: counter.count }
      counter.count += 1
      return { allowed: true, count: counter.count }
    },
  }
}
