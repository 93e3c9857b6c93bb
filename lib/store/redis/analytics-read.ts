/**
 * RedisStore's dimension reads (`siteTraffic` / `siteActivities` with
 * `system` or `geo`), done from the client in short commands rather than in
 * one script: a script reading every value of every day of a period (up to
 * `maxDimensionValues + 1` per day) and counting each value's distinct
 * visitors over the period would hold the whole Redis, every tenant's, for
 * as long as it runs. Here every command is bounded: one HGETALL per day
 * (at most the cap's worth of values, times 6 fields), and per value one
 * PFCOUNT of at most {@link PF_CHUNK} HyperLogLogs (longer periods merge in
 * chunks into a scratch key). The read is not a snapshot: events recorded
 * while it runs may or may not be in it, as with any read racing a write.
 */
import { randomUUID } from 'node:crypto'
import type { Dimension } from '../contract.js'
import type { RedisConn } from './conn.js'
import type { RedisKeys } from './keys.js'

/** HyperLogLogs counted by one PFCOUNT (or merged by one PFMERGE). */
export const PF_CHUNK = 64

/** One value of a dimension over the period: its JSON key, metric sums and distinct visitors. */
export interface ValueRow {
  jk: string
  sums: Map<string, number>
  visitors: number
}

const DIM: Record<Dimension, string> = { system: 'sys', geo: 'geo' }

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
  const dim = DIM[dimension]
  const days = await conn.call((c) => c.zrangebylex(keys.siteDays(site), `[${from}`, `[${to}`))
  const rows = new Map<string, { sums: Map<string, number>; hlls: string[] }>()
  const hashes = await Promise.all(days.map((d) => conn.call((c) => c.hgetall(keys.dimension(d, dim, site)))))
  hashes.forEach((hash, i) => {
    for (const field in hash) {
      const colon = field.indexOf(':')
      if (colon < 0) continue
      const metric = field.slice(0, colon)
      const jk = field.slice(colon + 1)
      let row = rows.get(jk)
      if (row === undefined) rows.set(jk, (row = { sums: new Map(), hlls: [] }))
      row.sums.set(metric, (row.sums.get(metric) ?? 0) + Number(hash[field]))
      if (countVisitors && metric === 'visits') row.hlls.push(keys.dimensionVisitors(days[i]!, dim, site, jk))
    }
  })
  return Promise.all(
    [...rows].map(async ([jk, row]) => ({
      jk,
      sums: row.sums,
      visitors: countVisitors ? await distinct(conn, keys, site, row.hlls) : 0,
    })),
  )
}

/** The size of the union of HyperLogLogs, in commands of at most {@link PF_CHUNK} keys. */
async function distinct(conn: RedisConn, keys: RedisKeys, site: string, hlls: string[]): Promise<number> {
  if (hlls.length === 0) return 0
  if (hlls.length <= PF_CHUNK) return conn.call((c) => c.pfcount(...hlls))
  const scratch = keys.scratch(`pf:${randomUUID()}`, keys.siteBase(site))
  try {
    for (let i = 0; i < hlls.length; i += PF_CHUNK) {
      const chunk = hlls.slice(i, i + PF_CHUNK)
      await conn.call((c) => c.pfmerge(scratch, ...chunk))
    }
    return await conn.call((c) => c.pfcount(scratch))
  } finally {
    await conn.call((c) => c.del(scratch)).catch(() => {})
  }
}
