/**
 * Analytics (the Analytics endpoints of docs/api.md): Get Site Analytics,
 * Get Sites with Most Traffic, and the daily limit of 300 calls per UTC day
 * per master account per method. Recording visits and activities into the
 * day buckets they read is events.ts'.
 *
 * Granularity is the UTC day: a period covers every day it touches, both ends
 * included, so `to=2025-01-31` (midnight) includes all of January 31.
 *
 * Only calls that would succeed count against the daily limit: the query and
 * the site are checked first, so a client fixing a bad query is not charged
 * for its mistakes. The limit check itself is one atomic store call, so no
 * more than 300 calls succeed however many run at once.
 */
import type { ActivityMetrics, AnalyticsRow, MostTrafficRow, TrafficMetrics } from '../../../types/index.js'
import type { FromSchema } from 'json-schema-to-ts'
import { ServiceError } from '../../errors.js'
import {
  type MostTrafficQuery,
  type SiteAnalyticsQuery,
  validateMostTrafficQuery,
  validateSiteAnalyticsQuery,
} from '../../schema/analytics.js'
import type { ActivityTotals, Dimension, PeriodRow, TrafficTotals } from '../../store/contract/index.js'
import type { analyticsBucketSchema } from '../../schema/responses.js'
import { retentionStart } from '../../store/shared/analytics-rows.js'
import type { CallContext, EngineContext } from '../context.js'
import { DAY_MS, formatDay, resolvePeriod, secondsToNextUtcDay, startOfDay } from '../shared/dates.js'
import { bucketsOf } from '../duda/granularity.js'
import { ownSite } from '../rules/site-ownership.js'
import { UNKNOWN } from './user-agent.js'

/** Calls per UTC day per master account per analytics method. */
export const DAILY_LIMIT = 300
/** Rows of Get Sites with Most Traffic. */
export const MOST_TRAFFIC_ROWS = 10
/** Default analytics period, in days before `to`. */
const DEFAULT_DAYS = 30
// --------------------------------------------------------------- queries

/** Drops keys whose value is undefined: in-process callers write `{ from: undefined }` for "absent". */
function definedEntries(query: Record<string, unknown>): Record<string, unknown> {
  if (typeof query !== 'object' || query === null) return query
  const out = Object.create(null) as Record<string, unknown>
  for (const [key, value] of Object.entries(query)) if (value !== undefined) out[key] = value
  return out
}

/**
 * The first day of a period that retention keeps: days before it read as
 * days without data whether or not the store has deleted them yet.
 */
function keptFrom(ctx: EngineContext, from: string): string {
  const first = retentionStart(formatDay(ctx.now().getTime()), ctx.retentionDays)
  return first !== undefined && from < first ? first : from
}

/** The period of §4.3 as inclusive UTC days. */
function periodDays(query: { from?: string; to?: string }, now: Date): { from: string; to: string } {
  const { from, to } = resolvePeriod(query, now, DEFAULT_DAYS)
  return { from: formatDay(from), to: formatDay(to) }
}

/** Counts one call against the caller's daily limit for `method`, or throws DailyLimitExceeded. */
async function countCall(ctx: CallContext, method: string, label: string, now: Date): Promise<void> {
  const ms = now.getTime()
  const key = `analytics-limit:${method}:${formatDay(ms)}:${ctx.caller.user}`
  const { allowed } = await ctx.store.incrementWithinLimit(key, DAILY_LIMIT, startOfDay(ms) + DAY_MS)
  if (!allowed) {
    throw new ServiceError(
      'DailyLimitExceeded',
      `${label} is limited to ${DAILY_LIMIT} calls per UTC day; try again after midnight UTC`,
      {
        retryAfter: secondsToNextUtcDay(ms),
      },
    )
  }
}

function trafficMetrics(data: TrafficTotals): TrafficMetrics {
  // A shared store may estimate distinct visitors; there are never more than visits.
  return {
    UNIQUE_VISITORS: Math.min(data.unique_visitors, data.visits),
    VISITS: data.visits,
    PAGE_VIEWS: data.page_views,
  }
}

function activityMetrics(data: ActivityTotals): ActivityMetrics {
  return {
    CLICK_TO_EMAILS: data.click_to_email,
    FORM_SUBMITS: data.form_submit,
    CLICK_TO_MAPS: data.click_to_map,
    CLICK_TO_CALLS: data.click_to_call,
  }
}

