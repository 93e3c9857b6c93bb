/**
 * JSON Schemas of the Sites endpoints (docs/api.md, Sites). They are
 * the single source of request validation, of the request types below and of
 * the OpenAPI document.
 */
import { dateInputSchema } from './dates.js'
import { compile } from './validate.js'
import { closedObject, patchObject } from './closed-object.js'
import type { InputOf, NamedInput } from './typing.js'

/** Free-text fields the spec gives no limit: a generous cap keeps bodies sane. */
export const textSchema = { type: 'string', maxLength: 255 } as const
const TEXT = textSchema

export const siteNameSchema = {
  type: 'string',
  minLength: 4,
  maxLength: 45,
  pattern: '^[A-Za-z0-9_-]+$',
  description: '4 to 45 letters, digits, "-" or "_"',
} as const

/** An absolute http(s) URL. */
export const httpUrlSchema = {
  type: 'string',
  maxLength: 2048,
  format: 'http-url',
  description: 'an absolute http(s) URL',
} as const

/** A fully qualified domain name. */
export const domainSchema = {
  type: 'string',
  maxLength: 253,
  format: 'fqdn',
  description: 'a fully qualified domain name',
} as const

/** The public type AutoSyncCacheTtl. */
export const ttlSchema = {
  type: 'string',
  enum: ['VERY_SHORT', 'SHORT', 'LONG', 'VERY_LONG'],
  description: "how long the mobile site's cache is kept: VERY_SHORT 30 min, SHORT 2 h, LONG 12 h, VERY_LONG 24 h",
} as const

/** The caller's own identifier of a site. */
export const externalUidSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 45,
  description: "the caller's own identifier of the site",
} as const
const externalUid = externalUidSchema

/** The public type ReservationInfo. */
export const reservationInfoSchema = {
  ...closedObject({ restaurant_id: TEXT, location: TEXT, country: TEXT }),
  description: 'One restaurant location of the reservation button.',
} as const

const reservationList = { type: 'array', minItems: 1, maxItems: 100, items: reservationInfoSchema } as const

/** The public type Address. */
export const addressSchema = {
  ...closedObject({
    street: TEXT,
    city: TEXT,
    state: TEXT,
    country: TEXT,
    zip_code: { type: 'string', maxLength: 20, pattern: '^[0-9]+(?:-[0-9]+)?$', description: 'a numeric string' },
  }),
  description: 'A postal address, used for the mobile map button.',
} as const

/** The public type BusinessInfo. */
export const businessInfoSchema = {
  ...closedObject({
    business_name: TEXT,
    phone_number: { type: 'string', maxLength: 50 },
    address: addressSchema,
    reservation_info: reservationList,
  }),
  description: 'Business details that populate the click-to-call, map and reservation buttons.',
} as const

export const siteDataSchema = closedObject(
  {
    site_name: siteNameSchema,
    original_site_url: httpUrlSchema,
    // null means "the same as original_site_url".
    preview_site_url: {
      anyOf: [httpUrlSchema, { type: 'null' }],
      description: 'must be an absolute http(s) URL of at most 2048 characters, or null',
    },
    site_domain: domainSchema,
    auto_sync_cache_ttl: { ...ttlSchema, default: 'SHORT' },
    site_vertical: TEXT,
    site_vertical_category: TEXT,
    site_business_info: businessInfoSchema,
    business_site_info: businessInfoSchema,
    reservation_info: reservationList,
    external_uid: externalUid,
  },
  ['original_site_url'],
)
/** The `site_data` of Create Site. */
export type SiteData = NamedInput<typeof siteDataSchema>

export const createSiteSchema = closedObject(
  {
    site_data: siteDataSchema,
    publish_now: {
      type: ['boolean', 'string'],
      enum: [true, false, 'true', 'false'],
      default: false,
      description: 'publish the site once it is built',
    },
    create_now: {
      type: ['boolean', 'string'],
      enum: [true, false, 'true', 'false', 'async'],
      default: true,
      description:
        'true: build before answering; false: build on the first visit; async: answer at once, build in the background',
    },
  },
  ['site_data'],
)
/** The body of Create Site. */
export type CreateSiteBody = NamedInput<typeof createSiteSchema>
export const validateCreateSite = compile<CreateSiteBody>(createSiteSchema)

export const updateSiteSchema = patchObject({
  site_domain: domainSchema,
  original_site_url: httpUrlSchema,
  auto_sync_cache_ttl: ttlSchema,
  external_uid: externalUid,
})
/** The body of Update Site: at least one field. */
export type UpdateSiteBody = NamedInput<typeof updateSiteSchema>
export const validateUpdateSite = compile<UpdateSiteBody>(updateSiteSchema)

export const recreateSiteSchema = closedObject({
  republish: { type: 'boolean', default: false, description: 'publish the site again after recreating it' },
})
/** The optional body of Recreate Site. */
export type RecreateSiteBody = NamedInput<typeof recreateSiteSchema>
export const validateRecreateSite = compile<RecreateSiteBody>(recreateSiteSchema)

export const publishQuerySchema = closedObject({
  test: {
    type: ['boolean', 'string'],
    enum: [true, false, 'true', 'false'],
    default: false,
    description:
      'true: a test publish, which never charges and is not a first publish (the first publish without it charges once and opens the subscription)',
  },
})
/** The query of Publish Site. */
export type PublishQuery = NamedInput<typeof publishQuerySchema>
export const validatePublishQuery = compile<PublishQuery>(publishQuerySchema, 'query')

export const periodQuerySchema = closedObject({
  from: dateInputSchema,
  to: dateInputSchema,
})
/** The query of the created and modified listings. */
export type PeriodQuery = NamedInput<typeof periodQuerySchema>
export const validatePeriodQuery = compile<PeriodQuery>(periodQuerySchema, 'query')

export const getManySchema = {
  type: 'array',
  minItems: 1,
  maxItems: 50,
  items: closedObject({ site_name: { type: 'string' } }, ['site_name']),
} as const
/** The body of Retrieve Multiple Sites: 1 to 50 `{ site_name }`. */
export type GetManyBody = InputOf<typeof getManySchema>
export const validateGetMany = compile<GetManyBody>(getManySchema)

/** An empty query or body: only used where an endpoint takes none. */
export const emptyObjectSchema = { type: 'object', additionalProperties: false, properties: {} } as const

// Named (a mapped type) so that editors show MasterApi's parameters by these names instead of their expansion.
