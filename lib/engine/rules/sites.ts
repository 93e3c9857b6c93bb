/**
 * Sites: create, read, update, delete and the listings (the Sites endpoints of docs/api.md).
 * Lifecycle operations (publish, recreate, builds) live in lifecycle.ts.
 */
import type { BusinessInfo, Site, SiteNameRef, SiteProperties, SiteSummary } from '../../../types/index.js'
import { alreadyExist, invalidInput, notExist } from '../../errors.js'
import {
  type CreateSiteBody,
  type GetManyBody,
  type PeriodQuery,
  type SiteData,
  type UpdateSiteBody,
  validateCreateSite,
  validateGetMany,
  validatePeriodQuery,
  validateUpdateSite,
} from '../../schema/sites.js'
import type { SitePatch, SiteRecord } from '../../store/contract/index.js'
import type { CallContext } from '../context.js'
import { resolvePeriod } from '../shared/dates.js'
import { ownSite, siteNotFound } from './site-ownership.js'
import { creationLog } from '../duda/activity-log.js'
import { emitSiteEvent } from './events.js'
import { build, publishBuilt } from './lifecycle.js'
import { baseName, suffixedName } from './site-name-generator.js'
import { toSite, toSummary } from './site-view.js'

/** How many random suffixes a generated name tries before giving up. */
const NAME_ATTEMPTS = 8

/**
 * `GET /sites/created` and `/sites/modified` are the listings, and
 * `/sites/multiscreen` with `/sites/multiscreen/published|unpublished` Duda's,
 * so sites of these names could never be read; refused in any letter case,
 * since names are unique regardless of case.
 */
const RESERVED_NAMES: ReadonlySet<string> = new Set(['created', 'modified', 'multiscreen', 'published', 'unpublished'])

/** The site properties of a validated site_data, with the business info keys merged. */
export function propertiesFrom(data: SiteData): SiteProperties {
  if (data.site_business_info && data.business_site_info) {
    throw invalidInput('site_data has both site_business_info and business_site_info; give one')
  }
  let business: BusinessInfo | undefined = data.site_business_info ?? data.business_site_info
  if (data.reservation_info) {
    if (business?.reservation_info) {
      throw invalidInput('site_data.reservation_info and the business info reservation_info are both given; give one')
    }
    business = { ...business, reservation_info: data.reservation_info }
  }
  const props: SiteProperties = {
    original_site_url: data.original_site_url,
    auto_sync_cache_ttl: data.auto_sync_cache_ttl ?? 'SHORT',
  }
  if (typeof data.preview_site_url === 'string') props.preview_site_url = data.preview_site_url
  if (data.site_domain !== undefined) props.site_domain = data.site_domain
  if (data.site_vertical !== undefined) props.site_vertical = data.site_vertical
  if (data.site_vertical_category !== undefined) props.site_vertical_category = data.site_vertical_category
  if (business !== undefined) props.site_business_info = business
  if (data.external_uid !== undefined) props.external_uid = data.external_uid
  return props
}

/** What a new record may carry besides its properties: a build to publish when done (the spec's), a template (Duda's). */
export type NewSiteExtras = Pick<SiteRecord, 'publish_when_built' | 'template_id'>

/**
 * A new site's record, on every path that creates one: its properties, kept
 * as given as its `initial` ones, and its creation in the activity log.
 */
export function newSiteRecord(
  ctx: CallContext,
  props: SiteProperties,
  site_name: string,
  now: number,
  build: SiteRecord['build'],
  extras: NewSiteExtras,
): SiteRecord {
  // Object.assign and plain stores, not a spread, and `initial` not copied: docs/PERFORMANCE.md, "Object shapes on hot paths".
  const site = Object.assign({}, props) as SiteRecord
  site.site_name = site_name
  site.owner = ctx.caller.user
  site.initial = props
  site.created_at = now
  site.modified_at = now
  site.build = build
  if (extras.publish_when_built) site.publish_when_built = true
  site.activity_log = creationLog(now)
  if (extras.template_id !== undefined) site.template_id = extras.template_id
  return site
}

/** Create Site. The name is reserved atomically before any build runs. */
export async function createSite(ctx: CallContext, body: CreateSiteBody): Promise<SiteNameRef> {
  const input = validateCreateSite(body)
  const props = propertiesFrom(input.site_data)
  const mode = String(input.create_now ?? 'true') as 'true' | 'false' | 'async'
  const publishNow = String(input.publish_now ?? 'false') === 'true'
  const now = ctx.now().getTime()
  const buildState = mode === 'true' ? 'built' : mode === 'false' ? 'delayed' : 'pending'
  const record = (site_name: string): SiteRecord =>
    newSiteRecord(
      ctx,
      props,
      site_name,
      now,
      buildState,
      publishNow && mode !== 'true' ? { publish_when_built: true } : {},
    )

  const site = await reserveName(ctx, input.site_data.site_name, props.original_site_url, record)
  if (mode === 'true') {
    // Built before it is announced: a site whose build fails is deleted and never existed for anyone.
    await build(ctx, site, { publish: false, failure: 'delete' })
    emitSiteEvent(ctx, 'SITE_CREATED', site)
    if (publishNow) await publishBuilt(ctx, site)
  } else {
    emitSiteEvent(ctx, 'SITE_CREATED', site)
    if (mode === 'async') ctx.track(build(ctx, site, { publish: publishNow, failure: 'record' }))
  }
  return { site_name: site.site_name }
}

