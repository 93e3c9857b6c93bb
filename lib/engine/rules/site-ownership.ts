/**
 * Tenancy for sites: a master account sees only its own sites, so another
 * account's site answers exactly as a missing one does.
 */
import { type ServiceError, notExist } from '../../errors.js'
import type { SiteRecord } from '../../store/contract/index.js'
import type { CallContext } from '../context.js'

/** The ResourceNotExist every site operation answers for a missing (or foreign) site. */
export function siteNotFound(site_name: string): ServiceError {
  return notExist(`site ${String(site_name)} does not exist`)
}

/** The caller's site, or ResourceNotExist. */
export async function ownSite(ctx: CallContext, site_name: string): Promise<SiteRecord> {
  // In-process callers are not type-checked at run time; a non-string name names no site.
  const site = typeof site_name === 'string' ? await ctx.store.getSite(site_name) : undefined
  if (!site || site.owner !== ctx.caller.user) throw siteNotFound(site_name)
  return site
}
