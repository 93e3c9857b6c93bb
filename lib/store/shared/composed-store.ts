/**
 * How every adapter is put together. The Store contract falls into five
 * areas, and each adapter serves each area from a file of the same name in
 * its own folder (memory/, redis/, postgres/):
 *
 * | part        | file          | methods                                                            |
 * |-------------|---------------|--------------------------------------------------------------------|
 * | `accounts`  | accounts.ts   | masters, sub-user accounts, grants, incrementWithinLimit            |
 * | `sites`     | sites.ts      | sites, listings, publish (with its charge), delete, activity log, getBilling |
 * | `analytics` | analytics.ts  | recordVisit, recordActivity, siteTraffic, siteActivities, mostTraffic |
 * | `sso`       | sso.ts        | sign-in tokens and dashboard sessions                              |
 * | `state`     | state.ts      | clearState, exportState, importState                               |
 *
 * {@link ComposedStore} hands each call to its part, so the delegation is
 * written once for every adapter; an adapter's store.ts only builds the parts
 * and closes its connection.
 */
import type {
  AccountPatch,
  AccountRecord,
  ActivityEvent,
  Dimension,
  MasterRecord,
  SiteActivityEntry,
  SiteExpectation,
  SitePatch,
  SiteRecord,
  SsoRecord,
  StateDump,
  Store,
  VisitEvent,
  RecordedEvent,
  RecordOptions,
} from '../contract/index.js'

/** Master accounts, sub-user accounts, grants and the limit counters. */
export type AccountOps = Pick<
  Store,
  | 'putMaster'
  | 'getMaster'
  | 'putMasterIf'
  | 'createAccount'
  | 'getAccount'
  | 'updateAccount'
  | 'deleteAccount'
  | 'grantAccess'
  | 'getGrant'
  | 'revokeAccess'
  | 'listGrants'
  | 'incrementWithinLimit'
>

/** Sites, their listings, publishing with the first-publish charge, deletion, and the billing ledger. */
export type SiteOps = Pick<
  Store,
  | 'createSite'
  | 'getSite'
  | 'getSites'
  | 'findSiteByExternalUid'
  | 'updateSite'
  | 'publishSite'
  | 'deleteSite'
  | 'appendSiteActivity'
  | 'listSites'
  | 'getBilling'
>

/** Recording visits and activities, and the period queries over them. */
export type AnalyticsOps = Pick<
  Store,
  'recordVisit' | 'recordActivity' | 'recordEvents' | 'siteTraffic' | 'siteActivities' | 'mostTraffic'
>

/** Single sign-on tokens and dashboard sessions. */
export type SsoOps = Pick<Store, 'issueSsoToken' | 'redeemSsoToken' | 'getSession' | 'deleteSession'>

/** The state operations behind the test-double controls. */
export type StateOps = Pick<Store, 'clearState' | 'exportState' | 'importState'>

/** The five parts an adapter is made of. */
export interface StoreParts {
  accounts: AccountOps
  sites: SiteOps
  analytics: AnalyticsOps
  sso: SsoOps
  state: StateOps
}

/**
 * A {@link Store} whose every method is served by one of its {@link StoreParts};
 * the subclass adds `close`. The methods are ordinary prototype methods, so a
 * subclass may override any of them and call `super`.
 */
export abstract class ComposedStore implements Store {
  constructor(private readonly parts: StoreParts) {}

