/**
 * The operations of today's Duda API for accounts, permissions and sign-in
 * links (docs/duda-api.md), spread into OPERATIONS (operations.ts)
 * so they are routes, MasterApi methods, OpenAPI operations and docs like the
 * spec's. Paths are the ones `@dudadev/partner-api` 3.3.1 calls, below
 * `/api`. Each runs the same rule as the spec's operation it mirrors.
 */
import type { ErrorCode } from '../../errors.js'
import {
  accessibleSiteSchema,
  accountLinkSchema,
  grantSiteAccessSchema,
  permissionNamesSchema,
  sitePermissionsSchema,
} from '../../schema/duda/accounts.js'
import * as accounts from '../rules/accounts.js'
import * as duda from './accounts.js'
import { operation } from '../api/operation-definition.js'
import * as sso from '../auth/sso.js'

/** Every Accounts operation is for partner master accounts only. */
const partner: readonly ErrorCode[] = ['AccessForbidden', 'ResourceNotExist']

/** Today's Duda accounts, permissions and sign-in link operations, by MasterApi method name. */
export const DUDA_ACCOUNT_OPERATIONS = {
  /** List Permissions (today's Duda API): every permission a grant can hold. */
  listPermissionNames: operation({
    operationId: 'listPermissionNames',
    tag: 'Accounts',
    summary: 'List Permissions',
    description: "Today's Duda API (`accounts.permissions.list`). Every permission name, in Duda's order.",
    http: { method: 'GET', path: '/accounts/permissions/multiscreen', input: 'none' },
    response: permissionNamesSchema,
    errors: ['AccessForbidden'],
    run: duda.listPermissionNames,
  }),
  /** List Accessible Sites (today's Duda API): the sites granted to the account. */
  listAccessibleSites: operation({
    operationId: 'listAccessibleSites',
    tag: 'Accounts',
    summary: 'List Accessible Sites',
    description:
      "Today's Duda API (`accounts.permissions.listAccessibleSites`). The sites granted to the account on either path, sorted by name.",
    http: { method: 'GET', path: '/accounts/grant-access/:account_name/sites/multiscreen', input: 'none' },
    response: { type: 'array', items: accessibleSiteSchema },
    errors: partner,
    run: duda.listAccessibleSites,
  }),
  /** Get Site Permissions (today's Duda API): the grant's permissions. */
  getSitePermissions: operation({
    operationId: 'getSitePermissions',
    tag: 'Accounts',
    summary: 'Get Site Permissions',
    description:
      "Today's Duda API (`accounts.permissions.get`). A grant made by Grant Access holds every permission; a site not granted answers an empty list.",
    http: { method: 'GET', path: '/accounts/:account_name/sites/:site_name/permissions', input: 'none' },
    response: sitePermissionsSchema,
    errors: partner,
    run: duda.getSitePermissions,
  }),
  /** Grant Site Access (today's Duda API): grants the site with these permissions. */
  grantSiteAccess: operation({
    operationId: 'grantSiteAccess',
    tag: 'Accounts',
    summary: 'Grant Site Access with permissions',
    description:
      "Today's Duda API (`accounts.permissions.grantSiteAccess`). The same grant as Grant Access, holding exactly the permissions given; granting again replaces them.",
    http: { method: 'POST', path: '/accounts/:account_name/sites/:site_name/permissions', input: 'body' },
    request: grantSiteAccessSchema,
    errors: partner,
    run: duda.grantSiteAccess,
  }),
  /** Remove Site Access (today's Duda API): Revoke Access on today's path. */
  removeSiteAccess: operation({
    operationId: 'removeSiteAccess',
    tag: 'Accounts',
    summary: 'Remove Site Access',
    description:
      "Today's Duda API (`accounts.permissions.removeSiteAccess`). Revoke Access: removing a grant that does not exist succeeds.",
    http: { method: 'DELETE', path: '/accounts/:account_name/sites/:site_name/permissions', input: 'none' },
    errors: partner,
    run: accounts.revokeAccess,
  }),
  /** Delete Account on today's path (`DELETE /accounts/{name}`), with its grants. */
  deleteAccountToday: operation({
    operationId: 'deleteAccountToday',
    tag: 'Accounts',
    summary: 'Delete Account (today’s path)',
    description: "Today's Duda API (`accounts.delete`). The same as Delete Account (`DELETE /account/{account_name}`).",
    http: { method: 'DELETE', path: '/accounts/:account_name', input: 'none' },
    errors: partner,
    run: accounts.deleteAccount,
  }),
  /** Get Reset Password Link (today's Duda API): a 7-day single-use sign-in link. */
  resetPasswordLink: operation({
    operationId: 'getResetPasswordLink',
    tag: 'Accounts',
    summary: 'Get Reset Password Link',
    description:
      "Today's Duda API (`accounts.authentication.getResetPasswordLink`). Sub-accounts have no passwords here: the link is a single-use sign-in link to the dashboard, valid 7 days on the engine clock, kept like an SSO token.",
    http: { method: 'POST', path: '/accounts/reset-password/:account_name', input: 'none', fact: 'dashboardUrl' },
    response: accountLinkSchema,
    errors: partner,
    run: sso.accountLink,
  }),
  /** Get Welcome Link (today's Duda API): a 7-day single-use sign-in link. */
  welcomeLink: operation({
    operationId: 'getWelcomeLink',
    tag: 'Accounts',
    summary: 'Get Welcome Link',
    description:
      "Today's Duda API (`accounts.authentication.getWelcomeLink`). A single-use sign-in link to the dashboard, valid 7 days on the engine clock, kept like an SSO token.",
    http: { method: 'POST', path: '/accounts/:account_name/welcome', input: 'none', fact: 'dashboardUrl' },
    response: accountLinkSchema,
    errors: partner,
    run: sso.accountLink,
  }),
}
