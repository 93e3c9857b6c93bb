/**
 * Every operation of the API, each defined once (operation.ts says what a
 * definition holds). The key is the MasterApi method, and the comment above
 * an entry is that method's documentation. The order is the one the
 * OpenAPI document and docs/api.md list operations in; it never decides
 * which route answers a request (lib/http/dispatch.ts ranks them). To add an
 * endpoint: write its schemas (lib/schema/), its rule (a function of this
 * folder) and one entry here.
 */
import type { ErrorCode } from '../../errors.js'
import { createAccountSchema, updateAccountSchema } from '../../schema/accounts.js'
import { mostTrafficQuerySchema, siteAnalyticsQuerySchema } from '../../schema/analytics.js'
import {
  accountSchema,
  mostTrafficRowSchema,
  siteAnalyticsSchema,
  siteNameRefSchema,
  siteSchema,
  siteSummarySchema,
} from '../../schema/responses.js'
import {
  createSiteSchema,
  getManySchema,
  periodQuerySchema,
  publishQuerySchema,
  recreateSiteSchema,
  updateSiteSchema,
} from '../../schema/sites.js'
import { ssoLinkQuerySchema, ssoLinkSchema } from '../../schema/sso.js'
import * as accounts from '../rules/accounts.js'
import * as analytics from '../recording/analytics.js'
import { DUDA_ACCOUNT_OPERATIONS } from '../duda/accounts-operations.js'
import * as lifecycle from '../rules/lifecycle.js'
import { DUDA_SITE_OPERATIONS } from '../duda/sites-operations.js'
import { operation } from './operation-definition.js'
import * as sites from '../rules/sites.js'
import * as sso from '../auth/sso.js'

/** Answered by an operation that names a site or an account the caller may not see. */
const notExist: readonly ErrorCode[] = ['ResourceNotExist']
/** Every Accounts operation is for partner master accounts only. */
const partner: readonly ErrorCode[] = ['AccessForbidden', 'ResourceNotExist']

/** Retrieve Sites created (or modified) in a period: the two listings differ only in the time they read. */
function listing(by: 'created' | 'modified', run: typeof sites.sitesCreated) {
  return operation({
    operationId: by === 'created' ? 'listSitesCreated' : 'listSitesModified',
    tag: 'Sites',
    summary: `Retrieve Sites ${by} in a period`,
    http: { method: 'GET', path: `/sites/${by}`, input: 'query' },
    request: periodQuerySchema,
    response: { type: 'array', items: siteNameRefSchema },
    run,
  })
}

