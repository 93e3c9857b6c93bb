/**
 * The site lifecycle of SPEC.md §3: builds (create_now true, false and async),
 * publish with the first-publish charge, unpublish, recreate, reset cache and
 * redirect confirmations.
 */
import type { CreationFailure } from '../../types/index.js'
import { invalidInput, notExist } from '../errors.js'
import { validatePublishQuery, validateRecreateSite } from '../schema/sites.js'
import type { SitePatch, SiteRecord } from '../store/contract.js'
import type { CallContext, EngineContext } from './context.js'
import { PROPERTY_KEYS, toSite } from './site-view.js'
import type { Query } from './types.js'

const FAILURES: readonly CreationFailure[] = ['FAILED_FRAMESET_UNSUPPORTED', 'FAILED_CONTENT_TOO_BIG']

/** The creation_status a builder rejection stands for (DESIGN.md: `builder`). */
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
 * Whether the site a build started on is still there in the same build state.
 * A build may take long: meanwhile the site can be deleted and its name taken
 * by a new site, or recreated; the outcome then belongs to nobody.
 */
async function stillSame(ctx: EngineContext, started: SiteRecord): Promise<boolean> {
  const current = await ctx.store.getSite(started.site_name)
  return current?.owner === started.owner && current.created_at === started.created_at && current.build === started.build
}

/** Runs the builder on the owner's site and records the outcome. */
export async function build(ctx: EngineContext, owner: string, site_name: string, plan: BuildPlan): Promise<void> {
  const site = await ctx.store.getSite(site_name)
  if (!site || site.owner !== owner) return
  try {
    await ctx.builder(toSite(site))
  } catch (error) {
    const status = failureOf(error)
    if (plan.failure === 'delete') {
      if (await stillSame(ctx, site)) await ctx.store.deleteSite(owner, site_name)
      throw invalidInput(`the mobile site could not be generated from ${site.original_site_url}: ${status}`)
    }
    if (await stillSame(ctx, site)) await ctx.store.updateSite(owner, site_name, { build: status, publish_when_built: null })
    return
  }
  if (!(await stillSame(ctx, site))) return
  const built = await ctx.store.updateSite(owner, site_name, { build: 'built', publish_when_built: null })
  if (built && plan.publish) await ctx.store.publishSite(owner, site_name, ctx.now().getTime(), true)
}

/**
 * Builds a create_now=false site on its first visit. Concurrent visits in
 * this process share one build; the returned promise settles when it is done.
 */
export function buildOnFirstVisit(ctx: EngineContext, site: SiteRecord): Promise<void> {
  if (site.build !== 'delayed') return Promise.resolve()
  const running = ctx.builds.get(site.site_name)
  if (running) return running
  const plan: BuildPlan = { publish: site.publish_when_built === true, failure: 'record' }
  const work = build(ctx, site.owner, site.site_name, plan).finally(() => ctx.builds.delete(site.site_name))
  ctx.builds.set(site.site_name, work)
  return work
}

/** Publish Site; `test=true` skips the first-publish charge (later publishes never charge). */
export async function publishSite(ctx: CallContext, site_name: string, query: Query = {}): Promise<void> {
  const test = String(validatePublishQuery(query).test ?? 'false') === 'true'
  const outcome = await ctx.store.publishSite(ctx.caller.user, site_name, ctx.now().getTime(), !test)
  if (!outcome) throw notExist(`site ${site_name} does not exist`)
}

async function patchOwnSite(ctx: CallContext, site_name: string, patch: SitePatch): Promise<void> {
  const updated = await ctx.store.updateSite(ctx.caller.user, site_name, patch)
  if (!updated) throw notExist(`site ${site_name} does not exist`)
}

/** Unpublish Site: off production; the subscription is unchanged. */
export function unpublishSite(ctx: CallContext, site_name: string): Promise<void> {
  return patchOwnSite(ctx, site_name, { published_at: null, modified_at: ctx.now().getTime() })
}

/** Reset Runtime Cache. */
export function resetCache(ctx: CallContext, site_name: string): Promise<void> {
  const now = ctx.now().getTime()
  return patchOwnSite(ctx, site_name, { cache_reset_at: now, modified_at: now })
}

/** Recreate Site: creation properties restored, rebuilt, unpublished unless `republish`. */
export async function recreateSite(ctx: CallContext, site_name: string, body: unknown): Promise<void> {
  const { republish = false } = validateRecreateSite(body ?? {})
  const site = await ctx.store.getSite(site_name)
  if (!site || site.owner !== ctx.caller.user) throw notExist(`site ${site_name} does not exist`)
  const patch: SitePatch = { modified_at: ctx.now().getTime(), published_at: null, build: 'built', publish_when_built: null }
  const writable = patch as Record<string, unknown>
  for (const key of PROPERTY_KEYS) writable[key] = site.initial[key] ?? null
  await patchOwnSite(ctx, site_name, patch)
  await build(ctx, ctx.caller.user, site_name, { publish: republish, failure: 'record' })
}

/** Records a confirmed redirect to the site (last_confirmed_redirected_date). */
export async function confirmRedirect(ctx: EngineContext, site_name: string, at: Date): Promise<void> {
  const site = await ctx.store.getSite(site_name)
  if (!site) throw notExist(`site ${site_name} does not exist`)
  await ctx.store.updateSite(site.owner, site_name, { redirect_confirmed_at: at.getTime() })
}
