/**
 * Site events as a webhook receives them: the shape of today's Duda webhooks
 * (event type, `resource_data` with `site_name` and `external_id`, `source`,
 * `event_timestamp` in milliseconds). docs/testing.md says what each field holds.
 */

/** The event types emitted, named as Duda names them. */
export const SITE_EVENT_TYPES = ['PUBLISH', 'UNPUBLISH', 'SITE_CREATED', 'SITE_DELETED'] as const

/** One of {@link SITE_EVENT_TYPES}. */
export type SiteEventType = (typeof SITE_EVENT_TYPES)[number]

/** What a PUBLISH event says about the publish. */
export interface PublishData {
  /** The site was already published (Duda: a republish). */
  republish: boolean
  /** The site had never been published before. */
  first_publish: boolean
}

/** A site event: the JSON body of a webhook delivery. */
export interface SiteEvent {
  event_type: SiteEventType
  /** Engine time of the change, epoch milliseconds. */
  event_timestamp: number
  resource_type: 'site'
  /** The site: its name, and its external_uid (as `external_id`) when it has one. */
  resource_data: { site_name: string; external_id?: string }
  /** Where the change came from: always the API here, and the master account it was made for. */
  source: { type: 'API'; account_name: string }
  /** PUBLISH: {@link PublishData}; UNPUBLISH: the unpublish time in epoch ms; absent otherwise. */
  data?: PublishData | number
}