function dimensionOf(dimension: Dimension, key: string[]): AnalyticsRow['dimension'] {
  const [a = UNKNOWN, b = UNKNOWN] = key
  return dimension === 'system' ? { browser: a, os: b } : { country: a, region: b }
}

function shape<T, M>(
  rows: PeriodRow<T>[],
  dimension: Dimension | undefined,
  metrics: (data: T) => M,
  zero: T,
): M | AnalyticsRow<M>[] {
  if (dimension === undefined) return metrics(rows[0]?.data ?? zero)
  return rows.map((row) => ({ data: metrics(row.data), dimension: dimensionOf(dimension, row.key) }))
}

const ZERO_TRAFFIC: TrafficTotals = { visits: 0, page_views: 0, unique_visitors: 0 }
const ZERO_ACTIVITIES: ActivityTotals = { click_to_call: 0, click_to_map: 0, click_to_email: 0, form_submit: 0 }

/** One bucket of Get Site Analytics with `dateGranularity`. */
type AnalyticsBucket = FromSchema<typeof analyticsBucketSchema>

/**
 * Get Site Analytics: traffic (default) or activities of one of the caller's
 * sites over the period, as one metrics object or, with a dimension, rows.
 */
export async function siteAnalytics(
  ctx: CallContext,
  site_name: string,
  query: SiteAnalyticsQuery = {},
): Promise<TrafficMetrics | ActivityMetrics | AnalyticsRow[] | AnalyticsBucket[]> {
  const q = validateSiteAnalyticsQuery(definedEntries(query))
  const now = ctx.now()
  const { from, to } = periodDays(q, now)
  const buckets = q.dateGranularity === undefined ? undefined : bucketsOf(from, to, q.dateGranularity)
  const site = await ownSite(ctx, site_name)
  await countCall(ctx, 'siteAnalytics', 'Get Site Analytics', now)
  const result = q.result ?? 'traffic'
  if (buckets === undefined) return readSiteAnalytics(ctx, site.site_name, from, to, result, q.dimension)
  const answer: AnalyticsBucket[] = []
  for (const bucket of buckets) {
    const data = await readSiteAnalytics(ctx, site.site_name, bucket.from, bucket.to, result, q.dimension)
    answer.push({ date: bucket.from, data })
  }
  return answer
}

/** The metrics of a result kind. */
type MetricsOf<R extends 'traffic' | 'activities'> = R extends 'traffic' ? TrafficMetrics : ActivityMetrics

/** Get Site Analytics' answer for a result kind: totals, or rows with a dimension. */
type AnswerOf<R extends 'traffic' | 'activities', D extends Dimension | undefined> = D extends Dimension
  ? AnalyticsRow<MetricsOf<R>>[]
  : MetricsOf<R>

/**
 * The answer of Get Site Analytics for days [from, to] of a site whose access
 * the caller has already checked, without counting toward the daily limit.
 * The API and the sub-account dashboard both read through it, so their
 * numbers are the same by construction.
 */
export async function readSiteAnalytics<
  R extends 'traffic' | 'activities',
  D extends Dimension | undefined = undefined,
>(ctx: EngineContext, site_name: string, from_: string, to: string, result: R, dimension?: D): Promise<AnswerOf<R, D>> {
  const from = keptFrom(ctx, from_)
  if (result === 'activities') {
    const rows = await ctx.store.siteActivities(site_name, from, to, dimension)
    return shape(rows, dimension, activityMetrics, ZERO_ACTIVITIES) as AnswerOf<R, D>
  }
  const rows = await ctx.store.siteTraffic(site_name, from, to, dimension)
  return shape(rows, dimension, trafficMetrics, ZERO_TRAFFIC) as AnswerOf<R, D>
}

/** Get Sites with Most Traffic: the caller's top 10 sites by visits in the period. */
export async function sitesWithMostTraffic(ctx: CallContext, query: MostTrafficQuery = {}): Promise<MostTrafficRow[]> {
  const q = validateMostTrafficQuery(definedEntries(query))
  const now = ctx.now()
  const { from, to } = periodDays(q, now)
  await countCall(ctx, 'sitesWithMostTraffic', 'Get Sites with Most Traffic', now)
  const rows = await ctx.store.mostTraffic(ctx.caller.user, keptFrom(ctx, from), to, MOST_TRAFFIC_ROWS)
  return rows.map((row) => ({ site_name: row.site_name, data: trafficMetrics(row.data) }))
}
