/**
 * Today's Duda sites and site-reporting calls (`/sites/multiscreen/...`), on
 * the same store and rules as the spec's: a site made here is the same site
 * on the spec's paths, publishing charges the first publish once, deleting
 * cancels the subscription, and every call emits the same site events. Only
 * the shapes differ; docs/duda-api.md lists them.
 *
 * How today's Duda API is laid out (engine/duda/ and schema/duda/):
 * - `<area>.ts` holds the rules and `<area>-operations.ts` only the table
 *   entries that serve them; schema/duda/<area>.ts holds their schemas.
 * - The public names stay as released: MasterApi methods and operation ids
 *   `duda…` for the sites calls and the client's own names for the accounts
 *   calls, tags `Sites (Duda)` and `Accounts`.
 * - The few Duda hooks that stay in spec files, because the spec's data or
 *   rule carries them: a site record's `template_id`, `unpublished_at` and
 *   activity log, and the `permissions` a grant holds (the store's
 *   `grantAccess`, store/contract), the welcome and reset-password links
 *   (auth/sso.ts), `dateGranularity` of Get Site Analytics
 *   (recording/analytics.ts, buckets from duda/granularity.ts, its bucket
 *   shape in schema/responses.ts), and the `account_type` of an account
 *   (schema/accounts.ts).
 */
import { alreadyExist, invalidInput } from '../../errors.js'
import {
  ACTIVITY_TYPES,
  type DudaActivities,
  type DudaActivitiesQuery,
  type DudaCreateSiteBody,
  type DudaDuplicateSiteBody,
  type DudaLastDaysQuery,
  type DudaListQuery,
  type DudaResetSiteBody,
  type DudaSite,
  type DudaSiteList,
  type DudaUpdateSiteBody,
  validateDudaActivitiesQuery,
  validateDudaCreateSite,
  validateDudaDuplicateSite,
  validateDudaLastDaysQuery,
  validateDudaListQuery,
  validateDudaResetSite,
  validateDudaUpdateSite,
} from '../../schema/duda/sites.js'
import type { SiteProperties } from '../../../types/index.js'
import type { SitePatch, SiteRecord } from '../../store/contract/index.js'
import type { CallContext } from '../context.js'
import type { PeriodQuery } from '../../schema/sites.js'
import { formatDateTime, resolvePeriod } from '../shared/dates.js'
import { logActivity } from './activity-log.js'
import { emitSiteEvent } from '../rules/events.js'
import { build, publishSite, unpublishSite } from '../rules/lifecycle.js'
import { ownSite, siteNotFound } from '../rules/site-ownership.js'
import { newSiteRecord, reserveName, sitesCreated } from '../rules/sites.js'
import { propertiesOf } from '../rules/site-view.js'

const DAY_MS = 86_400_000
/** Duda's page size when `limit` is absent, and the largest it accepts. */
const DEFAULT_LIMIT = 50
const MAX_LIMIT = 100
/** Days the published and unpublished listings cover when `lastDays` is absent. */
const DEFAULT_LAST_DAYS = 7
/** How many random names a create without url or prefix tries. */
const NAME_ATTEMPTS = 8

/** A site on Duda's paths. */
export function toDudaSite(r: SiteRecord): DudaSite {
  const site = { site_name: r.site_name, account_name: r.owner } as DudaSite
  if (r.external_uid !== undefined) site.external_uid = r.external_uid
  if (r.site_domain !== undefined) site.site_domain = r.site_domain
  if (r.site_business_info !== undefined) site.site_business_info = r.site_business_info
  if (r.template_id !== undefined) site.template_id = r.template_id
  if (r.preview_site_url !== undefined) site.preview_site_url = r.preview_site_url
  site.creation_date = formatDateTime(r.created_at)
  site.modification_date = formatDateTime(r.modified_at)
  if (r.published_at !== undefined) site.last_published_date = formatDateTime(r.published_at)
  if (r.first_published_at !== undefined) site.first_published_date = formatDateTime(r.first_published_at)
  site.publish_status =
    r.published_at !== undefined
      ? 'PUBLISHED'
      : r.first_published_at !== undefined
        ? 'UNPUBLISHED'
        : 'NOT_PUBLISHED_YET'
  return site
}

/** A count from the query: text over HTTP, a number in process. */
function count(value: string | number | undefined, fallback: number): number {
  return value === undefined ? fallback : Number(value)
}

/** Every site of the caller, oldest first (the created index over all time). */
async function allSites(ctx: CallContext): Promise<SiteRecord[]> {
  const names = await ctx.store.listSites(ctx.caller.user, 'created', 0, Number.MAX_SAFE_INTEGER)
  const records = await ctx.store.getSites(names)
  return records.filter((r): r is SiteRecord => r?.owner === ctx.caller.user)
}

