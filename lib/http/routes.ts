/**
 * The endpoints of the API as data: method, path, which engine operation
 * serves it, what it takes and what it answers. The router, the OpenAPI
 * document (lib/http/openapi.ts) and the reference in docs/api.md all read
 * this table, so an endpoint is described exactly once.
 *
 * How a route declares itself (a router of another feature does the same):
 * - `operationId` (unique, camelCase), `tag` (its group) and `summary`;
 *   `description` for anything a caller must know that the schemas don't say.
 * - `input` and `schema`: the JSON Schema its body or query is validated with.
 * - `success`: 'json' (200) with `response`, the JSON Schema of the body, or
 *   'empty' (204). Use the schemas of lib/schema/responses.ts for resources:
 *   the document turns every schema it knows into a `$ref`.
 * - `errors`: the error codes it answers besides those every authenticated
 *   request can get (InvalidInput, Unauthorized, UnsupportedMediaType,
 *   InternalError, ServiceUnavailable, and AccessForbidden for POST and
 *   DELETE). Each code's status comes from the registry in lib/errors.ts, so
 *   the document lists every status the route can return.
 * - `public: true` for a route served without credentials.
 * The test suite checks every response it receives against the document, so
 * a route that answers something it does not declare fails the tests.
 */
import type { MasterApi } from '../engine/types.js'
import type { ErrorCode } from '../errors.js'
import {
  type CreateAccountBody,
  createAccountSchema,
  type UpdateAccountBody,
  updateAccountSchema,
} from '../schema/accounts.js'
import {
  type MostTrafficQuery,
  mostTrafficQuerySchema,
  type SiteAnalyticsQuery,
  siteAnalyticsQuerySchema,
} from '../schema/analytics.js'
import {
  accountSchema,
  mostTrafficRowSchema,
  siteAnalyticsSchema,
  siteNameRefSchema,
  siteSchema,
  siteSummarySchema,
} from '../schema/responses.js'
import {
  type CreateSiteBody,
  createSiteSchema,
  type GetManyBody,
  getManySchema,
  type PeriodQuery,
  periodQuerySchema,
  type PublishQuery,
  publishQuerySchema,
  type RecreateSiteBody,
  recreateSiteSchema,
  type UpdateSiteBody,
  updateSiteSchema,
} from '../schema/sites.js'
import { type SsoLinkQuery, ssoLinkQuerySchema, ssoLinkSchema } from '../schema/sso.js'

/** What an endpoint reads besides its path parameters. */
export type Input = 'body' | 'optional-body' | 'query' | 'none'

/** What a route may need to know about the request besides its input. */
export interface RouteRequest {
  /** Where the sub-account dashboard is served for this request (no trailing slash). */
  readonly dashboardUrl: string
}

/** How an endpoint is described: everything but how it runs. */
export interface RouteDoc {
  method: 'GET' | 'POST' | 'DELETE'
  /** Express path syntax, relative to where the router is mounted. */
  path: string
  summary: string
  /** Unique name of the operation: the OpenAPI operationId and the docs anchor. */
  operationId?: string
  /** The group the operation is listed under. */
  tag?: string
  /** What a caller must know beyond the schemas. */
  description?: string
  input: Input
  /** The JSON Schema of the body or query the engine validates it with. */
  schema?: object
  /** 'json': 200 with the result; 'empty': 204 with no content. */
  success: 'json' | 'empty'
  /** The JSON Schema of the 200 body. */
  response?: object
  /** Error codes answered besides those of every authenticated request. */
  errors?: readonly ErrorCode[]
  /** Served without credentials. */
  public?: boolean
}

/** One endpoint. Static paths come before parameterised ones that could shadow them. */
export interface Route extends RouteDoc {
  /**
   * Runs the operation; `params` are the decoded path parameters in order.
   * `input` is the request's body or query as received: the route casts it to
   * the operation's input type because the engine validates it against the
   * same schema before reading it.
   */
  run: (api: MasterApi, params: string[], input: unknown, request: RouteRequest) => Promise<unknown>
}

/** Answered by a route that names a site or an account the caller may not see. */
const notExist: readonly ErrorCode[] = ['ResourceNotExist']
/** Every Accounts endpoint is for partner master accounts only. */
const partner: readonly ErrorCode[] = ['AccessForbidden', 'ResourceNotExist']
const analytics: readonly ErrorCode[] = ['DailyLimitExceeded']

const json = 'json'
const empty = 'empty'

