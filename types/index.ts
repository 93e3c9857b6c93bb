/**
 * The public resource types of mobisite, as docs/api.md describes them and
 * as the HTTP API returns them. Absent optional keys are absent, never `null`.
 * Each response type is written once, as its JSON Schema in lib/schema/:
 * types/resources.generated.ts is generated from the schemas (`npm run
 * schemas`) with their descriptions as TSDoc, and re-exported here beside the
 * types that are no schema's shape.
 */
import type { CreationStatus, Site } from './resources.generated.js'

export type * from './resources.generated.js'

/** A `creation_status` that ends an asynchronous creation with failure. */
export type CreationFailure = Exclude<CreationStatus, 'PENDING'>

/** The editable properties of a site: what Create Site takes and Recreate Site restores. */
export interface SiteProperties
  extends Omit<
    Site,
    'site_name' | 'last_published_date' | 'last_confirmed_redirected_date' | 'status' | 'creation_status'
  > {}

/** The kinds of activity, the one list every module reads. */
export const ACTIVITY_KINDS = ['click_to_call', 'click_to_map', 'click_to_email', 'form_submit'] as const

/** Kinds of activity an engine records (`recordActivity`): one of {@link ACTIVITY_KINDS}. */
export type ActivityKind = (typeof ACTIVITY_KINDS)[number]

/** What `engine.billing(user)` reports. */
export interface Billing {
  charges: { site_name: string; at: Date }[]
  subscriptions: { site_name: string; status: 'active' | 'cancelled' }[]
}

/** The site event types, as Duda names them: what a webhook of the test double receives. */
export const SITE_EVENT_TYPES = ['PUBLISH', 'UNPUBLISH', 'SITE_CREATED', 'SITE_DELETED'] as const
