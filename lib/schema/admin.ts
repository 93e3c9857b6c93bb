/**
 * JSON Schemas of the test-double controls (`/__admin` and `server.controls`):
 * one source for their validation, their types and their part of the
 * OpenAPI document (tag "Test-double controls").
 */
import { ACTIVITY_KINDS } from '../../types/index.js'
import type { FromSchema } from 'json-schema-to-ts'
import { accountNameSchema, createAccountSchema } from './accounts.js'
import { siteDataSchema, siteNameSchema } from './sites.js'
import { compile } from './validate.js'

/** "Dates in" (`YYYY-MM-DD`, `YYYY-MM-DDThh:mm:ss`) or a full ISO time with milliseconds and Z, as snapshots write. */
export const adminDateSchema = {
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}:\\d{2}(\\.\\d{3}Z)?)?$',
  description: 'a UTC date YYYY-MM-DD, YYYY-MM-DDThh:mm:ss or YYYY-MM-DDThh:mm:ss.sssZ',
} as const

const count = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const
const text = (max: number) => ({ type: 'string', minLength: 1, maxLength: max }) as const
const KIND = { enum: ACTIVITY_KINDS } as const
const BUILD = {
  enum: ['built', 'delayed', 'pending', 'FAILED', 'FAILED_FRAMESET_UNSUPPORTED', 'FAILED_CONTENT_TOO_BIG'],
} as const

export const clockSetSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['now'],
  properties: { now: adminDateSchema },
} as const

export const clockAdvanceSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['seconds'],
  properties: {
    seconds: { type: 'number', minimum: 0, maximum: 3.2e11, description: 'seconds to move forward, 0 or more' },
  },
} as const

export const builderSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['outcome'],
  properties: {
    outcome: { enum: ['ok', 'FAILED', 'FAILED_FRAMESET_UNSUPPORTED', 'FAILED_CONTENT_TOO_BIG'] },
    delay_ms: { type: 'integer', minimum: 0, maximum: 600_000 },
    site_name: siteNameSchema,
    times: { type: 'integer', minimum: 1, maximum: 1_000_000 },
  },
} as const

export const faultSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
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
    error: {
      type: 'object',
      additionalProperties: false,
      required: ['status', 'error_code'],
      properties: {
        status: { type: 'integer', minimum: 400, maximum: 599 },
        error_code: {
          type: 'string',
          pattern: '^[A-Za-z][A-Za-z0-9_]{0,63}$',
          description: 'a name of letters, digits and _',
        },
        message: { type: 'string', maxLength: 1000 },
      },
    },
    drop: { const: true },
  },
} as const

export const journalQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    method: { type: 'string', pattern: '^[A-Za-z]{1,16}$', description: 'an HTTP method name' },
    route: { type: 'string', maxLength: 200 },
    status: { type: 'string', pattern: '^[1-5]\\d\\d$', description: 'an HTTP status, 100 to 599' },
    user: { type: 'string', maxLength: 200 },
    limit: { type: 'string', pattern: '^[1-9]\\d{0,5}$', description: 'a whole number from 1 to 999999' },
  },
} as const

export const visitSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['site_name', 'visitor_id'],
  properties: {
    site_name: siteNameSchema,
    at: adminDateSchema,
    visitor_id: text(256),
    user_agent: { type: 'string', maxLength: 16384 },
    country: { type: 'string', maxLength: 100 },
    region: { type: 'string', maxLength: 100 },
    page_views: { type: 'integer', minimum: 1, maximum: 10_000 },
  },
} as const

export const activitySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['site_name', 'kind'],
  properties: {
    site_name: siteNameSchema,
    at: adminDateSchema,
    kind: KIND,
    user_agent: { type: 'string', maxLength: 16384 },
    country: { type: 'string', maxLength: 100 },
    region: { type: 'string', maxLength: 100 },
  },
} as const

export const seedMasterSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['user'],
  properties: {
    user: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      pattern: '^[^:]+$',
      description: 'a non-empty name without ":"',
    },
    password: text(1000),
    password_hash: text(4000),
    partner: { type: 'boolean' },
  },
} as const