/** Creates the site under the wanted name, or a generated one; returns the stored record. */
export async function reserveName(
  ctx: CallContext,
  wanted: string | undefined,
  url: string,
  record: (name: string) => SiteRecord,
): Promise<SiteRecord> {
  const attempt = async (name: string): Promise<SiteRecord | undefined> => {
    const site = record(name)
    return (await ctx.store.createSite(site)) ? site : undefined
  }
  if (wanted !== undefined) {
    if (RESERVED_NAMES.has(wanted.toLowerCase()))
      throw invalidInput(`site_name ${wanted} is reserved: a listing of the API has that path`)
    const site = await attempt(wanted)
    if (!site) throw alreadyExist(`site_name ${wanted} is already taken (names are unique regardless of letter case)`)
    return site
  }
  const base = baseName(url)
  let site = RESERVED_NAMES.has(base) ? undefined : await attempt(base)
  for (let tries = 0; !site && tries < NAME_ATTEMPTS; tries++) site = await attempt(suffixedName(base, ctx.randomBytes))
  if (!site) throw alreadyExist(`could not generate a free site_name from ${url}; give one`)
  return site
}

/** Retrieve Site. */
export async function getSite(ctx: CallContext, site_name: string): Promise<Site> {
  return toSite(await ownSite(ctx, site_name))
}

/** Retrieve Site by External ID. */
export async function getSiteByExternalUid(ctx: CallContext, external_uid: string): Promise<SiteSummary> {
  const site = await ctx.store.findSiteByExternalUid(ctx.caller.user, external_uid)
  if (!site) throw notExist(`no site has external_uid ${external_uid}`)
  return toSummary(site)
}

/** Update Site. Creation properties stay as they were, for Recreate Site. */
export async function updateSite(ctx: CallContext, site_name: string, body: UpdateSiteBody): Promise<void> {
  const patch: SitePatch = { ...validateUpdateSite(body), modified_at: ctx.now().getTime() }
  const updated = await ctx.store.updateSite(ctx.caller.user, site_name, patch)
  if (!updated) throw siteNotFound(site_name)
}

/** Delete Site: permanent; the store cancels the subscription and drops grants. */
export async function deleteSite(ctx: CallContext, site_name: string): Promise<void> {
  // The site's external_uid, for the SITE_DELETED event: read only when someone listens.
  const before = ctx.events.active ? await ctx.store.getSite(site_name) : undefined
  if (!(await ctx.store.deleteSite(ctx.caller.user, site_name))) throw siteNotFound(site_name)
  emitSiteEvent(ctx, 'SITE_DELETED', before?.owner === ctx.caller.user ? before : { site_name, owner: ctx.caller.user })
}

/** Retrieve Sites created (or modified) in a period; default the 7 days before `to`. */
async function listSites(
  ctx: CallContext,
  by: 'created' | 'modified',
  query: PeriodQuery = {},
): Promise<SiteNameRef[]> {
  const period = resolvePeriod(validatePeriodQuery(query), ctx.now(), 7)
  const names = await ctx.store.listSites(ctx.caller.user, by, period.from, period.to)
  return names.map((site_name) => ({ site_name }))
}

/** Retrieve Sites created in a period. */
export function sitesCreated(ctx: CallContext, query?: PeriodQuery): Promise<SiteNameRef[]> {
  return listSites(ctx, 'created', query)
}

/** Retrieve Sites modified in a period. */
export function sitesModified(ctx: CallContext, query?: PeriodQuery): Promise<SiteNameRef[]> {
  return listSites(ctx, 'modified', query)
}

/** Retrieve Multiple Sites, in request order; any missing name fails the call naming it. */
export async function getManySites(ctx: CallContext, body: GetManyBody): Promise<SiteSummary[]> {
  const names = validateGetMany(body).map((entry) => entry.site_name)
  const records = await ctx.store.getSites(names)
  const missing = names.filter((_, i) => records[i]?.owner !== ctx.caller.user)
  if (missing.length > 0) throw notExist(`sites do not exist: ${[...new Set(missing)].join(', ')}`)
  return records.map((record) => toSummary(record!))
}
