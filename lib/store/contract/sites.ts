/**
 * The sites part of the Store contract: site records, their listings,
 * publishing with the first-publish charge, deletion, the activity log, and
 * the billing ledger the charge writes to. Conventions: see index.ts.
 */
import type { CreationFailure, SiteProperties } from '../../../types/index.js'
import type { Operations } from './shared.js'

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
  /** The site's activity log, oldest first, bounded (see {@link SitesStore.appendSiteActivity}). */
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

/** What {@link SitesStore.publishSite} did. */
export interface PublishOutcome {
  /** True when this publish was the site's first and charged the owner. */
  charged: boolean
}

/** The billing ledger of one master account. Times are epoch ms. */
export interface BillingRecord {
  /** One charge per first publish, oldest first. */
  charges: { site_name: string; at: number }[]
  /** One subscription per charged site incarnation, oldest first; Delete Site cancels it. */
  subscriptions: { site_name: string; status: 'active' | 'cancelled' }[]
}

/** Sites, their listings, publishing with the first-publish charge, deletion, and the billing ledger. */
export interface SitesStore {
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
}

/** The methods of {@link SitesStore}, as {@link Operations} lists them. */
export const SITES_OPERATIONS = {
  createSite: 'write',
  getSite: 'read',
  getSites: 'read',
  findSiteByExternalUid: 'read',
  updateSite: 'write',
  publishSite: 'write',
  deleteSite: 'write',
  appendSiteActivity: 'write',
  listSites: 'read',
  getBilling: 'read',
} as const satisfies Operations<SitesStore>
