/**
 * JSON Schemas of today's Duda sites and site-reporting calls
 * (`/sites/multiscreen/...`, what `@dudadev/partner-api` sends). Shapes follow
 * the client's types and Duda's developer docs; docs/duda-api.md lists every
 * choice made where they are silent.
 */
import type { FromSchema } from 'json-schema-to-ts'
import { closedObject, patchObject } from '../closed-object.js'
import { dateInputSchema, dateTimeOutputSchema } from '../dates.js'
import {
  businessInfoSchema,
  domainSchema,
  externalUidSchema,
  httpUrlSchema,
  siteNameSchema,
  textSchema,
} from '../sites.js'
import type { NamedInput } from '../typing.js'
import { compile } from '../validate.js'

/** A count in a query: digits as text (over HTTP) or a non-negative integer (in process). */
const countSchema = {
  type: ['integer', 'string'],
  minimum: 0,
  maximum: 1000000,
  pattern: '^[0-9]{1,7}$',
  description: 'a whole number of at most 7 digits',
} as const

/** Duda's template id: a number, or its text. Recorded and echoed; no templates exist here. */
export const templateIdSchema = {
  anyOf: [
    { type: 'integer', minimum: 0 },
    { type: 'string', minLength: 1, maxLength: 45 },
  ],
  description: 'the id of a Duda template (recorded and echoed only)',
} as const

/** `site_data` of Duda's create: the site properties mobisite keeps. */
const dudaSiteDataSchema = closedObject({
  site_domain: domainSchema,
  external_uid: externalUidSchema,
  site_business_info: businessInfoSchema,
})

/** Body of `POST /sites/multiscreen/create`. */
export const dudaCreateSiteSchema = closedObject({
  template_id: templateIdSchema,
  template_alias: textSchema,
  url: httpUrlSchema,
  default_domain_prefix: siteNameSchema,
  site_data: dudaSiteDataSchema,
})
/** Body of Duda's create. */
export type DudaCreateSiteBody = NamedInput<typeof dudaCreateSiteSchema>
export const validateDudaCreateSite = compile<DudaCreateSiteBody>(dudaCreateSiteSchema)

/** Body of `POST /sites/multiscreen/update/{site_name}`: at least one field. */
export const dudaUpdateSiteSchema = patchObject({
  site_domain: domainSchema,
  external_uid: externalUidSchema,
  site_business_info: businessInfoSchema,
})
/** Body of Duda's update. */
export type DudaUpdateSiteBody = NamedInput<typeof dudaUpdateSiteSchema>
export const validateDudaUpdateSite = compile<DudaUpdateSiteBody>(dudaUpdateSiteSchema)

/** Body of `POST /sites/multiscreen/reset/{site_name}`. */
export const dudaResetSiteSchema = closedObject({
  template_id: templateIdSchema,
  template_alias: textSchema,
  site_data: closedObject({
    removeBizInfos: { type: 'boolean', description: 'also remove the business info' },
  }),
})
/** Body of Duda's reset. */
export type DudaResetSiteBody = NamedInput<typeof dudaResetSiteSchema>
export const validateDudaResetSite = compile<DudaResetSiteBody>(dudaResetSiteSchema)

/** Body of `POST /sites/multiscreen/duplicate/{site_name}`. */
export const dudaDuplicateSiteSchema = closedObject(
  {
    new_default_domain_prefix: siteNameSchema,
    new_external_uid: externalUidSchema,
  },
  ['new_default_domain_prefix'],
)
/** Body of Duda's duplicate. */
export type DudaDuplicateSiteBody = NamedInput<typeof dudaDuplicateSiteSchema>
export const validateDudaDuplicateSite = compile<DudaDuplicateSiteBody>(dudaDuplicateSiteSchema)

/** Query of `GET /sites/multiscreen`. */
export const dudaListQuerySchema = closedObject({
  offset: countSchema,
  limit: countSchema,
  sort: { type: 'string', enum: ['CREATION_DATE', 'LAST_PUBLISHED_DATE'], description: 'the order of the sites' },
  direction: { type: 'string', enum: ['asc', 'desc'], description: 'ascending or descending' },
})
/** Query of Duda's site list. */
export type DudaListQuery = NamedInput<typeof dudaListQuerySchema>
export const validateDudaListQuery = compile<DudaListQuery>(dudaListQuerySchema, 'query')

