/**
 * JSON Schemas of the Sites endpoints (SPEC.md §4.1, limits of §8). They are
 * the single source of request validation, of the request types below and of
 * the OpenAPI document.
 */
import type { FromSchema } from 'json-schema-to-ts'
import { compile } from './validate.js'

/** Free-text fields the spec gives no limit: a generous cap keeps bodies sane. */
const TEXT = { type: 'string', maxLength: 255 } as const

export const siteNameSchema = {
  type: 'string',
  minLength: 4,
  maxLength: 45,
  pattern: '^[A-Za-z0-9_-]+$',
  description: '4 to 45 letters, digits, "-" or "_"',
} as const

const url = {
  type: 'string',
  maxLength: 2048,
  format: 'http-url',
  description: 'an absolute http(s) URL',
} as const

const domain = {
  type: 'string',
  maxLength: 253,
  format: 'fqdn',
  description: 'a fully qualified domain name',
} as const

export const ttlSchema = { enum: ['VERY_SHORT', 'SHORT', 'LONG', 'VERY_LONG'] } as const

const externalUid = { type: 'string', minLength: 1, maxLength: 45 } as const

export const reservationInfoSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { restaurant_id: TEXT, location: TEXT, country: TEXT },
} as const

const reservationList = { type: 'array', minItems: 1, maxItems: 100, items: reservationInfoSchema } as const

export const addressSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    street: TEXT,
    city: TEXT,
    state: TEXT,
    country: TEXT,
    zip_code: { type: 'string', maxLength: 20, pattern: '^[0-9]+(?:-[0-9]+)?$', description: 'a numeric string' },
  },
} as const

export const businessInfoSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    business_name: TEXT,
    phone_number: { type: 'string', maxLength: 50 },
    address: addressSchema,
    reservation_info: reservationList,
  },
} as const

export const siteDataSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['original_site_url'],
  properties: {
    site_name: siteNameSchema,
    original_site_url: url,
    // SPEC.md: "If null, original_site_url is used."
    preview_site_url: { anyOf: [url, { type: 'null' }], description: 'must be an absolute http(s) URL of at most 2048 characters, or null' },
    site_domain: domain,
    auto_sync_cache_ttl: ttlSchema,
    site_vertical: TEXT,
    site_vertical_category: TEXT,
    site_business_info: businessInfoSchema,
    business_site_info: businessInfoSchema,
    reservation_info: reservationList,
    external_uid: externalUid,
  },
} as const

export const createSiteSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['site_data'],
  properties: {
    site_data: siteDataSchema,
    publish_now: { enum: [true, false, 'true', 'false'] },
    create_now: { enum: [true, false, 'true', 'false', 'async'] },
  },
} as const

export const updateSiteSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    site_domain: domain,
    original_site_url: url,
    auto_sync_cache_ttl: ttlSchema,
    external_uid: externalUid,
  },
} as const

export const recreateSiteSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { republish: { type: 'boolean' } },
} as const

export const publishQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: { test: { enum: [true, false, 'true', 'false'] } },
} as const

export const periodQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    from: { type: 'string', description: 'a UTC date YYYY-MM-DD or YYYY-MM-DDThh:mm:ss' },
    to: { type: 'string', description: 'a UTC date YYYY-MM-DD or YYYY-MM-DDThh:mm:ss' },
  },
} as const

export const getManySchema = {
  type: 'array',
  minItems: 1,
  maxItems: 50,
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['site_name'],
    properties: { site_name: { type: 'string' } },
  },
} as const

/** An empty query or body: only used where an endpoint takes none. */
export const emptyObjectSchema = { type: 'object', additionalProperties: false, properties: {} } as const

export type CreateSiteBody = FromSchema<typeof createSiteSchema>
export type SiteData = FromSchema<typeof siteDataSchema>
export type UpdateSiteBody = FromSchema<typeof updateSiteSchema>
export type RecreateSiteBody = FromSchema<typeof recreateSiteSchema>
export type PublishQuery = FromSchema<typeof publishQuerySchema>
export type PeriodQuery = FromSchema<typeof periodQuerySchema>
export type GetManyBody = FromSchema<typeof getManySchema>

export const validateCreateSite = compile<CreateSiteBody>(createSiteSchema)
export const validateUpdateSite = compile<UpdateSiteBody>(updateSiteSchema)
export const validateRecreateSite = compile<RecreateSiteBody>(recreateSiteSchema)
export const validatePublishQuery = compile<PublishQuery>(publishQuerySchema, 'query')
export const validatePeriodQuery = compile<PeriodQuery>(periodQuerySchema, 'query')
export const validateGetMany = compile<GetManyBody>(getManySchema)
