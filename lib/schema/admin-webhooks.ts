/**
 * JSON Schemas of the test-double calls beyond the journal and faults:
 * webhooks and their deliveries, the rate limit, and the journal's count and
 * near misses. What they take and what they answer, for validation, types,
 * the OpenAPI document and docs/api.md.
 */
import type { FromSchema } from 'json-schema-to-ts'
import { journalAnswerSchema } from './admin-answers.js'
import { journalQuerySchema } from './admin.js'
import { closedObject } from './closed-object.js'
import { siteEventSchema, siteEventTypeSchema } from './events.js'
import { httpUrlSchema } from './sites.js'
import { compile } from './validate.js'

/** Most retries of one delivery. */
export const MAX_WEBHOOK_RETRIES = 10

export const webhookSchema = closedObject(
  {
    url: httpUrlSchema,
    events: {
      type: 'array',
      minItems: 1,
      maxItems: 16,
      items: siteEventTypeSchema,
      description: 'the event types to receive; absent: all of them',
    },
    secret: {
      type: 'string',
      minLength: 1,
      maxLength: 256,
      description: 'signs each delivery (x-duda-signature); absent: unsigned',
    },
    retries: {
      type: 'integer',
      minimum: 0,
      maximum: MAX_WEBHOOK_RETRIES,
      description: 'attempts after a failed one; default 3, as Duda',
    },
    backoff_ms: {
      type: 'integer',
      minimum: 0,
      maximum: 600_000,
      description: 'wait before the first retry, doubling for each next one; default 1000 (Duda: 30000)',
    },
  },
  ['url'],
)

export const rateLimitSchema = closedObject(
  {
    perSecond: {
      type: 'integer',
      minimum: 1,
      maximum: 10_000,
      description: 'calls each master account may make in any one second',
    },
  },
  ['perSecond'],
)

/** The journal's filters without `limit`: what `requests/count` counts. */
export const countQuerySchema = closedObject({
  method: journalQuerySchema.properties.method,
  route: journalQuerySchema.properties.route,
  status: journalQuerySchema.properties.status,
  user: journalQuerySchema.properties.user,
})

/** A new webhook's id. */
export const webhookIdSchema = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } as const

/** The webhooks registered, oldest first; a secret is never shown, only whether there is one. */
export const webhooksAnswerSchema = {
  type: 'object',
  required: ['webhooks'],
  properties: {
    webhooks: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'url', 'signed', 'retries', 'backoff_ms'],
        properties: {
          id: { type: 'string' },
          url: { type: 'string' },
          events: webhookSchema.properties.events,
          signed: { type: 'boolean', description: 'whether deliveries are signed (a secret was given)' },
          retries: { type: 'integer' },
          backoff_ms: { type: 'integer' },
        },
      },
    },
  },
} as const

/** The newest attempts of each webhook, oldest first, and how many deliveries are not finished or were dropped. */
export const deliveriesAnswerSchema = {
  type: 'object',
  required: ['pending', 'dropped', 'deliveries'],
  properties: {
    pending: { type: 'integer', description: 'deliveries queued, in flight or waiting to retry' },
    dropped: {
      type: 'integer',
      description:
        'deliveries dropped unsent (1,000 already pending, or their webhook deleted) since the log was last emptied; counted, not listed',
    },
    deliveries: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'delivery', 'webhook_id', 'url', 'attempt', 'event', 'status', 'duration_ms', 'outcome'],
        properties: {
          id: { type: 'integer' },
          delivery: { type: 'integer', description: 'the same for every attempt at one event to one webhook' },
          webhook_id: { type: 'string' },
          url: { type: 'string' },
          attempt: { type: 'integer', description: '1 for the first try' },
          event: siteEventSchema,
          status: { type: 'integer', description: 'the receiver’s HTTP status; 0 when there was no answer' },
          duration_ms: { type: 'number' },
          error: { type: 'string' },
          outcome: {
            enum: ['delivered', 'retrying', 'failed'],
            description:
              'delivered (2xx), retrying (another attempt follows), failed (no attempt left, or a destination refused)',
          },
        },
      },
    },
  },
} as const

/** The rate limit in force. */
export const rateLimitAnswerSchema = {
  type: 'object',
  required: ['on'],
  properties: { on: { type: 'boolean' }, perSecond: { type: 'integer' } },
} as const

/** How many journal entries match. */
export const countAnswerSchema = {
  type: 'object',
  required: ['count'],
  properties: { count: { type: 'integer' } },
} as const

/** API calls that matched no route or failed validation, with the nearest route and why. */
export const unmatchedAnswerSchema = {
  type: 'object',
  required: ['unmatched'],
  properties: {
    unmatched: {
      type: 'array',
      items: {
        type: 'object',
        required: ['request', 'reason'],
        properties: {
          request: journalAnswerSchema.properties.requests.items,
          nearest: {
            type: 'object',
            required: ['method', 'route'],
            properties: { method: { type: 'string' }, route: { type: 'string' } },
          },
          reason: { type: 'string' },
        },
      },
    },
  },
} as const

export type WebhookBody = FromSchema<typeof webhookSchema>
export type RateLimitBody = FromSchema<typeof rateLimitSchema>
export type CountQuery = FromSchema<typeof countQuerySchema>

export const validateWebhook = compile<WebhookBody>(webhookSchema)
export const validateRateLimit = compile<RateLimitBody>(rateLimitSchema)
export const validateCountQuery = compile<CountQuery>(countQuerySchema, 'query')
