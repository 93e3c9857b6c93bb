/**
 * RedisStore's dimension reads (`siteTraffic` / `siteActivities` with
 * `system` or `geo`), done from the client in short commands rather than in
 * one script: a script reading every value of every day of a period (up to
 * `maxDimensionValues + 1` per day) and counting each value's distinct
 * visitors over the period would hold the whole Redis, every tenant's, for
 * as long as it runs. Here every command is bounded: one HGETALL of the day
 * hash per day (the day's counters and at most the cap's worth of packed
 * value counters per dimension), and per value one VALUE_VISITORS call per
 * {@link PF_CHUNK} days, which merges the value's HyperLogLog fields into a
 * scratch key. The read is not a snapshot: events recorded while it runs may
 * or may not be in it, as with any read racing a write.
 */
import { randomUUID } from 'node:crypto'
import { ACTIVITY_KINDS } from '../../../types/index.js'
import type { Dimension } from '../contract/index.js'
import type { RedisConn } from './conn.js'
import type { RedisKeys } from './keys.js'
import { VALUE_VISITORS } from './lua/analytics.js'

/** Days whose HyperLogLogs one VALUE_VISITORS call merges. */
export const PF_CHUNK = 64

/** One value of a dimension over the period: its JSON key, metric sums and distinct visitors. */
export interface ValueRow {
  jk: string
  sums: Map<string, number>
  visitors: number
}

/** A dimension's field prefix in the day hash (and in `du:<day>`). */
export const DIMENSION_FIELD: Record<Dimension, string> = { system: 's:', geo: 'g:' }

/** The metrics of a packed value field, in order (lua/analytics.ts, RECORD_EVENTS). */
export const PACKED_METRICS = ['visits', 'page_views', ...ACTIVITY_KINDS] as const

/** The counters of a packed value field, by metric (absent ones are 0). */
export function unpackCounters(packed: string): number[] {
  const counts = packed.split(' ').map(Number)
  return PACKED_METRICS.map((_, i) => counts[i] ?? 0)
}

/** A value field's packed form: the counters in metric order, trailing zeros (past page views) left out. */
export function packCounters(counts: readonly number[]): string {
  let last = 2
  counts.forEach((n, i) => {
    if (i >= 2 && n !== 0) last = i + 1
  })
  return counts.slice(0, last).join(' ')
}

/** The rows of one dimension of a site over [from, to]; visitors counted when `countVisitors`. */
export async function readDimension(
  conn: RedisConn,
  keys: RedisKeys,
  site: string,
  from: string,
  to: string,
  dimension: Dimension,
  countVisitors: boolean,
): Promise<ValueRow[]> {
  const prefix = DIMENSION_FIELD[dimension]
  const days = await conn.call((c) => c.zrangebylex(keys.siteDays(site), `[${from}`, `[${to}`))
  const rows = new Map<string, { sums: Map<string, number>; days: string[] }>()
  const hashes = await Promise.all(days.map((d) => conn.call((c) => c.hgetall(keys.day(d, site)))))
  hashes.forEach((hash, i) => {
    for (const field in hash) {
      if (!field.startsWith(prefix)) continue
      const jk = field.slice(prefix.length)
      let row = rows.get(jk)
      if (row === undefined) rows.set(jk, (row = { sums: new Map(), days: [] }))
      const counts = unpackCounters(hash[field]!)
      PACKED_METRICS.forEach((metric, m) => {
        if (counts[m]) row.sums.set(metric, (row.sums.get(metric) ?? 0) + counts[m]!)
      })
      if (countVisitors && counts[0]) row.days.push(keys.dayValues(days[i]!, site))
    }
  })
  return Promise.all(
    [...rows].map(async ([jk, row]) => ({
      jk,
      sums: row.sums,
      visitors: countVisitors ? await distinct(conn, keys, site, prefix + jk, row.days) : 0,
    })),
  )
}

/** The size of the union of a value's HyperLogLog fields, in calls of at most {@link PF_CHUNK} days. */
async function distinct(conn: RedisConn, keys: RedisKeys, site: string, field: string, days: string[]) {
  if (days.length === 0) return 0
  const acc = keys.scratch(`pf:${randomUUID()}`, keys.siteBase(site))
  try {
    let count = 0
    for (let i = 0; i < days.length; i += PF_CHUNK) {
      const last = i + PF_CHUNK >= days.length
      const chunk = days.slice(i, i + PF_CHUNK)
      count = Number(await conn.run(VALUE_VISITORS, [acc], [field, last ? '1' : '0', ...chunk]))
    }
    return count
  } catch (error) {
    await conn.call((c) => c.del(acc)).catch(() => {})
    throw error
  }
}
