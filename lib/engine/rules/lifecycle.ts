/**
 * The site lifecycle: builds (create_now true, false and async),
 * publish with the first-publish charge, unpublish, recreate, reset cache and
 * redirect confirmations.
 */
import type { CreationFailure } from '../../../types/index.js'
import { invalidInput } from '../../errors.js'
import {
  type PublishQuery,
  type RecreateSiteBody,
  validatePublishQuery,
  validateRecreateSite,
} from '../../schema/sites.js'
import type { SitePatch, SiteRecord } from '../../store/contract/index.js'
import type { CallContext, EngineContext } from '../context.js'
import { emitSiteEvent, publishData } from './events.js'
import { ownSite, siteNotFound } from './site-ownership.js'
import { PROPERTY_KEYS, toSite } from './site-view.js'

const FAILURES: readonly CreationFailure[] = ['FAILED_FRAMESET_UNSUPPORTED', 'FAILED_CONTENT_TOO_BIG']

/** The creation_status a builder rejection stands for (see the `builder` option of createEngine). */
export function failureOf(error: unknown): CreationFailure {
  const status = (error as { creation_status?: unknown } | null)?.creation_status
  return FAILURES.find((failure) => failure === status) ?? 'FAILED'
}

/** What to do after a build: publish on success; on failure delete the site (sync create) or record the status. */
export interface BuildPlan {
  publish: boolean
  failure: 'delete' | 'record'
}

/**
 * Runs the builder on a site and records the outcome. A build may take long:
 * meanwhile the site can be deleted and its name reused, or recreated. Every
 * write of the outcome therefore carries an expectation on the site as the
 * build found it, checked atomically by the store; a stale outcome is dropped.
 */
export async function build(ctx: EngineContext, site: SiteRecord, plan: BuildPlan): Promise<void> {
  const { owner, site_name } = site
  const expect = { created_at: site.created_at, build: site.build }
  const generation = ctx.generation.value
  try {
    await ctx.builder(toSite(site))
  } catch (error) {
    if (ctx.generation.value !== generation) return
    const status = failureOf(error)
    if (plan.failure === 'delete') {
      await ctx.store.deleteSite(owner, site_name, expect)
      throw invalidInput(`the mobile site could not be generated from ${site.original_site_url}: ${status}`)
    }
    await ctx.store.updateSite(owner, site_name, { build: status, publish_when_built: null }, expect)
    return
  }
  // The state was reset while the builder ran: this outcome belongs to a world that is gone.
  if (ctx.generation.value !== generation) return
  if (site.build !== 'built' || site.publish_when_built !== undefined) {
    const built = await ctx.store.updateSite(owner, site_name, { build: 'built', publish_when_built: null }, expect)
    if (!built) return
  }
  if (plan.publish) await publishBuilt(ctx, site)
}

/**
 * Publishes a site just built, charging its first publish, if it is still
 * the site that was built (same creation, still built); emits PUBLISH.
 */
export async function publishBuilt(ctx: EngineContext, site: SiteRecord): Promise<void> {
  const published = await ctx.store.publishSite(site.owner, site.site_name, ctx.now().getTime(), true, {
    created_at: site.created_at,
    build: 'built',
  })
  if (published) emitSiteEvent(ctx, 'PUBLISH', site, publishData(site))
}

/**
 * Builds a create_now=false site on its first visit, which found the site
 * `delayed`: reads the whole record, and builds it if it is still delayed.
 * Concurrent visits in this process share one build (registered before the
 * read, so none starts a second); the returned promise settles when it is done.
 */
export function buildOnFirstVisit(ctx: EngineContext, site_name: string): Promise<void> {
  const running = ctx.builds.get(site_name)
  if (running) return running
  const work = ctx.store
    .getSite(site_name)
    .then((site) => {
      if (site?.build !== 'delayed') return undefined
      return build(ctx, site, { publish: site.publish_when_built === true, failure: 'record' })
    })
    .finally(() => ctx.builds.delete(site_name))
  ctx.builds.set(site_name, work)
  return work
}

/**
 * Publish Site. `test=true` charges nothing and is not a first publish: the
 * first publish without it charges once and opens the subscription; later
 * ones never charge.
 */
export async function publishSite(ctx: CallContext, site_name: string, query: PublishQuery = {}): Promise<void> {
  const test = String(validatePublishQuery(query).test ?? 'false') === 'true'
  // The site as it was, for the PUBLISH event's data: read only when someone listens.
  const before = ctx.events.active ? await ctx.store.getSite(site_name) : undefined
  const outcome = await ctx.store.publishSite(ctx.caller.user, site_name, ctx.now().getTime(), !test)
  if (!outcome) throw siteNotFound(site_name)
  if (before?.owner === ctx.caller.user) {
    const data = publishData(before)
    // A test publish is not a first publish (it charged nothing and the next real one will).
    emitSiteEvent(ctx, 'PUBLISH', before, test ? { ...data, first_publish: false } : data)
  }
}

async function patchOwnSite(ctx: CallContext, site_name: string, patch: SitePatch): Promise<SiteRecord> {
  const updated = await ctx.store.updateSite(ctx.caller.user, site_name, patch)
  if (!updated) throw siteNotFound(site_name)
  return updated
}

/** Unpublish Site: off production; the subscription is unchanged. */
export async function unpublishSite(ctx: CallContext, site_name: string): Promise<void> {
  const at = ctx.now().getTime()
  const site = await patchOwnSite(ctx, site_name, { published_at: null, modified_at: at, unpublished_at: at })
  emitSiteEvent(ctx, 'UNPUBLISH', site, at)
}

/** Reset Runtime Cache. */
export async function resetCache(ctx: CallContext, site_name: string): Promise<void> {
  const now = ctx.now().getTime()
  await patchOwnSite(ctx, site_name, { cache_reset_at: now, modified_at: now })
}

/** Recreate Site: creation properties restored, rebuilt, unpublished unless `republish`. */
export async function recreateSite(ctx: CallContext, site_name: string, body?: RecreateSiteBody): Promise<void> {
  const { republish = false } = validateRecreateSite(body ?? {})
  const site = await ownSite(ctx, site_name)
  const patch: SitePatch = {
    modified_at: ctx.now().getTime(),
    published_at: null,
    build: 'built',
    publish_when_built: null,
  }
  const writable = patch as Record<string, unknown>
  for (const key of PROPERTY_KEYS) writable[key] = site.initial[key] ?? null
  // The expectation makes restore-from-`initial` apply only to the site those properties were read from.
  const restored = await ctx.store.updateSite(ctx.caller.user, site_name, patch, { created_at: site.created_at })
  if (!restored) throw siteNotFound(site_name)
  // Recreating takes a published site off production (PUBLISH follows if it is republished).
  if (site.published_at !== undefined) emitSiteEvent(ctx, 'UNPUBLISH', restored, patch.modified_at!)
  await build(ctx, restored, { publish: republish, failure: 'record' })
}

/** Records a confirmed redirect to the site (last_confirmed_redirected_date). */
export async function confirmRedirect(ctx: EngineContext, site_name: string, at: Date): Promise<void> {
  const site = await ctx.store.getSite(site_name)
  if (!site) throw siteNotFound(site_name)
  await ctx.store.updateSite(site.owner, site_name, { redirect_confirmed_at: at.getTime() })
}
