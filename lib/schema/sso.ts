/**
 * JSON Schemas of single sign-on: the query of Get SSO Link and its answer.
 */
import type { FromSchema } from 'json-schema-to-ts'
import { siteNameSchema } from './sites.js'
import type { Named } from './typing.js'
import { compile } from './validate.js'
import { closedObject } from './closed-object.js'

export const ssoLinkQuerySchema = closedObject({
  site_name: siteNameSchema,
  target: {
    type: 'string',
    enum: [
      'DASHBOARD',
      'STATS',
      'EDITOR',
      'SITE_OVERVIEW',
      'SITE_SEO_OVERVIEW',
      'STORE_MANAGEMENT',
      'RESET_SITE',
      'RESET_BASIC',
      'SWITCH_TEMPLATE',
      'SWITCH_TEMPLATE_WITH_AI',
    ],
    description:
      "where the link lands; default DASHBOARD; STATS needs site_name; today's Duda targets of one site (EDITOR and the others) land where STATS does and need site_name too",
  },
})
/** Query of Get SSO Link. */
export type SsoLinkQuery = Named<FromSchema<typeof ssoLinkQuerySchema>>
/** Validates a Get SSO Link query; throws InvalidInput naming the parameter. */
export const validateSsoLinkQuery = compile<SsoLinkQuery>(ssoLinkQuerySchema, 'query')

/** The answer of Get SSO Link. */
export const ssoLinkSchema = closedObject(
  {
    url: {
      type: 'string',
      description: 'the single-use sign-in link: `<dashboard>/sso?token=<token>`, valid for 120 seconds',
    },
  },
  ['url'],
)
/** Answer of Get SSO Link. */
export type SsoLink = Named<FromSchema<typeof ssoLinkSchema>>

/** An absolute http(s) URL without query or fragment, or a path starting with one '/'. */
export function isDashboardUrl(url: unknown): url is string {
  return typeof url === 'string' && (/^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/i.test(url) || /^\/(?!\/)[^?#\s]*$/.test(url))
}
