/**
 * MemoryStore's sites and billing. Records go in and come out as deep copies
 * (records.ts); listings come from per-owner ordered indexes, never a scan.
 */
import type { SiteRecord } from '../contract/index.js'
import type { SitesStore } from '../contract/sites.js'
import { foldName } from '../shared/name-fold.js'
import { expectationEntries, sitePatchEntries } from '../shared/patch-checks.js'
import { grantKey, type MemoryData, type OwnerIndexes, setOf } from './data.js'
import { applyPatch, copy, copySite, meets, shallowCopy } from './records.js'

/** The site and billing methods of the Store contract, in memory. */
export function memorySites(data: MemoryData): SitesStore {
  return {
    async createSite(site) {
      data.ensureOpen()
      const folded = foldName(site.site_name)
      if (data.sites.has(site.site_name) || data.siteFolds.has(folded)) return false
      data.siteFolds.set(folded, site.site_name)
      const stored = copySite(site)
      data.sites.set(stored.site_name, stored)
      const idx = data.indexesOf(stored.owner)
      idx.created.insert(stored.created_at, stored.site_name)
      idx.modified.insert(stored.modified_at, stored.site_name)
      if (stored.external_uid !== undefined) setOf(idx.externalUids, stored.external_uid).add(stored.site_name)
      return true
    },

    async getSite(site_name) {
      data.ensureOpen()
      const site = data.sites.get(site_name)
      return site && copySite(site)
    },

    async getSites(site_names) {
      data.ensureOpen()
      return site_names.map((name) => {
        const site = data.sites.get(name)
        return site && copySite(site)
      })
    },

    /** Ties on created_at go to the greatest site_name, as a descending sorted-set read would. */
    async findSiteByExternalUid(owner, external_uid) {
      data.ensureOpen()
      const names = data.owners.get(owner)?.externalUids.get(external_uid)
      let best: SiteRecord | undefined
      for (const name of names ?? []) {
        const site = data.sites.get(name) as SiteRecord
        if (
          best === undefined ||
          site.created_at > best.created_at ||
          (site.created_at === best.created_at && site.site_name > best.site_name)
        ) {
          best = site
        }
      }
      return best && copySite(best)
    },

    async updateSite(owner, site_name, patch, expect) {
      data.ensureOpen()
      const entries = sitePatchEntries(patch)
      const expected = expectationEntries(expect, 'updateSite')
      const site = data.ownedSite(owner, site_name)
      if (site === undefined || !meets(site, expected)) return undefined
      const next = applyPatch(site, entries)
      replaceSite(data, site, next)
      return copySite(next)
    },

    async appendSiteActivity(owner, site_name, entry, max) {
      data.ensureOpen()
      const site = data.ownedSite(owner, site_name)
      if (site === undefined) return false
      const next = shallowCopy(site)
      next.activity_log = [...(site.activity_log ?? []), { at: entry.at, activity: entry.activity }].slice(-max)
      replaceSite(data, site, next)
      return true
    },

    async publishSite(owner, site_name, at, charge, expect) {
      data.ensureOpen()
      const expected = expectationEntries(expect, 'publishSite')
      const site = data.ownedSite(owner, site_name)
      if (site === undefined || !meets(site, expected)) return undefined
      // A publish that does not charge (test=true) is not a first publish: the next one that charges is.
      const first = site.first_published_at === undefined && charge
      // Not `{ ...site, published_at, modified_at }`: see createSite in lib/engine/rules/sites.ts on object spreads in Node 20.
      const next = shallowCopy(site)
      next.published_at = at
      next.modified_at = at
      if (first) next.first_published_at = at
      replaceSite(data, site, next)
      const charged = first
      if (charged) {
        const ledger = data.ledgerOf(owner)
        ledger.charges.push({ site_name, at })
        const subscription = { site_name, status: 'active' as const }
        ledger.subscriptions.push(subscription)
        data.activeSubscriptions.set(site_name, subscription)
      }
      return { charged }
    },

    async deleteSite(owner, site_name, expect) {
      data.ensureOpen()
      const expected = expectationEntries(expect, 'deleteSite')
      const site = data.ownedSite(owner, site_name)
      if (site === undefined || !meets(site, expected)) return false
      data.sites.delete(site_name)
      data.siteFolds.delete(foldName(site_name))
      const idx = data.indexesOf(owner)
      idx.created.remove(site.created_at, site_name)
      idx.modified.remove(site.modified_at, site_name)
      if (site.external_uid !== undefined) removeExternalUid(idx, site.external_uid, site_name)
      for (const account of data.grantsBySite.get(site_name) ?? []) {
        data.grantsByAccount.get(account)?.delete(site_name)
        data.grantPermissions.delete(grantKey(account, site_name))
      }
      data.grantsBySite.delete(site_name)
      // Earlier incarnations of the name were cancelled when they were deleted,
      // so only this incarnation's subscription can still be active.
      const subscription = data.activeSubscriptions.get(site_name)
      if (subscription !== undefined) {
        subscription.status = 'cancelled'
        data.activeSubscriptions.delete(site_name)
      }
      data.analytics.dropSite(owner, site_name)
      return true
    },

    async listSites(owner, by, from, to) {
      data.ensureOpen()
      return data.owners.get(owner)?.[by].range(from, to) ?? []
    },

    async getBilling(owner) {
      data.ensureOpen()
      return copy(data.ledgers.get(owner) ?? { charges: [], subscriptions: [] })
    },
  }
}

/** Stores `next` in place of `prev` (same site), moving its index entries as needed. */
function replaceSite(data: MemoryData, prev: SiteRecord, next: SiteRecord): void {
  const idx = data.indexesOf(prev.owner)
  if (next.modified_at !== prev.modified_at) {
    idx.modified.remove(prev.modified_at, prev.site_name)
    idx.modified.insert(next.modified_at, next.site_name)
  }
  if (next.external_uid !== prev.external_uid) {
    if (prev.external_uid !== undefined) removeExternalUid(idx, prev.external_uid, prev.site_name)
    if (next.external_uid !== undefined) setOf(idx.externalUids, next.external_uid).add(next.site_name)
  }
  data.sites.set(next.site_name, next)
}

function removeExternalUid(idx: OwnerIndexes, uid: string, site_name: string): void {
  const names = idx.externalUids.get(uid)
  names?.delete(site_name)
  if (names?.size === 0) idx.externalUids.delete(uid)
}