const siteProps = siteDataSchema.properties
/** Create Site's site_data fields, flat, plus the owner and the state a snapshot carries. */
export const seedSiteSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['owner', 'site_name', 'original_site_url'],
  properties: {
    ...siteProps,
    owner: text(200),
    published: { type: 'boolean' },
    created_at: adminDateSchema,
    modified_at: adminDateSchema,
    published_at: adminDateSchema,
    first_published_at: adminDateSchema,
    redirect_confirmed_at: adminDateSchema,
    cache_reset_at: adminDateSchema,
    build: BUILD,
    publish_when_built: { type: 'boolean' },
    initial: siteDataSchema,
  },
} as const

export const seedAccountSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['owner', 'account_name'],
  properties: {
    ...createAccountSchema.properties,
    owner: text(200),
    created_at: adminDateSchema,
    /** Which incarnation of the name this account is (dashboard sessions die with it); snapshots carry it. */
    incarnation: text(200),
  },
} as const

export const seedGrantSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['owner', 'account_name', 'site_name'],
  properties: { owner: text(200), account_name: accountNameSchema, site_name: siteNameSchema },
} as const

export const seedLedgerSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['owner'],
  properties: {
    owner: text(200),
    charges: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['site_name', 'at'],
        properties: { site_name: siteNameSchema, at: adminDateSchema },
      },
    },
    subscriptions: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['site_name', 'status'],
        properties: { site_name: siteNameSchema, status: { enum: ['active', 'cancelled'] } },
      },
    },
  },
} as const

const activityCounts = {
  type: 'object',
  additionalProperties: false,
  required: ['click_to_call', 'click_to_map', 'click_to_email', 'form_submit'],
  properties: { click_to_call: count, click_to_map: count, click_to_email: count, form_submit: count },
} as const
const visitorIds = { type: 'array', items: text(256) } as const
const sketch = { type: 'string', maxLength: 100_000, pattern: '^[A-Za-z0-9+/]*={0,2}$', description: 'base64' } as const
const cell = {
  type: 'object',
  additionalProperties: false,
  required: ['key', 'visits', 'page_views', 'activities'],
  properties: {
    key: { type: 'array', minItems: 2, maxItems: 2, items: { type: 'string', maxLength: 16384 } },
    visits: count,
    page_views: count,
    activities: activityCounts,
    visitors: visitorIds,
    visitors_sketch: sketch,
  },
} as const

/** One site-day of recorded analytics, as a snapshot gives it. */
export const seedAnalyticsSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['site_name', 'day', 'visits', 'page_views', 'activities', 'system', 'geo'],
  properties: {
    site_name: siteNameSchema,
    day: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'a UTC day YYYY-MM-DD' },
    visits: count,
    page_views: count,
    activities: activityCounts,
    visitors: visitorIds,
    visitors_sketch: sketch,
    system: { type: 'array', items: cell },
    geo: { type: 'array', items: cell },
  },
} as const

/** The entry schema of each seed section. */
export const seedSections = {
  masters: seedMasterSchema,
  sites: seedSiteSchema,
  accounts: seedAccountSchema,
  grants: seedGrantSchema,
  visits: visitSchema,
  activities: activitySchema,
  billing: seedLedgerSchema,
  analytics: seedAnalyticsSchema,
} as const

const entries = { type: 'array', maxItems: 1_000_000, items: { type: 'object' } } as const

/**
 * The seed body's outline. Entries are checked one by one against
 * {@link seedSections} (so every bad entry is reported, not the first).
 */
export const seedSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    masters: entries,
    sites: entries,
    accounts: entries,
    grants: entries,
    visits: entries,
    activities: entries,
    billing: entries,
    analytics: entries,
  },
} as const

