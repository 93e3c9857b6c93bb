/**
 * JSON Schemas of what the test-double controls take (`/__admin` and
 * `server.controls`): one source for their validation, their types and their
 * part of the OpenAPI document (tag "Test-double controls"). The seed and
 * snapshot body is in seed.ts, the answers in admin-answers.ts.
 */
import type { FromSchema } from 'json-schema-to-ts'
import { ACTIVITY_KINDS } from '../../types/index.js'
import { siteNameSchema } from './sites.js'
import { compile } from './validate.js'
import { closedObject } from './closed-object.js'

/** "Dates in" (`YYYY-MM-DD`, `YYYY-MM-DDThh:mm:ss`) or a full ISO time with milliseconds and Z, as snapshots write. */
export const adminDateSchema = {
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2}([Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:\\d{2})?)?$',
  description:
    'a date YYYY-MM-DD or YYYY-MM-DDThh:mm:ss (UTC), or an RFC 3339 time with fractional seconds and an offset (2025-03-01T08:30:00Z, 2025-03-01T09:30:00.5+01:00)',
} as const

/** A non-empty string of at most `max` characters. */
export const text = <const N extends number>(max: N) => ({ type: 'string', minLength: 1, maxLength: max }) as const

export const clockSetSchema = closedObject({ now: adminDateSchema }, ['now'])
export type ClockSetBody = FromSchema<typeof clockSetSchema>
export const validateClockSet = compile<ClockSetBody>(clockSetSchema)

export const clockAdvanceSchema = closedObject(
  {
    seconds: { type: 'number', minimum: 0, maximum: 3.2e11, description: 'seconds to move forward, 0 or more' },
  },
  ['seconds'],
)
export type ClockAdvanceBody = FromSchema<typeof clockAdvanceSchema>
export const validateClockAdvance = compile<ClockAdvanceBody>(clockAdvanceSchema)

export const builderSchema = closedObject(
  {
    outcome: { enum: ['ok', 'FAILED', 'FAILED_FRAMESET_UNSUPPORTED', 'FAILED_CONTENT_TOO_BIG'] },
    delay_ms: { type: 'integer', minimum: 0, maximum: 600_000 },
    site_name: siteNameSchema,
    times: { type: 'integer', minimum: 1, maximum: 1_000_000 },
  },
  ['outcome'],
)
export type BuilderBody = FromSchema<typeof builderSchema>
export const validateBuilder = compile<BuilderBody>(builderSchema)

export const faultSchema = closedObject({
  method: { type: 'string', pattern: '^[A-Za-z]{1,16}$', description: 'an HTTP method name (any letter case)' },
  route: {
    type: 'string',
    minLength: 1,
    maxLength: 200,
    description: 'an OpenAPI path of the API, e.g. /sites/{site_name}',
  },
  site_name: siteNameSchema,
  times: { type: 'integer', minimum: 1, maximum: 1_000_000 },
  probability: { type: 'number', minimum: 0, maximum: 1 },
  latency_ms: { type: 'integer', minimum: 0, maximum: 60_000 },
  error: closedObject(
    {
      status: { type: 'integer', minimum: 400, maximum: 599 },
      error_code: {
        type: 'string',
        pattern: '^[A-Za-z][A-Za-z0-9_]{0,63}$',
        description: 'a name of letters, digits and _',
      },
      message: { type: 'string', maxLength: 1000 },
    },
    ['status', 'error_code'],
  ),
  drop: { const: true },
})
export type FaultBody = FromSchema<typeof faultSchema>
export const validateFault = compile<FaultBody>(faultSchema)

export const journalQuerySchema = closedObject({
  method: { type: 'string', pattern: '^[A-Za-z]{1,16}$', description: 'an HTTP method name' },
  route: { type: 'string', maxLength: 200 },
  status: { type: 'string', pattern: '^[1-5]\\d\\d$', description: 'an HTTP status, 100 to 599' },
  user: { type: 'string', maxLength: 200 },
  limit: { type: 'string', pattern: '^[1-9]\\d{0,5}$', description: 'a whole number from 1 to 999999' },
})
export type JournalQuery = FromSchema<typeof journalQuerySchema>
export const validateJournalQuery = compile<JournalQuery>(journalQuerySchema, 'query')

/** What a recorded visit or activity may say about its visitor, for the system and geo dimensions. */
const eventContext = {
  user_agent: { type: 'string', maxLength: 16384 },
  country: { type: 'string', maxLength: 100 },
  region: { type: 'string', maxLength: 100 },
} as const

export const visitSchema = closedObject(
  {
    site_name: siteNameSchema,
    at: adminDateSchema,
    visitor_id: text(256),
    ...eventContext,
    page_views: { type: 'integer', minimum: 1, maximum: 10_000 },
  },
  ['site_name', 'visitor_id'],
)
export type VisitBody = FromSchema<typeof visitSchema>

export const activitySchema = closedObject(
  {
    site_name: siteNameSchema,
    at: adminDateSchema,
    kind: { enum: ACTIVITY_KINDS },
    ...eventContext,
  },
  ['site_name', 'kind'],
)
export type ActivityBody = FromSchema<typeof activitySchema>

/** One recorded event, or an array of them (all or nothing). */
export const events = <const E extends object>(entry: E) =>
  ({ anyOf: [entry, { type: 'array', maxItems: 1_000_000, items: entry }] }) as const