/** Every operation of the API by MasterApi method name: the one table the router, MasterApi and the documents read. */
export const OPERATIONS = {
  /**
   * Create Site: a new site of the caller, built at once (`create_now` true,
   * the default), on its first visit (false) or in the background (async),
   * and published once built when `publish_now` is true.
   */
  createSite: operation({
    operationId: 'createSite',
    tag: 'Sites',
    summary: 'Create Site',
    http: { method: 'POST', path: '/sites/create', input: 'body' },
    request: createSiteSchema,
    response: siteNameRefSchema,
    errors: ['ResourceAlreadyExist'],
    run: sites.createSite,
  }),
  /** The caller's sites created in the period (default: the 7 days before `to`). */
  sitesCreated: listing('created', sites.sitesCreated),
  /** The caller's sites modified in the period (default: the 7 days before `to`). */
  sitesModified: listing('modified', sites.sitesModified),
  /** Retrieve Multiple Sites, in request order; any name missing fails the call naming it. */
  getManySites: operation({
    operationId: 'getManySites',
    tag: 'Sites',
    summary: 'Retrieve Multiple Sites',
    http: { method: 'POST', path: '/sites/get-many', input: 'body' },
    request: getManySchema,
    response: { type: 'array', items: siteSummarySchema },
    errors: notExist,
    run: sites.getManySites,
  }),
  /** Retrieve Site by External ID. */
  getSiteByExternalUid: operation({
    operationId: 'getSiteByExternalUid',
    tag: 'Sites',
    summary: 'Retrieve Site by External ID',
    http: { method: 'GET', path: '/sites/byexternal/:external_uid', input: 'none' },
    response: siteSummarySchema,
    errors: notExist,
    run: sites.getSiteByExternalUid,
  }),
  // Today's Duda sites paths, listed with the spec's Sites operations in the documents.
  ...DUDA_SITE_OPERATIONS,
  /** Retrieve Site: one of the caller's sites (the name is exact and case-sensitive). */
  getSite: operation({
    operationId: 'getSite',
    tag: 'Sites',
    summary: 'Retrieve Site',
    http: { method: 'GET', path: '/sites/:site_name', input: 'none' },
    response: siteSchema,
    errors: notExist,
    run: sites.getSite,
  }),
  /** Delete Site: permanent; cancels its subscription and removes its grants. */
  deleteSite: operation({
    operationId: 'deleteSite',
    tag: 'Sites',
    summary: 'Delete Site',
    http: { method: 'DELETE', path: '/sites/:site_name', input: 'none' },
    errors: notExist,
    run: sites.deleteSite,
  }),
  /** Update Site: changes the fields given; Recreate Site restores the creation ones. */
  updateSite: operation({
    operationId: 'updateSite',
    tag: 'Sites',
    summary: 'Update Site',
    http: { method: 'POST', path: '/sites/update/:site_name', input: 'body' },
    request: updateSiteSchema,
    errors: notExist,
    run: sites.updateSite,
  }),
  /** Recreate Site: the creation properties back, rebuilt, unpublished unless `republish`. */
  recreateSite: operation({
    operationId: 'recreateSite',
    tag: 'Sites',
    summary: 'Recreate Site',
    http: { method: 'POST', path: '/sites/recreate/:site_name', input: 'optional-body' },
    request: recreateSiteSchema,
    errors: notExist,
    run: lifecycle.recreateSite,
  }),
  /** Publish Site. `query.test` = true or "true" skips the first-publish charge. */
  publishSite: operation({
    operationId: 'publishSite',
    tag: 'Sites',
    summary: 'Publish Site',
    http: { method: 'POST', path: '/sites/publish/:site_name', input: 'query' },
    request: publishQuerySchema,
    errors: notExist,
    run: lifecycle.publishSite,
  }),
  /** Unpublish Site: off production; the subscription is unchanged. */
  unpublishSite: operation({
    operationId: 'unpublishSite',
    tag: 'Sites',
    summary: 'Unpublish Site',
    http: { method: 'POST', path: '/sites/unpublish/:site_name', input: 'none' },
    errors: notExist,
    run: lifecycle.unpublishSite,
  }),
  /** Reset Runtime Cache: the next access syncs the latest desktop content. */
  resetCache: operation({
    operationId: 'resetSiteCache',
    tag: 'Sites',
    summary: 'Reset Runtime Cache',
    http: { method: 'POST', path: '/sites/resetcache/:site_name', input: 'none' },
    errors: notExist,
    run: lifecycle.resetCache,
  }),
  /** Create Account: a sub-user account of the caller (partner accounts only). */
  createAccount: operation({
    operationId: 'createAccount',
    tag: 'Accounts',
    summary: 'Create Account',
    http: { method: 'POST', path: '/accounts/create', input: 'body' },
    request: createAccountSchema,
    errors: ['AccessForbidden', 'ResourceAlreadyExist'],
    run: accounts.createAccount,
  }),
  /**
   * Get SSO Link: a single-use sign-in link (valid 120 s) for the caller's
   * sub-account. `query`: `target` DASHBOARD (default) or STATS, and
   * `site_name` (required for STATS; must be granted to the account).
   * `dashboardUrl`: where dashboardRouter is served, an absolute URL or a
   * path (default `/dashboard`).
   */
  ssoLink: operation({
    operationId: 'getSsoLink',
    tag: 'Accounts',
    summary: 'Get SSO Link',
    description:
      "A single-use link that signs the sub-account into its dashboard (`target=DASHBOARD`) or onto one granted site's statistics (`target=STATS` with `site_name`). The token in it carries 256 random bits, expires 120 s after issue on the engine clock and opens a 12-hour session once. The link points at apiRouter's `dashboardUrl` (an absolute URL, or a path, default `/dashboard`, on the server's public URL, or on this request's origin only when its host is allowed; a link never follows an unchecked Host). A `site_name` that is the caller's but not granted to the account is InvalidInput. See docs/dashboard.md.",
    http: { method: 'GET', path: '/accounts/sso/:account_name/link', input: 'query', fact: 'dashboardUrl' },
    request: ssoLinkQuerySchema,
    response: ssoLinkSchema,
    errors: partner,
    run: sso.ssoLink,
  }),
  /** Retrieve Account: never shows `lang`. */
  getAccount: operation({
    operationId: 'getAccount',
    tag: 'Accounts',
    summary: 'Retrieve Account',
    http: { method: 'GET', path: '/accounts/:account_name', input: 'none' },
    response: accountSchema,
    errors: partner,
    run: accounts.getAccount,
  }),
  /** Delete Account, with its grants. */
  deleteAccount: operation({
    operationId: 'deleteAccount',
    tag: 'Accounts',
    summary: 'Delete Account',
    http: { method: 'DELETE', path: '/account/:account_name', input: 'none' },
    errors: partner,
    run: accounts.deleteAccount,
  }),
  /** Update Account: `account_name` cannot change. */
  updateAccount: operation({
    operationId: 'updateAccount',
    tag: 'Accounts',
    summary: 'Update Account',
    http: { method: 'POST', path: '/accounts/update/:account_name', input: 'body' },
    request: updateAccountSchema,
    errors: partner,
    run: accounts.updateAccount,
  }),
  /** Grant Account access to a Site; granting twice succeeds. */
  grantAccess: operation({
    operationId: 'grantAccess',
    tag: 'Accounts',
    summary: 'Grant Account access to a Site',
    http: { method: 'POST', path: '/accounts/grant-access/:account_name/sites/:site_name', input: 'none' },
    errors: partner,
    run: accounts.grantAccess,
  }),
  /** Revoke Account access to a Site; revoking a grant that does not exist succeeds. */
  revokeAccess: operation({
    operationId: 'revokeAccess',
    tag: 'Accounts',
    summary: 'Revoke Account access to a Site',
    http: { method: 'POST', path: '/accounts/revoke-access/:account_name/sites/:site_name', input: 'none' },
    errors: partner,
    run: accounts.revokeAccess,
  }),
  /** Sites the account has been granted, sorted (what its dashboard shows). In process only. */
  accountSites: operation({
    summary: 'Sites granted to an account',
    response: { type: 'array', items: { type: 'string' } },
    run: accounts.accountSites,
  }),
  /** Get Sites with Most Traffic: the caller's 10 sites with the most visits in the period. */
  sitesWithMostTraffic: operation({
    operationId: 'getSitesWithMostTraffic',
    tag: 'Analytics',
    summary: 'Get Sites with Most Traffic',
    http: { method: 'GET', path: '/analytics/sites/withmosttraffic', input: 'query' },
    request: mostTrafficQuerySchema,
    response: { type: 'array', maxItems: 10, items: mostTrafficRowSchema },
    errors: ['DailyLimitExceeded'],
    run: analytics.sitesWithMostTraffic,
  }),
  /** Get Site Analytics: traffic (default) or activities over the period, as totals or, with a dimension, rows. */
  siteAnalytics: operation({
    operationId: 'getSiteAnalytics',
    tag: 'Analytics',
    summary: 'Get Site Analytics',
    http: { method: 'GET', path: '/analytics/site/:site_name', input: 'query' },
    request: siteAnalyticsQuerySchema,
    response: siteAnalyticsSchema,
    errors: ['DailyLimitExceeded', 'ResourceNotExist'],
    run: analytics.siteAnalytics,
  }),
  // Today's Duda API: accounts, permissions and sign-in links.
  ...DUDA_ACCOUNT_OPERATIONS,
}