  putMaster(master: MasterRecord) {
    return this.parts.accounts.putMaster(master)
  }
  getMaster(user: string) {
    return this.parts.accounts.getMaster(user)
  }
  putMasterIf(master: MasterRecord, expected_hash: string | null) {
    return this.parts.accounts.putMasterIf(master, expected_hash)
  }
  createAccount(account: AccountRecord) {
    return this.parts.accounts.createAccount(account)
  }
  getAccount(account_name: string) {
    return this.parts.accounts.getAccount(account_name)
  }
  updateAccount(owner: string, account_name: string, patch: AccountPatch) {
    return this.parts.accounts.updateAccount(owner, account_name, patch)
  }
  deleteAccount(owner: string, account_name: string) {
    return this.parts.accounts.deleteAccount(owner, account_name)
  }
  grantAccess(owner: string, account_name: string, site_name: string, permissions?: string[]) {
    return this.parts.accounts.grantAccess(owner, account_name, site_name, permissions)
  }
  getGrant(owner: string, account_name: string, site_name: string) {
    return this.parts.accounts.getGrant(owner, account_name, site_name)
  }
  revokeAccess(owner: string, account_name: string, site_name: string) {
    return this.parts.accounts.revokeAccess(owner, account_name, site_name)
  }
  listGrants(owner: string, account_name: string) {
    return this.parts.accounts.listGrants(owner, account_name)
  }
  incrementWithinLimit(key: string, limit: number, expiresAt: number) {
    return this.parts.accounts.incrementWithinLimit(key, limit, expiresAt)
  }

  createSite(site: SiteRecord) {
    return this.parts.sites.createSite(site)
  }
  getSite(site_name: string) {
    return this.parts.sites.getSite(site_name)
  }
  getSites(site_names: string[]) {
    return this.parts.sites.getSites(site_names)
  }
  findSiteByExternalUid(owner: string, external_uid: string) {
    return this.parts.sites.findSiteByExternalUid(owner, external_uid)
  }
  updateSite(owner: string, site_name: string, patch: SitePatch, expect?: SiteExpectation) {
    return this.parts.sites.updateSite(owner, site_name, patch, expect)
  }
  publishSite(owner: string, site_name: string, at: number, charge: boolean, expect?: SiteExpectation) {
    return this.parts.sites.publishSite(owner, site_name, at, charge, expect)
  }
  appendSiteActivity(owner: string, site_name: string, entry: SiteActivityEntry, max: number) {
    return this.parts.sites.appendSiteActivity(owner, site_name, entry, max)
  }
  deleteSite(owner: string, site_name: string, expect?: SiteExpectation) {
    return this.parts.sites.deleteSite(owner, site_name, expect)
  }
  listSites(owner: string, by: 'created' | 'modified', from: number, to: number) {
    return this.parts.sites.listSites(owner, by, from, to)
  }
  getBilling(owner: string) {
    return this.parts.sites.getBilling(owner)
  }

  recordVisit(visit: VisitEvent) {
    return this.parts.analytics.recordVisit(visit)
  }
  recordActivity(activity: ActivityEvent) {
    return this.parts.analytics.recordActivity(activity)
  }
  recordEvents(events: readonly RecordedEvent[], options: RecordOptions) {
    return this.parts.analytics.recordEvents(events, options)
  }
  siteTraffic(site_name: string, from: string, to: string, dimension?: Dimension) {
    return this.parts.analytics.siteTraffic(site_name, from, to, dimension)
  }
  siteActivities(site_name: string, from: string, to: string, dimension?: Dimension) {
    return this.parts.analytics.siteActivities(site_name, from, to, dimension)
  }
  mostTraffic(owner: string, from: string, to: string, limit: number) {
    return this.parts.analytics.mostTraffic(owner, from, to, limit)
  }

  issueSsoToken(digest: string, token: SsoRecord, now: number) {
    return this.parts.sso.issueSsoToken(digest, token, now)
  }
  redeemSsoToken(digest: string, now: number, session_digest: string, session_expires_at: number) {
    return this.parts.sso.redeemSsoToken(digest, now, session_digest, session_expires_at)
  }
  getSession(digest: string, now: number) {
    return this.parts.sso.getSession(digest, now)
  }
  deleteSession(digest: string) {
    return this.parts.sso.deleteSession(digest)
  }

  clearState() {
    return this.parts.state.clearState()
  }
  exportState() {
    return this.parts.state.exportState()
  }
  importState(dump: StateDump) {
    return this.parts.state.importState(dump)
  }

  abstract close(): Promise<void>
}
