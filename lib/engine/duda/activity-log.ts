/**
 * A site's activity log (Duda's `GET /sites/multiscreen/{site_name}/activities`):
 * creation is written with the record on every path; Duda's publish,
 * unpublish and reset append theirs (the spec's publish and unpublish keep
 * their single store round trip and write none). The store keeps the last {@link ACTIVITY_LOG_MAX} entries
 * per site, in the site's record, so the log goes with the site.
 */
import type { SiteActivityEntry, SiteRecord } from '../../store/contract/index.js'
import type { EngineContext } from '../context.js'

/** The most entries a site's log keeps; older ones are dropped. */
export const ACTIVITY_LOG_MAX = 100

/** The activity types recorded (those of Duda's client's ActivityType that mobisite has). */
export type ActivityType = 'site_created' | 'site_published' | 'site_unpublished' | 'site_reset'

/** The log a new site starts with: its creation, written with the record (no extra store call). */
export function creationLog(at: number): SiteActivityEntry[] {
  return [{ at, activity: 'site_created' }]
}

/** Appends to the site's log; a site deleted meanwhile is no error (it has no log any more). */
export async function logActivity(
  ctx: EngineContext,
  site: Pick<SiteRecord, 'owner' | 'site_name'>,
  activity: ActivityType,
  at: number,
): Promise<void> {
  await ctx.store.appendSiteActivity(site.owner, site.site_name, { at, activity }, ACTIVITY_LOG_MAX)
}