export const ROUTES: readonly Route[] = [
  {
    method: 'POST',
    path: '/sites/create',
    operationId: 'createSite',
    tag: 'Sites',
    summary: 'Create Site',
    input: 'body',
    schema: createSiteSchema,
    success: json,
    response: siteNameRefSchema,
    errors: ['ResourceAlreadyExist'],
    run: (api, _, body) => api.createSite(body as CreateSiteBody),
  },
  {
    method: 'GET',
    path: '/sites/created',
    operationId: 'listSitesCreated',
    tag: 'Sites',
    summary: 'Retrieve Sites created in a period',
    input: 'query',
    schema: periodQuerySchema,
    success: json,
    response: { type: 'array', items: siteNameRefSchema },
    run: (api, _, query) => api.sitesCreated(query as PeriodQuery),
  },
  {
    method: 'GET',
    path: '/sites/modified',
    operationId: 'listSitesModified',
    tag: 'Sites',
    summary: 'Retrieve Sites modified in a period',
    input: 'query',
    schema: periodQuerySchema,
    success: json,
    response: { type: 'array', items: siteNameRefSchema },
    run: (api, _, query) => api.sitesModified(query as PeriodQuery),
  },
  {
    method: 'POST',
    path: '/sites/get-many',
    operationId: 'getManySites',
    tag: 'Sites',
    summary: 'Retrieve Multiple Sites',
    input: 'body',
    schema: getManySchema,
    success: json,
    response: { type: 'array', items: siteSummarySchema },
    errors: notExist,
    run: (api, _, body) => api.getManySites(body as GetManyBody),
  },
  {
    method: 'GET',
    path: '/sites/byexternal/:external_uid',
    operationId: 'getSiteByExternalUid',
    tag: 'Sites',
    summary: 'Retrieve Site by External ID',
    input: 'none',
    success: json,
    response: siteSummarySchema,
    errors: notExist,
    run: (api, [uid]) => api.getSiteByExternalUid(uid!),
  },
  {
    method: 'GET',
    path: '/sites/:site_name',
    operationId: 'getSite',
    tag: 'Sites',
    summary: 'Retrieve Site',
    input: 'none',
    success: json,
    response: siteSchema,
    errors: notExist,
    run: (api, [name]) => api.getSite(name!),
  },
  {
    method: 'DELETE',
    path: '/sites/:site_name',
    operationId: 'deleteSite',
    tag: 'Sites',
    summary: 'Delete Site',
    input: 'none',
    success: empty,
    errors: notExist,
    run: (api, [name]) => api.deleteSite(name!),
  },
  {
    method: 'POST',
    path: '/sites/update/:site_name',
    operationId: 'updateSite',
    tag: 'Sites',
    summary: 'Update Site',
    input: 'body',
    schema: updateSiteSchema,
    success: empty,
    errors: notExist,
    run: (api, [name], body) => api.updateSite(name!, body as UpdateSiteBody),
  },
  {
    method: 'POST',
    path: '/sites/recreate/:site_name',
    operationId: 'recreateSite',
    tag: 'Sites',
    summary: 'Recreate Site',
    input: 'optional-body',
    schema: recreateSiteSchema,
    success: empty,
    errors: notExist,
    run: (api, [name], body) => api.recreateSite(name!, body as RecreateSiteBody),
  },
  {
    method: 'POST',
    path: '/sites/publish/:site_name',
    operationId: 'publishSite',
    tag: 'Sites',
    summary: 'Publish Site',
    input: 'query',
    schema: publishQuerySchema,
    success: empty,
    errors: notExist,
    run: (api, [name], query) => api.publishSite(name!, query as PublishQuery),
  },
  {
    method: 'POST',
    path: '/sites/unpublish/:site_name',
    operationId: 'unpublishSite',
    tag: 'Sites',
    summary: 'Unpublish Site',
    input: 'none',
    success: empty,
    errors: notExist,
    run: (api, [name]) => api.unpublishSite(name!),
  },
  {
    method: 'POST',
    path: '/sites/resetcache/:site_name',
    operationId: 'resetSiteCache',
    tag: 'Sites',
    summary: 'Reset Runtime Cache',
    input: 'none',
    success: empty,
    errors: notExist,
    run: (api, [name]) => api.resetCache(name!),
  },
  {
    method: 'POST',
    path: '/accounts/create',
    operationId: 'createAccount',
    tag: 'Accounts',
    summary: 'Create Account',
    input: 'body',
    schema: createAccountSchema,
    success: empty,
    errors: ['AccessForbidden', 'ResourceAlreadyExist'],
    run: (api, _, body) => api.createAccount(body as CreateAccountBody),
  },
  {
    method: 'GET',
    path: '/accounts/sso/:account_name/link',
    operationId: 'getSsoLink',
    tag: 'Accounts',
    summary: 'Get SSO Link',
    description:
      "A single-use link that signs the sub-account into its dashboard (`target=DASHBOARD`) or onto one granted site's statistics (`target=STATS` with `site_name`). The token in it carries 256 random bits, expires 120 s after issue on the engine clock and opens a 12-hour session once. The link points at apiRouter's `dashboardUrl` (default: this request's origin + `/dashboard`). A `site_name` that is the caller's but not granted to the account is InvalidInput. See docs/dashboard.md.",
    input: 'query',
    schema: ssoLinkQuerySchema,
    success: json,
    response: ssoLinkSchema,
    errors: partner,
    run: (api, [name], query, request) => api.ssoLink(name!, query as SsoLinkQuery, request.dashboardUrl),
  },
  {
    method: 'GET',
    path: '/accounts/:account_name',
    operationId: 'getAccount',
    tag: 'Accounts',
    summary: 'Retrieve Account',
    input: 'none',
    success: json,
    response: accountSchema,
    errors: partner,
    run: (api, [name]) => api.getAccount(name!),
  },
  {
    method: 'DELETE',
    path: '/account/:account_name',
    operationId: 'deleteAccount',
    tag: 'Accounts',
    summary: 'Delete Account',
    input: 'none',
    success: empty,
    errors: partner,
    run: (api, [name]) => api.deleteAccount(name!),
  },
  {
    method: 'POST',
    path: '/accounts/update/:account_name',
    operationId: 'updateAccount',
    tag: 'Accounts',
    summary: 'Update Account',
    input: 'body',
    schema: updateAccountSchema,
    success: empty,
    errors: partner,
    run: (api, [name], body) => api.updateAccount(name!, body as UpdateAccountBody),
  },
  {
    method: 'POST',
    path: '/accounts/grant-access/:account_name/sites/:site_name',
    operationId: 'grantAccess',
    tag: 'Accounts',
    summary: 'Grant Account access to a Site',
    input: 'none',
    success: empty,
    errors: partner,
    run: (api, [account, site]) => api.grantAccess(account!, site!),
  },
  {
    method: 'POST',
    path: '/accounts/revoke-access/:account_name/sites/:site_name',
    operationId: 'revokeAccess',
    tag: 'Accounts',
    summary: 'Revoke Account access to a Site',
    input: 'none',
    success: empty,
    errors: partner,
    run: (api, [account, site]) => api.revokeAccess(account!, site!),
  },
  {
    method: 'GET',
    path: '/analytics/sites/withmosttraffic',
    operationId: 'getSitesWithMostTraffic',
    tag: 'Analytics',
    summary: 'Get Sites with Most Traffic',
    input: 'query',
    schema: mostTrafficQuerySchema,
    success: json,
    response: { type: 'array', maxItems: 10, items: mostTrafficRowSchema },
    errors: analytics,
    run: (api, _, query) => api.sitesWithMostTraffic(query as MostTrafficQuery),
  },
  {
    method: 'GET',
    path: '/analytics/site/:site_name',
    operationId: 'getSiteAnalytics',
    tag: 'Analytics',
    summary: 'Get Site Analytics',
    input: 'query',
    schema: siteAnalyticsQuerySchema,
    success: json,
    response: siteAnalyticsSchema,
    errors: ['DailyLimitExceeded', 'ResourceNotExist'],
    run: (api, [name], query) => api.siteAnalytics(name!, query as SiteAnalyticsQuery),
  },
]

/** GET /agents is served from the engine itself, not on behalf of a caller. */
export const AGENTS_PATH = '/agents'

/** Where the router serves the OpenAPI document, without credentials. */
export const OPENAPI_PATH = '/openapi.json'

/** The endpoints the router serves itself rather than through MasterApi, described like the others. */
export const SERVICE_ROUTES: readonly RouteDoc[] = [
  {
    method: 'GET',
    path: AGENTS_PATH,
    operationId: 'getSupportedAgents',
    tag: 'Agents',
    summary: 'Retrieve Supported Agents',
    description: 'The regular expression source (case-insensitive) matching the User-Agents sent to the mobile site.',
    input: 'none',
    success: 'json',
    response: { type: 'string', description: 'a regular expression source' },
  },
  {
    method: 'GET',
    path: OPENAPI_PATH,
    operationId: 'getOpenApiDocument',
    tag: 'Meta',
    summary: 'The OpenAPI document',
    description: 'The OpenAPI 3.1 description of this API, as JSON. Served without credentials.',
    input: 'none',
    success: 'json',
    response: { type: 'object', description: 'an OpenAPI 3.1 document' },
    public: true,
  },
]
