/**
 * JSON Schemas of today's Duda API for accounts (docs/duda-api.md):
 * site permissions and the welcome and reset-password links (the analytics
 * date granularity is a parameter of schema/analytics.ts). Names and shapes follow `@dudadev/partner-api` 3.3.1's
 * types where Duda's docs say nothing more.
 */
import type { FromSchema } from 'json-schema-to-ts'
import { closedObject } from '../closed-object.js'
import type { Named } from '../typing.js'
import { siteNameSchema } from '../sites.js'
import { compile } from '../validate.js'

/** Every permission a grant can hold, in Duda's order (the client's `ClientPermissions`). */
export const PERMISSION_NAMES = [
  'STATS_TAB',
  'EDIT',
  'ADD_FLEX',
  'E_COMMERCE',
  'PUBLISH',
  'REPUBLISH',
  'DEV_MODE',
  'INSITE',
  'SEO',
  'BACKUPS',
  'CUSTOM_DOMAIN',
  'RESET',
  'BLOG',
  'PUSH_NOTIFICATIONS',
  'LIMITED_EDITING',
  'SITE_COMMENTS',
  'CONTENT_LIBRARY',
  'EDIT_CONNECTED_DATA',
  'MANAGE_CONNECTED_DATA',
  'USE_APP',
  'CLIENT_MANAGE_FREE_APPS',
  'AI_ASSISTANT',
  'MANAGE_DOMAIN',
  'CONTENT_LIBRARY_EXTERNAL_DATA_SYNC',
  'SEO_OVERVIEW',
  'BOOKING_ADMIN',
  'BOOKING_USER',
] as const

/** One permission name. */
export const permissionSchema = {
  type: 'string',
  enum: PERMISSION_NAMES,
  description: 'a permission of a sub-account on a site, as Duda names it',
} as const

/** A list of permissions: at least one, each at most once. */
export const permissionListSchema = {
  type: 'array',
  minItems: 1,
  maxItems: PERMISSION_NAMES.length,
  uniqueItems: true,
  items: permissionSchema,
  description: 'the permissions the account holds on the site, each at most once',
} as const

/** The body of Grant Site Access (today's path). */
export const grantSiteAccessSchema = closedObject({ permissions: permissionListSchema }, ['permissions'])
/** The body of Grant Site Access. */
export type GrantSiteAccessBody = Named<FromSchema<typeof grantSiteAccessSchema>>
/** Validates a Grant Site Access body; throws InvalidInput naming the field. */
export const validateGrantSiteAccess = compile<GrantSiteAccessBody>(grantSiteAccessSchema)

/** The answer of Get Site Permissions. */
export const sitePermissionsSchema = closedObject(
  {
    permissions: {
      type: 'array',
      items: permissionSchema,
      description:
        'the permissions of the grant, in Duda order; every one for a grant made by Grant Access; empty when the site is not granted',
    },
  },
  ['permissions'],
)
/** The answer of Get Site Permissions. */
export type SitePermissions = Named<FromSchema<typeof sitePermissionsSchema>>

/** The answer of List Permissions: every permission name. */
export const permissionNamesSchema = { type: 'array', items: permissionSchema } as const

/** One row of List Accessible Sites. */
export const accessibleSiteSchema = closedObject({ site_name: siteNameSchema }, ['site_name'])

/** The answer of the welcome and reset-password links. */
export const accountLinkSchema = closedObject(
  {
    reset_url: {
      type: 'string',
      description: 'a single-use sign-in link to the dashboard, `<dashboard>/sso?token=<token>`, valid for 7 days',
    },
  },
  ['reset_url'],
)
/** The answer of the welcome and reset-password links. */
export type AccountLink = FromSchema<typeof accountLinkSchema>

/** One permission name. */
export type PermissionName = (typeof PERMISSION_NAMES)[number]
