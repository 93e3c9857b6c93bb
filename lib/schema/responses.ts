/**
 * JSON Schemas of what the API answers: the resources and analytics results.
 * They drive the OpenAPI document (as components/schemas), the reference in
 * docs/api.md, and the test suite's check of every response it receives, so
 * they say exactly what a response may hold: no other keys, the same limits
 * as the request schemas, and absent keys rather than null.
 */
import type { FromSchema } from 'json-schema-to-ts'
import type * as T from '../../types/index.js'
import { ERROR_CODE_NAMES } from '../errors.js'
import { dateTimeOutputSchema } from './dates.js'
import {
  businessInfoSchema,
  domainSchema,
  externalUidSchema,
  httpUrlSchema,
  siteNameSchema,
  textSchema,
  ttlSchema,
} from './sites.js'
import { accountFields } from './accounts.js'
import { closedObject } from './closed-object.js'
import type { Same } from './same-type.js'

/** The properties of a site as every site response shows them. */
const siteProperties = {
  site_name: siteNameSchema,
  original_site_url: httpUrlSchema,
  site_domain: domainSchema,
  auto_sync_cache_ttl: ttlSchema,
  site_vertical: textSchema,
  site_vertical_category: textSchema,
  site_business_info: businessInfoSchema,
  external_uid: externalUidSchema,
  last_published_date: { ...dateTimeOutputSchema, description: 'present only while the site is published' },
  last_confirmed_redirected_date: {
    ...dateTimeOutputSchema,
    description: 'the last redirect to the site that was confirmed',
  },
} as const

/** A site as Retrieve Site by External ID and Retrieve Multiple Sites return it. */
export const siteSummarySchema = closedObject(siteProperties, ['site_name', 'original_site_url', 'auto_sync_cache_ttl'])

/** A site as Retrieve Site returns it. */
export const siteSchema = closedObject(
  {
    ...siteProperties,
    preview_site_url: httpUrlSchema,
    status: {
      type: 'string',
      enum: ['UNDER_CONSTRUCTION'],
      description: 'present only while a create_now=async creation is pending',
    },
    creation_status: {
      type: 'string',
      enum: ['PENDING', 'FAILED', 'FAILED_FRAMESET_UNSUPPORTED', 'FAILED_CONTENT_TOO_BIG'],
      description: 'present only for a create_now=async creation that is pending or failed',
    },
  },
  ['site_name', 'original_site_url', 'auto_sync_cache_ttl'],
)

/** `{ site_name }`: Create Site's answer and an entry of the listings. */
export const siteNameRefSchema = closedObject({ site_name: siteNameSchema }, ['site_name'])

/** A sub-user account as Retrieve Account returns it (never its lang). */
export const accountSchema = closedObject(accountFields, ['account_name'])

const count = { type: 'integer', minimum: 0 } as const

/** Visitor figures of a period. */
export const trafficMetricsSchema = closedObject({ UNIQUE_VISITORS: count, VISITS: count, PAGE_VIEWS: count }, [
  'UNIQUE_VISITORS',
  'VISITS',
  'PAGE_VIEWS',
])

/** Activity counts of a period. */
export const activityMetricsSchema = closedObject(
  { CLICK_TO_CALLS: count, CLICK_TO_MAPS: count, CLICK_TO_EMAILS: count, FORM_SUBMITS: count },
  ['CLICK_TO_CALLS', 'CLICK_TO_MAPS', 'CLICK_TO_EMAILS', 'FORM_SUBMITS'],
)

/** The `system` dimension: browser name and major version, OS name. */
export const systemDimensionSchema = closedObject({ browser: { type: 'string' }, os: { type: 'string' } }, [
  'browser',
  'os',
])

/** The `geo` dimension. */
export const geoDimensionSchema = closedObject({ country: { type: 'string' }, region: { type: 'string' } }, [
  'country',
  'region',
])

/** One row of Get Site Analytics with a dimension. */
export const analyticsRowSchema = closedObject(
  {
    data: { oneOf: [trafficMetricsSchema, activityMetricsSchema] },
    dimension: { oneOf: [systemDimensionSchema, geoDimensionSchema] },
  },
  ['data', 'dimension'],
)

/** Get Site Analytics: totals without a dimension, rows with one. */
export const siteAnalyticsSchema = {
  oneOf: [trafficMetricsSchema, activityMetricsSchema, { type: 'array', items: analyticsRowSchema }],
} as const

/** One row of Get Sites with Most Traffic. */
export const mostTrafficRowSchema = closedObject({ site_name: siteNameSchema, data: trafficMetricsSchema }, [
  'site_name',
  'data',
])

/** The error body every failure answers with. */
export const errorSchema = closedObject(
  {
    error_code: {
      type: 'string',
      enum: ERROR_CODE_NAMES,
      description: 'what went wrong, by name (see the error codes)',
    },
    message: { type: 'string', minLength: 1, description: 'what is wrong, naming the field or resource' },
  },
  ['error_code', 'message'],
)

/** Compiles only when `T` is `true`. */
type Checked<T extends true> = T

/**
 * The public resource types (types/index.ts, where their TSDoc is) are
 * exactly the types of these schemas: tsc fails here, naming the pair, when
 * one side changes without the other. (Each operation's answer is checked
 * against its response schema too, in lib/engine/operation.ts.)
 */
export type ResourceTypesMatchSchemas = [
  Checked<Same<T.Site, FromSchema<typeof siteSchema>>>,
  Checked<Same<T.SiteSummary, FromSchema<typeof siteSummarySchema>>>,
  Checked<Same<T.SiteNameRef, FromSchema<typeof siteNameRefSchema>>>,
  Checked<Same<T.Account, FromSchema<typeof accountSchema>>>,
  Checked<Same<T.TrafficMetrics, FromSchema<typeof trafficMetricsSchema>>>,
  Checked<Same<T.ActivityMetrics, FromSchema<typeof activityMetricsSchema>>>,
  Checked<Same<T.SystemDimension, FromSchema<typeof systemDimensionSchema>>>,
  Checked<Same<T.GeoDimension, FromSchema<typeof geoDimensionSchema>>>,
  Checked<Same<T.AnalyticsRow, FromSchema<typeof analyticsRowSchema>>>,
  Checked<Same<T.MostTrafficRow, FromSchema<typeof mostTrafficRowSchema>>>,
  Checked<Same<T.BusinessInfo, FromSchema<typeof businessInfoSchema>>>,
]
