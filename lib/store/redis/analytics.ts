/**
 * RedisStore's analytics. One set of keys per site-day (counters hash,
 * visitor HyperLogLog, per-dimension counters and HyperLogLogs), a per-site
 * and per-owner index of days, and a per-owner per-day ranking of visits
 * (the table in keys.ts). Distinct visitors over a period are PFCOUNT over
 * the period's HyperLogLogs, i.e. the size of their union, with about 0.81 %
 * standard error. Every call is one Lua script (lua/analytics.ts).
 */
import { type BuildState, type Dimension, OTHER, type RecordOutcome, type TrafficTotals } from '../contract.js'
import {
  type Measure,
  activityTotals,
  byVisits,
  dimensionRows,
  isVisit,
  periodMethods,
  retentionStart,
} from '../shared/analytics-rows.js'
import type { AnalyticsOps } from '../shared/composed-store.js'
import { readDimension } from './analytics-read.js'
import type { RedisConn } from './conn.js'
import type { RedisKeys } from './keys.js'
import { MOST_TRAFFIC, PERIOD, RECORD_ACTIVITY, RECORD_EVENTS, RECORD_VISIT } from './lua/analytics.js'

/** A recording script's reply: nil, or the site's owner and build in stored (JSON) form. */
function recordOutcome(reply: unknown): RecordOutcome | undefined {
  if (reply === null) return undefined
  const [owner, build] = reply as [string, string]
  return { owner: JSON.parse(owner) as string, build: JSON.parse(build) as BuildState }
}

/**
 * How long the keys of `day` may live under a retention of `days` counted
 * back from `today` (seconds from now, '' when nothing expires): until the
 * end of the last day that keeps it. Relative to `today`, the engine clock's
 * day, not to Redis' clock, so a store under a test clock keeps what its
 * clock says is kept; the day indexes drop expired days at once.
 */
function ttlOf(day: string, days: number | undefined, today: string): string | number {
  if (days === undefined || !Number.isFinite(days)) return ''
  const end = Date.parse(`${day}T00:00:00Z`) + Math.max(1, Math.floor(days)) * 86_400_000
  return Math.max(1, Math.ceil((end - Date.parse(`${today}T00:00:00Z`)) / 1000))
}

/** Metric sums as the scripts return them: a flat name/count array. */
function sums(flat: unknown): Map<string, number> {
  const out = new Map<string, number>()
  const a = flat as (string | number)[]
  for (let i = 0; i + 1 < a.length; i += 2) out.set(String(a[i]), Number(a[i + 1]))
  return out
}

/** How each measure reads the sums and distinct count of a PERIOD reply. */
const READ: Record<Measure<unknown>['name'], (sums: Map<string, number>, visitors: unknown) => unknown> = {
  traffic: (m: Map<string, number>, visitors: unknown): TrafficTotals => ({
    visits: m.get('visits') ?? 0,
    page_views: m.get('page_views') ?? 0,
    unique_visitors: Number(visitors),
  }),
  activities: (m: Map<string, number>) => activityTotals((kind) => m.get(kind)),
}

/** The analytics methods of the Store contract, on Redis. */
export function redisAnalytics(conn: RedisConn, keys: RedisKeys): AnalyticsOps {
  const P = keys.prefix

  /** One PERIOD call: the measure without a dimension, or a row per value of the dimension. */
  async function period<T>(measure: Measure<T>, site: string, from: string, to: string, dimension?: Dimension) {
    const read = READ[measure.name] as (sums: Map<string, number>, visitors: unknown) => T
    const visitors = measure.name === 'traffic'
    if (!dimension) {
      // A site-day hash holds a dozen fields: the script stays short however long the period.
      const reply = await conn.run(PERIOD, [], [P, site, from, to, '', visitors ? '1' : '0'])
      const [flat, count] = reply as [unknown, unknown]
      return [{ key: [], data: read(sums(flat), count) }]
    }
    const values = await readDimension(conn, keys, site, from, to, dimension, visitors)
    const rows = values.map(({ jk, sums, visitors }) => ({
      key: JSON.parse(jk) as string[],
      data: read(sums, visitors),
    }))
    return dimensionRows(measure, rows)
  }

  return {
    async recordVisit(v) {
      const args = [P, v.site_name, v.day, v.visitor_id, v.page_views]
      const dims = [JSON.stringify([v.browser, v.os]), JSON.stringify([v.country, v.region])]
      return recordOutcome(await conn.run(RECORD_VISIT, [keys.site(v.site_name)], [...args, ...dims]))
    },

    async recordActivity(a) {
      const args = [P, a.site_name, a.day, a.kind]
      const dims = [JSON.stringify([a.browser, a.os]), JSON.stringify([a.country, a.region])]
      return recordOutcome(await conn.run(RECORD_ACTIVITY, [keys.site(a.site_name)], [...args, ...dims]))
    },

    async recordEvents(events, options) {
      if (events.length === 0) return []
      const first = retentionStart(options.today, options.retentionDays) ?? ''
      const keyOf = new Map<string, number>()
      const siteKeys: string[] = []
      const args: (string | number)[] = [P, options.maxDimensionValues, first, JSON.stringify([OTHER, OTHER])]
      for (const e of events) {
        let ki = keyOf.get(e.site_name)
        if (ki === undefined) {
          siteKeys.push(keys.site(e.site_name))
          keyOf.set(e.site_name, (ki = siteKeys.length))
        }
        const visit = isVisit(e)
        args.push(
          visit ? 'v' : 'a',
          ki,
          e.site_name,
          e.day,
          visit ? e.visitor_id : e.kind,
          visit ? e.page_views : 0,
          JSON.stringify([e.browser, e.os]),
          JSON.stringify([e.country, e.region]),
          ttlOf(e.day, options.retentionDays, options.today),
        )
      }
      const replies = (await conn.run(RECORD_EVENTS, siteKeys, args)) as unknown[]
      return events.map((_, i) => recordOutcome(replies[i] ?? null))
    },

    ...periodMethods(period),

    async mostTraffic(owner, from, to, limit) {
      if (from > to || limit < 1) return []
      const rows = (await conn.run(MOST_TRAFFIC, [], [P, JSON.stringify(owner), from, to, limit])) as [
        string,
        number,
        number,
        number,
      ][]
      return rows
        .map(([site_name, visits, page_views, unique_visitors]) => ({
          site_name,
          data: { visits: Number(visits), page_views: Number(page_views), unique_visitors: Number(unique_visitors) },
        }))
        .sort(byVisits)
        .slice(0, limit)
    },
  }
}
