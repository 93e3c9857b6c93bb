/**
 * The endpoints of SPEC.md §4 as data: method, path, which engine operation
 * serves it and what it takes. The router and the OpenAPI document both read
 * this table, so a path is written exactly once.
 */
import type { MasterApi } from '../engine/types.js'
import { createAccountSchema, updateAccountSchema } from '../schema/accounts.js'
import { mostTrafficQuerySchema, siteAnalyticsQuerySchema } from '../schema/analytics.js'
import {
  createSiteSchema,
  getManySchema,
  periodQuerySchema,
  publishQuerySchema,
  recreateSiteSchema,
  updateSiteSchema,
} from '../schema/sites.js'
import { ssoLinkQuerySchema } from '../schema/sso.js'

/** What an endpoint reads besides its path parameters. */
export type Input = 'body' | 'optional-body' | 'query' | 'none'

/** What a route may need to know about the request besides its input. */
export interface RouteRequest {
  /** Where the sub-account dashboard is served for this request (no trailing slash). */
  readonly dashboardUrl: string
}

/** One endpoint. Static paths come before parameterised ones that could shadow them. */
export interface Route {
  method: 'GET' | 'POST' | 'DELETE'
  /** Express path syntax, relative to where the router is mounted. */
  path: string
  summary: string
  input: Input
  /** The JSON Schema of the body or query the engine validates it with (for the OpenAPI document). */
  schema?: object
  /** 'json': 200 with the result; 'empty': 204 with no content. */
  success: 'json' | 'empty'
  /** Runs the operation; `params` are the decoded path parameters in order. */
  run: (api: MasterApi, params: string[], input: unknown, request: RouteRequest) => Promise<unknown>
}

const json = 'json'
const empty = 'empty'

export const ROUTES: readonly Route[] = [
  { method: 'POST', path: '/sites/create', summary: 'Create Site', input: 'body', schema: createSiteSchema, success: json, run: (api, _, body) => api.createSite(body) },
  { method: 'GET', path: '/sites/created', summary: 'Retrieve Sites created in a period', input: 'query', schema: periodQuerySchema, success: json, run: (api, _, query) => api.sitesCreated(query as Record<string, unknown>) },
  { method: 'GET', path: '/sites/modified', summary: 'Retrieve Sites modified in a period', input: 'query', schema: periodQuerySchema, success: json, run: (api, _, query) => api.sitesModified(query as Record<string, unknown>) },
  { method: 'POST', path: '/sites/get-many', summary: 'Retrieve Multiple Sites', input: 'body', schema: getManySchema, success: json, run: (api, _, body) => api.getManySites(body) },
  { method: 'GET', path: '/sites/byexternal/:external_uid', summary: 'Retrieve Site by External ID', input: 'none', success: json, run: (api, [uid]) => api.getSiteByExternalUid(uid!) },
  { method: 'GET', path: '/sites/:site_name', summary: 'Retrieve Site', input: 'none', success: json, run: (api, [name]) => api.getSite(name!) },
  { method: 'DELETE', path: '/sites/:site_name', summary: 'Delete Site', input: 'none', success: empty, run: (api, [name]) => api.deleteSite(name!) },
  { method: 'POST', path: '/sites/update/:site_name', summary: 'Update Site', input: 'body', schema: updateSiteSchema, success: empty, run: (api, [name], body) => api.updateSite(name!, body) },
  { method: 'POST', path: '/sites/recreate/:site_name', summary: 'Recreate Site', input: 'optional-body', schema: recreateSiteSchema, success: empty, run: (api, [name], body) => api.recreateSite(name!, body) },
  { method: 'POST', path: '/sites/publish/:site_name', summary: 'Publish Site', input: 'query', schema: publishQuerySchema, success: empty, run: (api, [name], query) => api.publishSite(name!, query as Record<string, unknown>) },
  { method: 'POST', path: '/sites/unpublish/:site_name', summary: 'Unpublish Site', input: 'none', success: empty, run: (api, [name]) => api.unpublishSite(name!) },
  { method: 'POST', path: '/sites/resetcache/:site_name', summary: 'Reset Runtime Cache', input: 'none', success: empty, run: (api, [name]) => api.resetCache(name!) },
  { method: 'POST', path: '/accounts/create', summary: 'Create Account', input: 'body', schema: createAccountSchema, success: empty, run: (api, _, body) => api.createAccount(body) },
  { method: 'GET', path: '/accounts/sso/:account_name/link', summary: 'Get SSO Link', input: 'query', schema: ssoLinkQuerySchema, success: json, run: (api, [name], query, request) => api.ssoLink(name!, query as Record<string, unknown>, request.dashboardUrl) },
  { method: 'GET', path: '/accounts/:account_name', summary: 'Retrieve Account', input: 'none', success: json, run: (api, [name]) => api.getAccount(name!) },
  { method: 'DELETE', path: '/account/:account_name', summary: 'Delete Account', input: 'none', success: empty, run: (api, [name]) => api.deleteAccount(name!) },
  { method: 'POST', path: '/accounts/update/:account_name', summary: 'Update Account', input: 'body', schema: updateAccountSchema, success: empty, run: (api, [name], body) => api.updateAccount(name!, body) },
  { method: 'POST', path: '/accounts/grant-access/:account_name/sites/:site_name', summary: 'Grant Account access to a Site', input: 'none', success: empty, run: (api, [account, site]) => api.grantAccess(account!, site!) },
  { method: 'POST', path: '/accounts/revoke-access/:account_name/sites/:site_name', summary: 'Revoke Account access to a Site', input: 'none', success: empty, run: (api, [account, site]) => api.revokeAccess(account!, site!) },
  { method: 'GET', path: '/analytics/sites/withmosttraffic', summary: 'Get Sites with Most Traffic', input: 'query', schema: mostTrafficQuerySchema, success: json, run: (api, _, query) => api.sitesWithMostTraffic(query as Record<string, unknown>) },
  { method: 'GET', path: '/analytics/site/:site_name', summary: 'Get Site Analytics', input: 'query', schema: siteAnalyticsQuerySchema, success: json, run: (api, [name], query) => api.siteAnalytics(name!, query as Record<string, unknown>) },
]

/** GET /agents is served from the engine itself, not on behalf of a caller. */
export const AGENTS_PATH = '/agents'
