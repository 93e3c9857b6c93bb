/**
 * The JSON Schema of a site event, the body of a webhook delivery of the
 * test double: today's Duda webhooks' shape (developer.duda.co, Webhooks).
 * It documents the deliveries in the OpenAPI document and docs/api.md, and
 * the public types SiteEvent, SiteEventType and PublishData are generated
 * from it (types/resources.generated.ts).
 */
import { SITE_EVENT_TYPES } from '../../types/index.js'
import { closedObject } from './closed-object.js'
import { externalUidSchema, siteNameSchema } from './sites.js'

/** The public type SiteEventType. */
export const siteEventTypeSchema = {
  enum: SITE_EVENT_TYPES,
  description: 'a site event type, as Duda names it: PUBLISH, UNPUBLISH, SITE_CREATED or SITE_DELETED',
} as const

/** The public type PublishData. */
export const publishDataSchema = {
  ...closedObject(
    {
      republish: { type: 'boolean', description: 'the site was already published (Duda: a republish)' },
      first_publish: { type: 'boolean', description: 'the site had never been published before' },
    },
    ['republish', 'first_publish'],
  ),
  description: 'What a PUBLISH event says about the publish; after an unpublish, both are false.',
} as const

/** The public type SiteEvent. */
export const siteEventSchema = {
  ...closedObject(
    {
      event_type: siteEventTypeSchema,
      event_timestamp: {
        type: 'integer',
        description: 'when the change happened, in epoch milliseconds, by the engine clock',
      },
      resource_type: { const: 'site', description: 'always site' },
      resource_data: {
        ...closedObject(
          {
            site_name: siteNameSchema,
            external_id: { ...externalUidSchema, description: "the site's external_uid, when it has one" },
          },
          ['site_name'],
        ),
        description: 'The site the event is about.',
      },
      source: {
        ...closedObject(
          {
            type: { const: 'API', description: 'always API: every change here comes through the API' },
            account_name: { type: 'string', description: 'the master account the change was made for' },
          },
          ['type', 'account_name'],
        ),
        description: 'Where the change came from.',
      },
      data: {
        anyOf: [publishDataSchema, { type: 'integer', description: 'the unpublish time, in epoch milliseconds' }],
        description: 'PUBLISH: the publish data; UNPUBLISH: the unpublish time in epoch milliseconds; absent otherwise',
      },
    },
    ['event_type', 'event_timestamp', 'resource_type', 'resource_data', 'source'],
  ),
  description: "A site event: the JSON body of a webhook delivery, in the shape of today's Duda webhooks.",
} as const