/** Query of `GET /sites/multiscreen/published` and `/unpublished`. */
export const dudaLastDaysQuerySchema = closedObject({ lastDays: countSchema })
/** Query of the published and unpublished listings. */
export type DudaLastDaysQuery = NamedInput<typeof dudaLastDaysQuerySchema>
export const validateDudaLastDaysQuery = compile<DudaLastDaysQuery>(dudaLastDaysQuerySchema, 'query')

/** The activity types mobisite records (a subset of the client's ActivityType). */
export const ACTIVITY_TYPES = ['site_created', 'site_published', 'site_unpublished', 'site_reset'] as const

/** Query of `GET /sites/multiscreen/{site_name}/activities`. */
export const dudaActivitiesQuerySchema = closedObject({
  offset: countSchema,
  limit: countSchema,
  from: dateInputSchema,
  to: dateInputSchema,
  activities: {
    type: 'string',
    maxLength: 200,
    pattern: '^[a-z_]+(,[a-z_]+)*$',
    description: 'activity types separated by commas',
  },
})
/** Query of the activity log. */
export type DudaActivitiesQuery = NamedInput<typeof dudaActivitiesQuerySchema>
export const validateDudaActivitiesQuery = compile<DudaActivitiesQuery>(dudaActivitiesQuerySchema, 'query')

/** A site as Duda's paths show it. */
export const dudaSiteSchema = {
  ...closedObject(
    {
      site_name: siteNameSchema,
      account_name: { type: 'string', description: 'the master account that owns the site' },
      external_uid: externalUidSchema,
      site_domain: domainSchema,
      site_business_info: businessInfoSchema,
      template_id: templateIdSchema,
      preview_site_url: httpUrlSchema,
      creation_date: dateTimeOutputSchema,
      modification_date: dateTimeOutputSchema,
      last_published_date: dateTimeOutputSchema,
      first_published_date: dateTimeOutputSchema,
      publish_status: {
        type: 'string',
        enum: ['PUBLISHED', 'UNPUBLISHED', 'NOT_PUBLISHED_YET'],
        description: 'published now, published once and taken off, or never published',
      },
    },
    ['site_name', 'account_name', 'creation_date', 'modification_date', 'publish_status'],
  ),
  description: "A site as Duda's `/sites/multiscreen` paths show it.",
} as const
/** A site on Duda's paths. */
export type DudaSite = FromSchema<typeof dudaSiteSchema>

/** Answer of `GET /sites/multiscreen`. */
export const dudaSiteListSchema = closedObject(
  {
    offset: { type: 'integer', minimum: 0 },
    limit: { type: 'integer', minimum: 1 },
    total_responses: { type: 'integer', minimum: 0, description: 'how many sites the caller has' },
    results: { type: 'array', items: dudaSiteSchema },
  },
  ['offset', 'limit', 'total_responses', 'results'],
)
/** Answer of Duda's site list. */
export type DudaSiteList = FromSchema<typeof dudaSiteListSchema>

/** Answer of the listings and of by-external-id: site names. */
export const siteNamesSchema = { type: 'array', items: siteNameSchema } as const

/** Answer of `POST /sites/multiscreen/create` and `/duplicate`. */
export const dudaSiteNameSchema = closedObject({ site_name: siteNameSchema }, ['site_name'])

/** Answer of the activity log. */
export const dudaActivitiesSchema = closedObject(
  {
    site_name: siteNameSchema,
    results: {
      type: 'array',
      items: closedObject(
        {
          date: dateTimeOutputSchema,
          activity: { type: 'string', enum: ACTIVITY_TYPES },
          source: { type: 'string', enum: ['API'] },
          account_name: { type: 'string' },
        },
        ['date', 'activity', 'source', 'account_name'],
      ),
    },
  },
  ['site_name', 'results'],
)
/** Answer of the activity log. */
export type DudaActivities = FromSchema<typeof dudaActivitiesSchema>