export type ClockSetBody = FromSchema<typeof clockSetSchema>
export type ClockAdvanceBody = FromSchema<typeof clockAdvanceSchema>
export type BuilderBody = FromSchema<typeof builderSchema>
export type FaultBody = FromSchema<typeof faultSchema>
export type JournalQuery = FromSchema<typeof journalQuerySchema>
export type VisitBody = FromSchema<typeof visitSchema>
export type ActivityBody = FromSchema<typeof activitySchema>
export type SeedMaster = FromSchema<typeof seedMasterSchema>
export type SeedSite = FromSchema<typeof seedSiteSchema>
export type SeedAccount = FromSchema<typeof seedAccountSchema>
export type SeedGrant = FromSchema<typeof seedGrantSchema>
export type SeedLedger = FromSchema<typeof seedLedgerSchema>
export type SeedAnalyticsDay = FromSchema<typeof seedAnalyticsSchema>

export const validateClockSet = compile<ClockSetBody>(clockSetSchema)
export const validateClockAdvance = compile<ClockAdvanceBody>(clockAdvanceSchema)
export const validateBuilder = compile<BuilderBody>(builderSchema)
export const validateFault = compile<FaultBody>(faultSchema)
export const validateJournalQuery = compile<JournalQuery>(journalQuerySchema, 'query')
export const validateSeedShape = compile<Record<string, unknown[] | undefined>>(seedSchema)
/** Entry validators, by seed section; their messages are prefixed with the entry's place. */
export const seedEntryValidators = {
  masters: compile<SeedMaster>(seedMasterSchema, 'entry'),
  sites: compile<SeedSite>(seedSiteSchema, 'entry'),
  accounts: compile<SeedAccount>(seedAccountSchema, 'entry'),
  grants: compile<SeedGrant>(seedGrantSchema, 'entry'),
  visits: compile<VisitBody>(visitSchema, 'entry'),
  activities: compile<ActivityBody>(activitySchema, 'entry'),
  billing: compile<SeedLedger>(seedLedgerSchema, 'entry'),
  analytics: compile<SeedAnalyticsDay>(seedAnalyticsSchema, 'entry'),
} as const

const clockAnswerSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['now', 'frozen'],
  properties: { now: { type: 'string', description: 'engine time, YYYY-MM-DDThh:mm:ss' }, frozen: { type: 'boolean' } },
} as const

const healthAnswerSchema = {
  type: 'object',
  required: ['status', 'store'],
  properties: {
    status: { enum: ['ok', 'unavailable'] },
    store: { type: 'string', description: 'memory, redis, postgres or the store class' },
  },
} as const

/** The seed body with each section's entry schema in place: what seed accepts and snapshot answers. */
export const seedBodySchema = {
  type: 'object',
  additionalProperties: false,
  properties: Object.fromEntries(
    Object.entries(seedSections).map(([name, entry]) => [name, { type: 'array', maxItems: 1_000_000, items: entry }]),
  ),
} as const

const billingAnswerSchema = {
  type: 'object',
  required: ['charges', 'subscriptions'],
  properties: {
    charges: seedLedgerSchema.properties.charges,
    subscriptions: seedLedgerSchema.properties.subscriptions,
  },
} as const

const journalAnswerSchema = {
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
          duration_ms: { type: 'number' },
          body: {},
        },
      },
    },
  },
} as const

const faultIdSchema = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } as const
const faultsAnswerSchema = {
  type: 'object',
  required: ['faults'],
  properties: {
    faults: {
      type: 'array',
      items: { ...faultSchema, required: ['id'], properties: { id: { type: 'string' }, ...faultSchema.properties } },
    },
  },
} as const

/** One admin call, for the OpenAPI document and docs/api.md (tag "Test-double controls"). */
export interface AdminOperation {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE'
  /** Below the admin mount (`/__admin` on the standalone server), OpenAPI style. */
  path: string
  operationId: string
  summary: string
  /** The schema the call's JSON body is validated with. */
  body?: object
  /** The schema the call's query is validated with. */
  query?: object
  success: 200 | 201 | 204
  /** The JSON answer of a 200 or 201. */
  answer?: object
  /** Error codes beyond those every admin call can answer with. */
  errors?: readonly ('NotFound' | 'ServiceUnavailable')[]
}