/** `GET /sites/multiscreen`: a page of the caller's sites. */
export async function dudaListSites(ctx: CallContext, query: DudaListQuery = {}): Promise<DudaSiteList> {
  const q = validateDudaListQuery(query)
  const offset = count(q.offset, 0)
  const limit = count(q.limit, DEFAULT_LIMIT)
  if (limit < 1 || limit > MAX_LIMIT) throw invalidInput(`limit must be 1 to ${MAX_LIMIT}`)
  const sites = await allSites(ctx)
  if (q.sort === 'LAST_PUBLISHED_DATE') {
    // Never-published sites last, in creation order (sort is stable).
    sites.sort((a, b) => (a.published_at ?? Number.MAX_VALUE) - (b.published_at ?? Number.MAX_VALUE))
  }
  if (q.direction === 'desc') sites.reverse()
  return {
    offset,
    limit,
    total_responses: sites.length,
    results: sites.slice(offset, offset + limit).map(toDudaSite),
  }
}

/** `GET /sites/multiscreen/{site_name}`. */
export async function dudaGetSite(ctx: CallContext, site_name: string): Promise<DudaSite> {
  return toDudaSite(await ownSite(ctx, site_name))
}

/** A new site's record, built like Create Site's with `create_now` true. */
function recordFor(ctx: CallContext, props: (name: string) => SiteProperties, template?: string | number) {
  const now = ctx.now().getTime()
  const extras = template === undefined ? {} : { template_id: template }
  return (site_name: string): SiteRecord => newSiteRecord(ctx, props(site_name), site_name, now, 'built', extras)
}

/** A site with no desktop URL gets one on a reserved domain: the spec's shapes need a URL. */
export function placeholderUrl(site_name: string): string {
  return `https://${site_name.toLowerCase()}.mobisite.invalid/`
}

/** Creates the site under `wanted`, or a name from the URL's host, or a random 8-hex name; built at once. */
async function createBuilt(
  ctx: CallContext,
  wanted: string | undefined,
  url: string | undefined,
  record: (name: string) => SiteRecord,
): Promise<string> {
  let site: SiteRecord | undefined
  if (wanted !== undefined || url !== undefined) {
    site = await reserveName(ctx, wanted, url ?? '', record)
  } else {
    for (let tries = 0; !site && tries < NAME_ATTEMPTS; tries++) {
      const name = ctx.randomBytes(4).toString('hex')
      const candidate = record(name)
      if (await ctx.store.createSite(candidate)) site = candidate
    }
    if (!site) throw alreadyExist('could not generate a free site_name; give default_domain_prefix')
  }
  await build(ctx, site, { publish: false, failure: 'delete' })
  emitSiteEvent(ctx, 'SITE_CREATED', site)
  return site.site_name
}

/** `POST /sites/multiscreen/create`: `url` optional; `template_id` recorded; `default_domain_prefix` names the site. */
export async function dudaCreateSite(ctx: CallContext, body: DudaCreateSiteBody = {}): Promise<{ site_name: string }> {
  const input = validateDudaCreateSite(body)
  const data = input.site_data ?? {}
  const props = (name: string): SiteProperties => {
    const p: SiteProperties = { original_site_url: input.url ?? placeholderUrl(name), auto_sync_cache_ttl: 'SHORT' }
    if (data.site_domain !== undefined) p.site_domain = data.site_domain
    if (data.site_business_info !== undefined) p.site_business_info = data.site_business_info
    if (data.external_uid !== undefined) p.external_uid = data.external_uid
    return p
  }
  const name = await createBuilt(ctx, input.default_domain_prefix, input.url, recordFor(ctx, props, input.template_id))
  return { site_name: name }
}

/** `POST /sites/multiscreen/update/{site_name}`: changes the fields given. */
export async function dudaUpdateSite(ctx: CallContext, site_name: string, body: DudaUpdateSiteBody): Promise<void> {
  const patch: SitePatch = { ...validateDudaUpdateSite(body), modified_at: ctx.now().getTime() }
  if (!(await ctx.store.updateSite(ctx.caller.user, site_name, patch))) throw siteNotFound(site_name)
}

/** `GET /sites/multiscreen/byexternalid/{external_uid}`: names of the caller's sites with it, oldest first. */
export async function dudaSitesByExternalUid(ctx: CallContext, external_uid: string): Promise<string[]> {
  return (await allSites(ctx)).filter((s) => s.external_uid === external_uid).map((s) => s.site_name)
}

/** `POST /sites/multiscreen/reset/{site_name}`: records the template; `removeBizInfos` drops the business info. */
export async function dudaResetSite(ctx: CallContext, site_name: string, body: DudaResetSiteBody = {}): Promise<void> {
  const input = validateDudaResetSite(body)
  const now = ctx.now().getTime()
  const patch: SitePatch = { modified_at: now }
  if (input.template_id !== undefined) patch.template_id = input.template_id
  if (input.site_data?.removeBizInfos === true) patch.site_business_info = null
  if (!(await ctx.store.updateSite(ctx.caller.user, site_name, patch))) throw siteNotFound(site_name)
  await logActivity(ctx, { owner: ctx.caller.user, site_name }, 'site_reset', now)
}

