/**
 * JSON Schemas of what the API answers: the resources and analytics results.
 * They drive the OpenAPI document (as components/schemas), the reference in
 * docs/api.md, and the test suite's check of every response it receives, so
 * they say exactly what a response may hold: no other keys, the same limits
 * as the request schemas, and absent keys rather than null.
 */
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
import { accountNameSchema, emailSchema, personNameSchema } from './accounts.js'

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
export const siteSummarySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['site_name', 'original_site_url', 'auto_sync_cache_ttl'],
  properties: siteProperties,
} as const

/** A site as Retrieve Site returns it. */
export const siteSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['site_name', 'original_site_url', 'auto_sync_cache_ttl'],
  properties: {
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
} as const

/** `{ site_name }`: Create Site's answer and an entry of the listings. */
export const siteNameRefSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['site_name'],
  properties: { site_name: siteNameSchema },
} as const

/** A sub-user account as Retrieve Account returns it (never its lang). */
export const accountSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['account_name'],
  properties: {
    account_name: accountNameSchema,
    first_name: personNameSchema,
    last_name: personNameSchema,
    email: emailSchema,
  },
} as const

const count = { type: 'integer', minimum: 0 } as const

/** Visitor figures of a period. */
export const trafficMetricsSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['UNIQUE_VISITORS', 'VISITS', 'PAGE_VIEWS'],
  properties: { UNIQUE_VISITORS: count, VISITS: count, PAGE_VIEWS: count },
} as const

/** Activity counts of a period. */
export const activityMetricsSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['CLICK_TO_CALLS', 'CLICK_TO_MAPS', 'CLICK_TO_EMAILS', 'FORM_SUBMITS'],
  properties: { CLICK_TO_CALLS: count, CLICK_TO_MAPS: count, CLICK_TO_EMAILS: count, FORM_SUBMITS: count },
} as const

/** The `system` dimension: browser name and major version, OS name. */
export const systemDimensionSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['browser', 'os'],
  properties: { browser: { type: 'string' }, os: { type: 'string' } },
} as const

/** The `geo` dimension. */
export const geoDimensionSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['country', 'region'],
  properties: { country: { type: 'string' }, region: { type: 'string' } },
} as const

/** One row of Get Site Analytics with a dimension. */
export const analyticsRowSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['data', 'dimension'],
  properties: {
    data: { oneOf: [trafficMetricsSchema, activityMetricsSchema] },
    dimension: { oneOf: [systemDimensionSchema, geoDimensionSchema] },
  },
} as const

/** Get Site Analytics: totals without a dimension, rows with one. */
export const siteAnalyticsSchema = {
  oneOf: [trafficMetricsSchema, activityMetricsSchema, { type: 'array', items: analyticsRowSchema }],
} as const

/** One row of Get Sites with Most Traffic. */
export const mostTrafficRowSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['site_name', 'data'],
  properties: { site_name: siteNameSchema, data: trafficMetricsSchema },
} as const

/** The error body every failure answers with. */
export const errorSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['error_code', 'message'],
  properties: {
    error_code: {
      type: 'string',
      enum: ERROR_CODE_NAMES,
      description: 'what went wrong, by name (see the error codes)',
    },
    message: { type: 'string', minLength: 1, description: 'what is wrong, naming the field or resource' },
  },
} as const