const events = (entry: object) => ({ anyOf: [entry, { type: 'array', maxItems: 1_000_000, items: entry }] })

/** Every admin call, in the router's order. */
export const ADMIN_OPERATIONS: readonly AdminOperation[] = [
  {
    method: 'GET',
    path: '/health',
    operationId: 'adminHealth',
    summary: 'Whether the store answers',
    success: 200,
    answer: healthAnswerSchema,
  },
  {
    method: 'POST',
    path: '/reset',
    operationId: 'adminReset',
    summary: 'Empty the state; keep the start-up masters',
    success: 204,
  },
  {
    method: 'POST',
    path: '/seed',
    operationId: 'adminSeed',
    summary: 'Add fixtures, all or nothing',
    body: seedBodySchema,
    success: 204,
  },
  {
    method: 'GET',
    path: '/snapshot',
    operationId: 'adminSnapshot',
    summary: 'The whole state as a seed body',
    success: 200,
    answer: seedBodySchema,
  },
  {
    method: 'GET',
    path: '/clock',
    operationId: 'adminGetClock',
    summary: 'Read the clock',
    success: 200,
    answer: clockAnswerSchema,
  },
  {
    method: 'PUT',
    path: '/clock',
    operationId: 'adminSetClock',
    summary: 'Freeze the clock at a time',
    body: clockSetSchema,
    success: 200,
    answer: clockAnswerSchema,
  },
  {
    method: 'DELETE',
    path: '/clock',
    operationId: 'adminResetClock',
    summary: 'Back to real time',
    success: 200,
    answer: clockAnswerSchema,
  },
  {
    method: 'POST',
    path: '/clock/advance',
    operationId: 'adminAdvanceClock',
    summary: 'Move the clock forward',
    body: clockAdvanceSchema,
    success: 200,
    answer: clockAnswerSchema,
  },
  {
    method: 'PUT',
    path: '/builder',
    operationId: 'adminSetBuilder',
    summary: 'Make following builds fail or take time',
    body: builderSchema,
    success: 204,
  },
  {
    method: 'DELETE',
    path: '/builder',
    operationId: 'adminResetBuilder',
    summary: 'Back to the default builder',
    success: 204,
  },
  {
    method: 'POST',
    path: '/builds/settle',
    operationId: 'adminSettleBuilds',
    summary: 'Wait for every async build in flight',
    success: 204,
  },
  {
    method: 'POST',
    path: '/visits',
    operationId: 'adminRecordVisits',
    summary: 'Record visits',
    body: events(visitSchema),
    success: 204,
  },
  {
    method: 'POST',
    path: '/activities',
    operationId: 'adminRecordActivities',
    summary: 'Record activities',
    body: events(activitySchema),
    success: 204,
  },
  {
    method: 'GET',
    path: '/billing/{user}',
    operationId: 'adminBilling',
    summary: 'A master account’s charges and subscriptions',
    success: 200,
    answer: billingAnswerSchema,
  },
  {
    method: 'GET',
    path: '/requests',
    operationId: 'adminRequests',
    summary: 'The journal of API calls, newest last',
    query: journalQuerySchema,
    success: 200,
    answer: journalAnswerSchema,
  },
  {
    method: 'DELETE',
    path: '/requests',
    operationId: 'adminClearRequests',
    summary: 'Empty the journal',
    success: 204,
  },
  {
    method: 'POST',
    path: '/faults',
    operationId: 'adminAddFault',
    summary: 'Inject a fault into matching API calls',
    body: faultSchema,
    success: 201,
    answer: faultIdSchema,
  },
  {
    method: 'GET',
    path: '/faults',
    operationId: 'adminFaults',
    summary: 'The faults in force',
    success: 200,
    answer: faultsAnswerSchema,
  },
  { method: 'DELETE', path: '/faults', operationId: 'adminClearFaults', summary: 'Delete every fault', success: 204 },
  {
    method: 'DELETE',
    path: '/faults/{id}',
    operationId: 'adminDeleteFault',
    summary: 'Delete one fault',
    success: 204,
    errors: ['NotFound'],
  },
]
