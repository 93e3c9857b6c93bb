/**
 * Turns stored site records into the shapes the API returns. Keys a response
 * does not list, and fields not set, are absent (never null).
 */
import type { Site, SiteProperties, SiteSummary } from '../../../types/index.js'
import type { SiteRecord } from '../../store/contract/index.js'
import { formatDateTime } from '../shared/dates.js'

/** The property keys of a site, in the order responses list them. */
export const PROPERTY_KEYS = [
  'original_site_url',
  'preview_site_url',
  'site_domain',
  'auto_sync_cache_ttl',
  'site_vertical',
  'site_vertical_category',
  'site_business_info',
  'external_uid',
] as const satisfies readonly (keyof SiteProperties)[]

/** The properties of a record, without bookkeeping. */
export function propertiesOf(record: SiteProperties): SiteProperties {
  const props = {} as Record<string, unknown>
  for (const key of PROPERTY_KEYS) if (record[key] !== undefined) props[key] = record[key]
  return props as unknown as SiteProperties
}

/** Retrieve Site: every property, the dates, and the async creation state. */
export function toSite(record: SiteRecord): Site {
  // The properties copied in place rather than spread from propertiesOf(): one object less per read.
  const site = { site_name: record.site_name } as Site
  const fields = site as unknown as Record<string, unknown>
  for (const key of PROPERTY_KEYS) if (record[key] !== undefined) fields[key] = record[key]
  if (record.published_at !== undefined) site.last_published_date = formatDateTime(record.published_at)
  if (record.redirect_confirmed_at !== undefined) {
    site.last_confirmed_redirected_date = formatDateTime(record.redirect_confirmed_at)
  }
  if (record.build === 'pending') {
    site.status = 'UNDER_CONSTRUCTION'
    site.creation_status = 'PENDING'
  } else if (record.build !== 'built' && record.build !== 'delayed') {
    site.creation_status = record.build
  }
  return site
}

/** Retrieve Site by External ID and Retrieve Multiple Sites: no preview URL, no creation state. */
export function toSummary(record: SiteRecord): SiteSummary {
  const { preview_site_url: _preview, status: _status, creation_status: _creation, ...summary } = toSite(record)
  return summary
}
