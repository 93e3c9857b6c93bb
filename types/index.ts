/**
 * The public resource types of mobisite, as docs/api.md describes them and
 * as the HTTP API returns them. Absent optional keys are absent, never `null`.
 * Each response type is exactly the type of its JSON Schema (the one the
 * answers are documented and checked with): lib/schema/responses.ts makes
 * tsc fail when the two differ.
 */

/** How long the mobile site cache is kept (VERY_SHORT 30 min, SHORT 2 h, LONG 12 h, VERY_LONG 24 h). */
export type AutoSyncCacheTtl = 'VERY_SHORT' | 'SHORT' | 'LONG' | 'VERY_LONG'

/** A `creation_status` that ends an asynchronous creation with failure. */
export type CreationFailure = 'FAILED' | 'FAILED_FRAMESET_UNSUPPORTED' | 'FAILED_CONTENT_TOO_BIG'

/** `creation_status` of a site created with `create_now=async`. */
export type CreationStatus = 'PENDING' | CreationFailure

/** A postal address, used for the mobile map button. */
export interface Address {
  street?: string
  city?: string
  state?: string
  country?: string
  /** Numeric string. */
  zip_code?: string
}

/** One restaurant location of the reservation button. */
export interface ReservationInfo {
  restaurant_id?: string
  location?: string
  country?: string
}

/** Business details that populate the click-to-call, map and reservation buttons. */
export interface BusinessInfo {
  business_name?: string
  phone_number?: string
  address?: Address
  reservation_info?: ReservationInfo[]
}

/** The editable properties of a site: what Create Site takes and Recreate Site restores. */
export interface SiteProperties {
  original_site_url: string
  preview_site_url?: string
  site_domain?: string
  auto_sync_cache_ttl: AutoSyncCacheTtl
  site_vertical?: string
  site_vertical_category?: string
  site_business_info?: BusinessInfo
  external_uid?: string
}

/** A site as Retrieve Site returns it. */
export interface Site extends SiteProperties {
  site_name: string
  /** `YYYY-MM-DDThh:mm:ss` UTC; present only while the site is published. */
  last_published_date?: string
  /** `YYYY-MM-DDThh:mm:ss` UTC; the last redirect confirmed for this site. */
  last_confirmed_redirected_date?: string
  /** Present only while a `create_now=async` creation is pending. */
  status?: 'UNDER_CONSTRUCTION'
  /** Present only for a `create_now=async` creation that is pending or failed. */
  creation_status?: CreationStatus
}

/** A site as Retrieve Site by External ID and Retrieve Multiple Sites return it. */
export type SiteSummary = Omit<Site, 'preview_site_url' | 'status' | 'creation_status'>

/** A `{ site_name }` entry of the listings and of Create Site's response. */
export interface SiteNameRef {
  site_name: string
}

/** Locale of a sub-user account. */
export type Lang = 'en' | 'es' | 'ja'

/** A sub-user account as Retrieve Account returns it. */
export interface Account {
  account_name: string
  first_name?: string
  last_name?: string
  email?: string
}

/** The kinds of activity, the one list every module reads. */
export const ACTIVITY_KINDS = ['click_to_call', 'click_to_map', 'click_to_email', 'form_submit'] as const

/** Kinds of activity an engine records (`recordActivity`): one of {@link ACTIVITY_KINDS}. */
export type ActivityKind = (typeof ACTIVITY_KINDS)[number]

/** Traffic metrics of Get Site Analytics and Get Sites with Most Traffic. */
export interface TrafficMetrics {
  UNIQUE_VISITORS: number
  VISITS: number
  PAGE_VIEWS: number
}

/** Activity metrics of Get Site Analytics with `result=activities`. */
export interface ActivityMetrics {
  CLICK_TO_CALLS: number
  CLICK_TO_MAPS: number
  CLICK_TO_EMAILS: number
  FORM_SUBMITS: number
}

/** The `system` dimension: browser name with its major version, and OS name. */
export interface SystemDimension {
  browser: string
  os: string
}

/** The `geo` dimension. */
export interface GeoDimension {
  country: string
  region: string
}

/** One row of Get Site Analytics with a dimension. */
export interface AnalyticsRow<M = TrafficMetrics | ActivityMetrics> {
  data: M
  dimension: SystemDimension | GeoDimension
}

/** One row of Get Sites with Most Traffic. */
export interface MostTrafficRow {
  site_name: string
  data: TrafficMetrics
}

/** What `engine.billing(user)` reports. */
export interface Billing {
  charges: { site_name: string; at: Date }[]
  subscriptions: { site_name: string; status: 'active' | 'cancelled' }[]
}

export * from './events.js'
