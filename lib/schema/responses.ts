/**
 * JSON Schemas of what the API answers: the resources and analytics results.
 * They drive the OpenAPI document (as components/schemas), the reference in
 * docs/api.md, the public types (types/resources.generated.ts, whose TSDoc
 * is their descriptions) and the test suite's check of every response it
 * receives, so they say exactly what a response may hold: no other keys, the
 * same limits as the request schemas, and absent keys rather than null.
 */
import type { FromSchema } from 'json-schema-to-ts'
import type * as T from '../../types/index.js'
import { ERROR_CODE_NAMES } from '../errors.js'
import { dateTimeOutputSchema } from './dates.js'
import {
  type addressSchema,
  businessInfoSchema,
  domainSchema,
  externalUidSchema,
  httpUrlSchema,
  type reservationInfoSchema,
  siteNameSchema,
  textSchema,
  ttlSchema,
} from './sites.js'
import { accountFields, type langSchema } from './accounts.js'
import { closedObject } from './closed-object.js'
import type { publishDataSchema, siteEventSchema, siteEventTypeSchema } from './events.js'
import type { Same } from './typing.js'

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
  last_published_date: {
    ...dateTimeOutputSchema,
    description: 'a UTC date and time YYYY-MM-DDThh:mm:ss; present only while the site is published',
  },
  last_confirmed_redirected_date: {
    ...dateTimeOutputSchema,
    description: 'a UTC date and time YYYY-MM-DDThh:mm:ss; the last redirect to the site that was confirmed',
  },
} as const

/** The public type SiteSummary. */
export const siteSummarySchema = {
  ...closedObject(siteProperties, ['site_name', 'original_site_url', 'auto_sync_cache_ttl']),
  description: 'A site as Retrieve Site by External ID and Retrieve Multiple Sites return it.',
} as const

/** The public type CreationStatus. */
export const creationStatusSchema = {
  type: 'string',
  enum: ['PENDING', 'FAILED', 'FAILED_FRAMESET_UNSUPPORTED', 'FAILED_CONTENT_TOO_BIG'],
  description: 'the state of a create_now=async creation; present only while it is pending or after it failed',
} as const

/** The public type Site. */
export const siteSchema = {
  ...closedObject(
    {
      ...siteProperties,
      preview_site_url: httpUrlSchema,
      status: {
        type: 'string',
        enum: ['UNDER_CONSTRUCTION'],
        description: 'present only while a create_now=async creation is pending',
      },
      creation_status: creationStatusSchema,
    },
    ['site_name', 'original_site_url', 'auto_sync_cache_ttl'],
  ),
  description: 'A site as Retrieve Site returns it.',
} as const

/** The public type SiteNameRef. */
export const siteNameRefSchema = {
  ...closedObject({ site_name: siteNameSchema }, ['site_name']),
  description: "A `{ site_name }` entry of the listings and of Create Site's answer.",
} as const

/** The public type Account (never its lang). */
export const accountSchema = {
  ...closedObject(accountFields, ['account_name']),
  description: 'A sub-user account as Retrieve Account returns it.',
} as const

const count = { type: 'integer', minimum: 0 } as const

/** The public type TrafficMetrics. */
export const trafficMetricsSchema = {
  ...closedObject(
    {
      UNIQUE_VISITORS: { ...count, description: 'distinct visitor_ids in the period, not a sum of daily figures' },
      VISITS: count,
      PAGE_VIEWS: count,
    },
    ['UNIQUE_VISITORS', 'VISITS', 'PAGE_VIEWS'],
  ),
  description: 'Traffic metrics of Get Site Analytics and Get Sites with Most Traffic.',
} as const

/** The public type ActivityMetrics. */
export const activityMetricsSchema = {
  ...closedObject({ CLICK_TO_CALLS: count, CLICK_TO_MAPS: count, CLICK_TO_EMAILS: count, FORM_SUBMITS: count }, [
    'CLICK_TO_CALLS',
    'CLICK_TO_MAPS',
    'CLICK_TO_EMAILS',
    'FORM_SUBMITS',
  ]),
  description: 'Activity metrics of Get Site Analytics with `result=activities`.',
} as const

/** The public type SystemDimension. */
export const systemDimensionSchema = {
  ...closedObject(
    {
      browser: { type: 'string', description: 'the browser name and major version ("Chrome 120"), or "Unknown"' },
      os: { type: 'string', description: 'the operating system name, or "Unknown"' },
    },
    ['browser', 'os'],
  ),
  description: 'The `system` dimension: browser name with its major version, and OS name.',
} as const

/** The public type GeoDimension. */
export const geoDimensionSchema = {
  ...closedObject({ country: { type: 'string' }, region: { type: 'string' } }, ['country', 'region']),
  description: 'The `geo` dimension.',
} as const

/** The public type AnalyticsRow. */
export const analyticsRowSchema = {
  ...closedObject(
    {
      data: { oneOf: [trafficMetricsSchema, activityMetricsSchema] },
      dimension: { oneOf: [systemDimensionSchema, geoDimensionSchema] },
    },
    ['data', 'dimension'],
  ),
  description: 'One row of Get Site Analytics with a dimension.',
} as const

/** Get Site Analytics: totals without a dimension, rows with one. */
/** One bucket of Get Site Analytics with `dateGranularity` (today's Duda API). */
export const analyticsBucketSchema = {
  ...closedObject(
    {
      date: {
        type: 'string',
        pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
        description: 'the first day (YYYY-MM-DD) of the period the bucket covers',
      },
      data: {
        oneOf: [trafficMetricsSchema, activityMetricsSchema, { type: 'array', items: analyticsRowSchema }],
        description: "what Get Site Analytics answers for the bucket's days",
      },
    },
    ['date', 'data'],
  ),
  description: 'One bucket of Get Site Analytics with `dateGranularity`.',
} as const

export const siteAnalyticsSchema = {
  oneOf: [
    trafficMetricsSchema,
    activityMetricsSchema,
    { type: 'array', items: analyticsRowSchema },
    // At least one bucket, so an empty answer is only ever the rows of a dimension.
    { type: 'array', minItems: 1, items: analyticsBucketSchema },
  ],
} as const

/** The public type MostTrafficRow. */
export const mostTrafficRowSchema = {
  ...closedObject({ site_name: siteNameSchema, data: trafficMetricsSchema }, ['site_name', 'data']),
  description: 'One row of Get Sites with Most Traffic.',
} as const

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
 * A guard on scripts/resource-types.ts: each public type it generates from a
 * schema (types/resources.generated.ts) is exactly json-schema-to-ts's type
 * of that schema, the one each operation's answer is checked with
 * (lib/engine/api/operation-definition.ts). tsc fails here, naming the pair, if the two
 * readings of a schema ever differ. A new public type gets a line here too.
 */
export type ResourceTypesMatchSchemas = [
  Checked<Same<T.AutoSyncCacheTtl, FromSchema<typeof ttlSchema>>>,
  Checked<Same<T.CreationStatus, FromSchema<typeof creationStatusSchema>>>,
  Checked<Same<T.Address, FromSchema<typeof addressSchema>>>,
  Checked<Same<T.ReservationInfo, FromSchema<typeof reservationInfoSchema>>>,
  Checked<Same<T.Lang, FromSchema<typeof langSchema>>>,
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
  Checked<Same<T.SiteEventType, FromSchema<typeof siteEventTypeSchema>>>,
  Checked<Same<T.PublishData, FromSchema<typeof publishDataSchema>>>,
  Checked<Same<T.SiteEvent, FromSchema<typeof siteEventSchema>>>,
]
