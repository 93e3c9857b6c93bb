/**
 * RedisStore's analytics. Three keys per site-day (a hash of the day's and
 * each dimension value's counters, a hash of each value's HyperLogLog, the
 * day's HyperLogLog: lua/analytics.ts, RECORD_EVENTS), a per-site
 * and per-owner index of days, and a per-owner per-day ranking of visits
 * (the table in keys.ts). Distinct visitors over a period are PFCOUNT over
 * the period's HyperLogLogs, i.e. the size of their union, with about 0.81 %
 * standard error. Each call is one Lua script on the site's slot
 * (lua/analytics.ts), except where the owner's slot is involved: on a
 * cluster a recorded visit then updates the owner's ranking in a second step,
 * and most traffic picks the top sites from the owner's rankings, then reads
 * each one's totals in its own slot (skipping entries whose site's analytics
 * are no longer the owner's). Dimension reads are short client-side commands
 * (analytics-read.ts).
 *
 * Every recording is a batch (`recordEvents`; recordVisit and recordActivity
 * are batches of one): one RECORD_EVENTS script on a single Redis (every site and its owner's ranking in one step). On a cluster it is
 * split by site: one RECORD_EVENTS per site of the batch (each on its site's
 * slot, all sent at once), then one RANK_VISITS per owner whose sites got
 * visits (the visits summed per site and day), on the owner's slot.
 */
import type { Dimension, TrafficTotals } from '../contract/index.js'
import { type Measure, activityTotals, byVisits, dimensionRows, periodMethods } from '../shared/analytics-rows.js'
import type { AnalyticsStore } from '../contract/analytics.js'
import { readDimension } from './analytics-read.js'
import { recordBatch } from './analytics-record.js'
import type { RedisConn } from './conn.js'
import type { RedisKeys } from './keys.js'
import { MOST_TRAFFIC_1, PERIOD, SITE_TRAFFIC, TOP_SITES } from './lua/analytics.js'

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

/** What recordVisit and recordActivity record under: no cap, no retention. */
const SINGLE = { maxDimensionValues: Number.MAX_SAFE_INTEGER }

/** The analytics methods of the Store contract, on Redis. */
export function redisAnalytics(conn: RedisConn, keys: RedisKeys): AnalyticsStore {
  /** One PERIOD call without a dimension; with one, the rows of analytics-read.ts. */
  async function period<T>(measure: Measure<T>, site: string, from: string, to: string, dimension?: Dimension) {
    const read = READ[measure.name] as (sums: Map<string, number>, visitors: unknown) => T
    const visitors = measure.name === 'traffic'
    if (!dimension) {
      // HMGET of the day totals: the script stays short however long the period.
      const args = [keys.siteBase(site), from, to, visitors ? '1' : '0']
      const [flat, count] = (await conn.run(PERIOD, [keys.siteDays(site)], args)) as [unknown, unknown]
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
      return (await recordBatch(conn, keys, [v], { ...SINGLE, today: v.day }))[0]
    },

    async recordActivity(a) {
      return (await recordBatch(conn, keys, [a], { ...SINGLE, today: a.day }))[0]
    },

    recordEvents: (events, options) => recordBatch(conn, keys, events, options),

    ...periodMethods(period),

    async mostTraffic(owner, from, to, limit) {
      if (from > to || limit < 1) return []
      const ownerJson = JSON.stringify(owner)
      if (!conn.cluster) {
        const args = [keys.ownerBase(owner), from, to, limit, keys.prefix, ownerJson]
        const rows = (await conn.run(MOST_TRAFFIC_1, [keys.ownerDays(owner)], args)) as [
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
      }
      const top = (await conn.run(TOP_SITES, [keys.ownerDays(owner)], [keys.ownerBase(owner), from, to, limit])) as (
        | string
        | number
      )[]
      const picked: [string, number][] = []
      for (let i = 0; i + 1 < top.length; i += 2) picked.push([String(top[i]), Number(top[i + 1])])
      // Each site's own totals, in its slot; a ranking entry whose site's
      // analytics are no longer the owner's (deleted, or recreated by another
      // owner) is skipped.
      const totals = await Promise.all(
        picked.map(([site]) =>
          conn.run(SITE_TRAFFIC, [keys.siteDays(site)], [keys.siteBase(site), from, to, ownerJson]),
        ),
      )
      return picked
        .flatMap(([site_name, visits], i) => {
          const t = totals[i] as [number, number] | null
          if (t === null) return []
          return [{ site_name, data: { visits, page_views: Number(t[0]), unique_visitors: Number(t[1]) } }]
        })
        .sort(byVisits)
        .slice(0, limit)
    },
  }
}
