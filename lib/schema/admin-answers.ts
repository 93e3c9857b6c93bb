/**
 * JSON Schemas of what the test-double controls answer, for their part of
 * the OpenAPI document and docs/api.md (the test suite checks every answer
 * it receives against the document).
 */
import { faultSchema } from './admin.js'
import { seedLedgerSchema } from './seed.js'
import { closedObject } from './closed-object.js'

/** Every clock call's answer. */
export const clockAnswerSchema = closedObject(
  { now: { type: 'string', description: 'engine time, YYYY-MM-DDThh:mm:ss' }, frozen: { type: 'boolean' } },
  ['now', 'frozen'],
)

/** `GET /__admin/health`, 200 or 503. */
export const healthAnswerSchema = {
  type: 'object',
  required: ['status', 'store'],
  properties: {
    status: { enum: ['ok', 'unavailable'] },
    store: { type: 'string', description: 'memory, redis, postgres or the store class' },
  },
} as const

/** A master account's charges and subscriptions. */
export const billingAnswerSchema = {
  type: 'object',
  required: ['charges', 'subscriptions'],
  properties: {
    charges: seedLedgerSchema.properties.charges,
    subscriptions: seedLedgerSchema.properties.subscriptions,
  },
} as const

/** The journal of API calls, newest last. */
export const journalAnswerSchema = {
  type: 'object',
  required: ['requests'],
  properties: {
    requests: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'at', 'method', 'path', 'status', 'duration_ms'],
        properties: {
          id: { type: 'integer' },
          at: { type: 'string' },
          method: { type: 'string' },
          path: { type: 'string' },
          route: { type: 'string' },
          query: { type: 'object' },
          status: { type: 'integer', description: '0 for a dropped connection' },
          user: { type: 'string' },
          error_code: { type: 'string' },
          error_message: { type: 'string' },
          duration_ms: { type: 'number' },
          body: { description: 'the parsed JSON body, when within 64 KiB and 64 levels of nesting' },
          body_summary: {
            type: 'object',
            description: 'in place of body, for a body past those bounds',
            required: ['type', 'reason'],
            properties: {
              type: { enum: ['object', 'array', 'string', 'number', 'boolean', 'null'] },
              bytes: { type: 'integer', description: 'its Content-Length, when the request gave one' },
              reason: { enum: ['too deep', 'too large'] },
            },
          },
        },
      },
    },
  },
} as const

/** A new fault's id. */
export const faultIdSchema = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } as const
/** The faults in force, each with its remaining `times`. */
export const faultsAnswerSchema = {
  type: 'object',
  required: ['faults'],
  properties: {
    faults: {
      type: 'array',
      items: { ...faultSchema, required: ['id'], properties: { id: { type: 'string' }, ...faultSchema.properties } },
    },
  },
} as const
