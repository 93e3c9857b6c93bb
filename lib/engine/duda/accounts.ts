/**
 * Today's Duda API for accounts (docs/duda-api.md): site
 * permissions on the rules of the spec's grants. A grant made by Grant Access
 * (the spec's path) holds every permission; Grant Site Access (today's path)
 * gives it the permissions named. Both are the same grant: Revoke Access
 * removes either, and List Accessible Sites lists both. Partner-only, like
 * every Accounts call.
 */
import { notExist } from '../../errors.js'
import {
  type GrantSiteAccessBody,
  PERMISSION_NAMES,
  type PermissionName,
  type SitePermissions,
  validateGrantSiteAccess,
} from '../../schema/duda/accounts.js'
import { checkNames, grantError, requirePartner } from '../rules/accounts.js'
import type { CallContext } from '../context.js'

/** Permissions in Duda's order, each once, so every store keeps the same list. */
function inDudaOrder(permissions: readonly string[]): PermissionName[] {
  const given = new Set(permissions)
  return PERMISSION_NAMES.filter((name) => given.has(name))
}

/** List Permissions: every permission a grant can hold. */
export async function listPermissionNames(ctx: CallContext): Promise<PermissionName[]> {
  requirePartner(ctx)
  return [...PERMISSION_NAMES]
}

/** Get Site Permissions: the grant's permissions; none when the site is not granted. */
export async function getSitePermissions(
  ctx: CallContext,
  account_name: string,
  site_name: string,
): Promise<SitePermissions> {
  requirePartner(ctx)
  checkNames(account_name, site_name)
  const found = await ctx.store.getGrant(ctx.caller.user, account_name, site_name)
  if (found === 'no-grant') return { permissions: [] }
  if (typeof found === 'string') {
    grantError(found, account_name, site_name)
    throw notExist(`account ${account_name} does not exist`)
  }
  return { permissions: found.permissions === null ? [...PERMISSION_NAMES] : inDudaOrder(found.permissions) }
}

/** Grant Site Access: grants the site with exactly these permissions (again: replaces them). */
export async function grantSiteAccess(
  ctx: CallContext,
  account_name: string,
  site_name: string,
  body: GrantSiteAccessBody,
): Promise<void> {
  requirePartner(ctx)
  const { permissions } = validateGrantSiteAccess(body)
  checkNames(account_name, site_name)
  const outcome = await ctx.store.grantAccess(ctx.caller.user, account_name, site_name, inDudaOrder(permissions))
  grantError(outcome, account_name, site_name)
}

/** List Accessible Sites: the sites granted to the account, by name. */
export async function listAccessibleSites(ctx: CallContext, account_name: string): Promise<{ site_name: string }[]> {
  requirePartner(ctx)
  const sites = await ctx.store.listGrants(ctx.caller.user, account_name)
  if (!sites) throw notExist(`account ${account_name} does not exist`)
  return sites.map((site_name) => ({ site_name }))
}