/** `POST /sites/multiscreen/duplicate/{site_name}`: a new, unpublished copy named `new_default_domain_prefix`. */
export async function dudaDuplicateSite(
  ctx: CallContext,
  site_name: string,
  body: DudaDuplicateSiteBody,
): Promise<{ site_name: string }> {
  const input = validateDudaDuplicateSite(body)
  const source = await ownSite(ctx, site_name)
  const props = (name: string): SiteProperties => {
    const p = propertiesOf(source)
    delete p.external_uid
    if (input.new_external_uid !== undefined) p.external_uid = input.new_external_uid
    if (p.original_site_url === placeholderUrl(source.site_name)) p.original_site_url = placeholderUrl(name)
    return p
  }
  const name = await createBuilt(
    ctx,
    input.new_default_domain_prefix,
    undefined,
    recordFor(ctx, props, source.template_id),
  )
  return { site_name: name }
}

/** Names of the caller's sites whose time `at` lies in the last `lastDays` days. */
async function namesWithin(
  ctx: CallContext,
  query: DudaLastDaysQuery,
  at: (s: SiteRecord) => number | undefined,
): Promise<string[]> {
  const days = count(validateDudaLastDaysQuery(query).lastDays, DEFAULT_LAST_DAYS)
  const to = ctx.now().getTime()
  const from = to - days * DAY_MS
  return (await allSites(ctx))
    .filter((s) => {
      const t = at(s)
      return t !== undefined && t >= from && t <= to
    })
    .map((s) => s.site_name)
}

/** `GET /sites/multiscreen/published`: sites (still) published in the last `lastDays` days. */
export function dudaSitesPublished(ctx: CallContext, query: DudaLastDaysQuery = {}): Promise<string[]> {
  return namesWithin(ctx, query, (s) => s.published_at)
}

/** `GET /sites/multiscreen/unpublished`: sites unpublished in the last `lastDays` days and not published since. */
export function dudaSitesUnpublished(ctx: CallContext, query: DudaLastDaysQuery = {}): Promise<string[]> {
  return namesWithin(ctx, query, (s) => (s.published_at === undefined ? s.unpublished_at : undefined))
}

/**
 * `GET /sites/multiscreen/{site_name}/activities`: the site's log (the last
 * ACTIVITY_LOG_MAX entries), newest first, filtered by type and period.
 */
export async function dudaSiteActivities(
  ctx: CallContext,
  site_name: string,
  query: DudaActivitiesQuery = {},
): Promise<DudaActivities> {
  const q = validateDudaActivitiesQuery(query)
  const wanted = q.activities?.split(',')
  const unknown = wanted?.find((a) => !(ACTIVITY_TYPES as readonly string[]).includes(a))
  if (unknown !== undefined) throw invalidInput(`activities: unknown activity ${unknown}`)
  const limit = count(q.limit, DEFAULT_LIMIT)
  if (limit < 1 || limit > MAX_LIMIT) throw invalidInput(`limit must be 1 to ${MAX_LIMIT}`)
  const period = resolvePeriod({ from: q.from ?? '1970-01-01', to: q.to }, ctx.now(), 0)
  const site = await ownSite(ctx, site_name)
  const results = (site.activity_log ?? [])
    .filter((e) => e.at >= period.from && e.at <= period.to)
    .filter((e) => wanted === undefined || wanted.includes(e.activity))
    .reverse()
    .slice(count(q.offset, 0))
    .slice(0, limit)
    .map((e) => ({
      date: formatDateTime(e.at),
      activity: e.activity as (typeof ACTIVITY_TYPES)[number],
      source: 'API' as const,
      account_name: site.owner,
    }))
  return { site_name: site.site_name, results }
}

/** `GET /sites/multiscreen/created`: names of the caller's sites created in the period (default: the 7 days before `to`). */
export async function dudaSitesCreated(ctx: CallContext, query?: PeriodQuery): Promise<string[]> {
  return (await sitesCreated(ctx, query)).map((ref) => ref.site_name)
}

/**
 * Publish Site on Duda's path: the same first-publish charge as the spec's
 * (no `test` query), then the activity log. The spec's path does not write
 * the log: it keeps its one store round trip.
 */
export async function dudaPublishSite(ctx: CallContext, site_name: string): Promise<void> {
  await publishSite(ctx, site_name)
  await logActivity(ctx, { owner: ctx.caller.user, site_name }, 'site_published', ctx.now().getTime())
}

/** Unpublish Site on Duda's path, then the activity log (see dudaPublishSite). */
export async function dudaUnpublishSite(ctx: CallContext, site_name: string): Promise<void> {
  await unpublishSite(ctx, site_name)
  await logActivity(ctx, { owner: ctx.caller.user, site_name }, 'site_unpublished', ctx.now().getTime())
}
