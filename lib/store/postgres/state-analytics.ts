/**
 * PostgresStore's analytics in state dumps (export, import; state.ts runs
 * them inside its transactions).
 *
 * Since migration 6 the store keeps a 64-bit hash of each visitor id, not
 * the id, so an export cannot list ids: each day and cell carries
 * `visitors_sketch`, the sorted distinct hashes (exact, not an estimate) in
 * the format below, which only a PostgresStore imports (the contract's
 * sketch: any other store refuses it by name). A dump with exact ids (from
 * MemoryStore, say) still imports: the ids are hashed in SQL, as recording
 * hashes them.
 *
 * A dump gives each visitor's system cells and geo cells separately; the
 * (visitor, system, geo) triples written pair each of a visitor's cells with
 * one cell of the other dimension that visitor is in, which reproduces every
 * distinct count the queries make (per day, per system value, per geo value).
 */
import type { PoolClient } from 'pg'
import { ACTIVITY_KINDS, type ActivityKind } from '../../../types/index.js'
import type { AnalyticsCellDump, AnalyticsDayDump, StateDump, VisitorsDump } from '../contract/index.js'
import { activityTotals } from '../shared/analytics-rows.js'
import { byText } from '../shared/order.js'

/** First bytes of a PostgresStore visitor sketch; 8-byte big-endian signed hashes follow, ascending. */
const MAGIC = 'PGV1'

/** The sketch of a set of hashes (decimal strings, as pg gives bigints). */
function sketchOf(hashes: Iterable<string>): string {
  const sorted = [...new Set(hashes)].map(BigInt).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const bytes = Buffer.alloc(MAGIC.length + 8 * sorted.length)
  bytes.write(MAGIC, 'latin1')
  sorted.forEach((h, i) => bytes.writeBigInt64BE(h, MAGIC.length + 8 * i))
  return bytes.toString('base64')
}

/** The hashes of a sketch (decimal strings), or undefined when it is not one of this store's. */
function hashesOf(sketch: string): string[] | undefined {
  const bytes = Buffer.from(sketch, 'base64')
  if (bytes.toString('base64') !== sketch || bytes.length < MAGIC.length) return undefined
  if (bytes.subarray(0, MAGIC.length).toString('latin1') !== MAGIC) return undefined
  if ((bytes.length - MAGIC.length) % 8 !== 0) return undefined
  const out: string[] = []
  for (let at = MAGIC.length; at < bytes.length; at += 8) out.push(String(bytes.readBigInt64BE(at)))
  return out
}

/** The sketches of a dump this store cannot read, as problems. */
export function badSketches(dump: StateDump): string[] {
  const problems: string[] = []
  for (const day of dump.analytics) {
    const cells: VisitorsDump[] = [day, ...day.system, ...day.geo]
    if (cells.some((c) => c.visitors === undefined && c.visitors_sketch !== undefined && !hashesOf(c.visitors_sketch)))
      problems.push(
        `analytics of ${day.site_name} on ${day.day}: visitors_sketch is not a PostgresStore sketch (another kind of store made it)`,
      )
  }
  return problems
}

type Row = Record<string, unknown>
const counts = (a: Record<ActivityKind, number>): number[] => ACTIVITY_KINDS.map((k) => a[k])

/** Every site-day, with its cells and visitor sketches, in the dump's order. */
export async function exportAnalytics(c: PoolClient, S: string): Promise<AnalyticsDayDump[]> {
  const { rows } = await c.query(`
      SELECT s.site_name, d.site_id, d.day::text AS day, d.visits, d.page_views, d.click_to_call, d.click_to_map,
             d.click_to_email, d.form_submit, d.dim_ids, d.dim_pages, d.dim_counts, d.vis_hash, d.vis_sys, d.vis_geo
        FROM ${S}.site_days d JOIN ${S}.sites s ON s.id = d.site_id ORDER BY s.site_name, d.day`)
  const values = new Map<number, Row>()
  for (const r of (await c.query(`SELECT id, dim, k1, k2 FROM ${S}.dim_values`)).rows) values.set(Number(r.id), r)
  const overflow = new Map<string, Row[]>()
  for (const r of (await c.query(`SELECT site_id, day::text AS day, vh, sys_id, geo_id FROM ${S}.visitor_overflow`))
    .rows) {
    const key = `${r.site_id}\0${r.day}`
    overflow.set(key, [...(overflow.get(key) ?? []), r])
  }
  return rows.map((r): AnalyticsDayDump => {
    const ids = r.dim_ids as number[]
    const flat = (r.dim_counts as number[]).map(Number)
    const triples: [string, number, number][] = (r.vis_hash as string[]).map((h, i) => [
      String(h),
      (r.vis_sys as number[])[i]!,
      (r.vis_geo as number[])[i]!,
    ])
    for (const x of overflow.get(`${r.site_id}\0${r.day}`) ?? [])
      triples.push([String(x.vh), Number(x.sys_id), Number(x.geo_id)])
    const cells: [AnalyticsCellDump[], AnalyticsCellDump[]] = [[], []]
    ids.forEach((id, i) => {
      const v = values.get(id)
      if (v === undefined) return
      const n = flat.slice(i * 5, i * 5 + 5)
      cells[Number(v.dim) as 0 | 1].push({
        key: [v.k1 as string, v.k2 as string],
        visits: n[0]!,
        page_views: Number((r.dim_pages as string[])[i]),
        activities: activityTotals((kind) => n[1 + ACTIVITY_KINDS.indexOf(kind)]!),
        visitors_sketch: sketchOf(triples.filter((t) => t[1 + Number(v.dim)] === id).map((t) => t[0])),
      })
    })
    const sorted = (list: AnalyticsCellDump[]) => list.sort(byText((x) => JSON.stringify(x.key)))
    return {
      site_name: r.site_name as string,
      day: r.day as string,
      visits: Number(r.visits),
      page_views: Number(r.page_views),
      activities: activityTotals((kind) => Number(r[kind])),
      visitors_sketch: sketchOf(triples.map((t) => t[0])),
      system: sorted(cells[0]),
      geo: sorted(cells[1]),
    }
  })
}

/** Adds one day of a dump to the site's day (created if need be), in the caller's transaction. */
export async function writeDay(c: PoolClient, S: string, day: AnalyticsDayDump, owner: string): Promise<void> {
  const { rows } = await c.query(`SELECT id FROM ${S}.sites WHERE site_name = $1`, [day.site_name])
  const siteId = rows[0].id as string
  await c.query(
    `INSERT INTO ${S}.site_days AS d (site_id, day, owner, visits, page_views, click_to_call, click_to_map, click_to_email, form_submit)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (site_id, day) DO UPDATE SET visits = d.visits + excluded.visits, page_views = d.page_views + excluded.page_views,
         click_to_call = d.click_to_call + excluded.click_to_call, click_to_map = d.click_to_map + excluded.click_to_map,
         click_to_email = d.click_to_email + excluded.click_to_email, form_submit = d.form_submit + excluded.form_submit`,
    [siteId, day.day, owner, day.visits, day.page_views, ...counts(day.activities)],
  )
  const [row] = (
    await c.query(
      `SELECT dim_ids, dim_pages, dim_counts FROM ${S}.site_days WHERE site_id = $1 AND day = $2 FOR UPDATE`,
      [siteId, day.day],
    )
  ).rows
  const ids = row.dim_ids as number[]
  const pages = (row.dim_pages as string[]).map(Number)
  const flat = (row.dim_counts as number[]).map(Number)
  // Each visitor's cells, by dimension: "i:" + an id, or "h:" + a hash from a sketch.
  const cellsOf = new Map<string, [number[], number[]]>()
  for (const [dim, cells] of [
    [0, day.system],
    [1, day.geo],
  ] as const) {
    for (const cell of cells) {
      const { rows: got } = await c.query(`SELECT ${S}.dim_id($1::smallint, $2, $3) AS id`, [dim, ...cell.key])
      const id = Number(got[0].id)
      let k = ids.indexOf(id)
      if (k < 0) {
        k = ids.push(id) - 1
        pages.push(0)
        flat.push(0, 0, 0, 0, 0)
      }
      pages[k]! += cell.page_views
      ;[cell.visits, ...counts(cell.activities)].forEach((n, a) => {
        flat[k * 5 + a]! += n
      })
      const members =
        cell.visitors?.map((v) => `i:${v}`) ??
        (cell.visitors_sketch === undefined ? [] : hashesOf(cell.visitors_sketch)!.map((h) => `h:${h}`))
      for (const visitor of members) {
        let pair = cellsOf.get(visitor)
        if (!pair) cellsOf.set(visitor, (pair = [[], []]))
        pair[dim].push(id)
      }
    }
  }
  const vids: (string | null)[] = []
  const hashes: (string | null)[] = []
  const sys: number[] = []
  const geo: number[] = []
  for (const [visitor, [s, g]] of cellsOf) {
    if (s.length === 0 || g.length === 0) continue
    for (let i = 0; i < Math.max(s.length, g.length); i++) {
      vids.push(visitor.startsWith('i:') ? visitor.slice(2) : null)
      hashes.push(visitor.startsWith('h:') ? visitor.slice(2) : null)
      sys.push(s[Math.min(i, s.length - 1)]!)
      geo.push(g[Math.min(i, g.length - 1)]!)
    }
  }
  await c.query(
    `WITH n AS (
       SELECT coalesce(array_agg(coalesce(x.h, ${S}.visitor_hash(x.id)) ORDER BY x.o), '{}') AS h,
              coalesce(array_agg(x.s ORDER BY x.o), '{}') AS s, coalesce(array_agg(x.g ORDER BY x.o), '{}') AS g
         FROM unnest($6::text[], $7::bigint[], $8::integer[], $9::integer[]) WITH ORDINALITY AS x(id, h, s, g, o)
     )
     UPDATE ${S}.site_days d SET dim_ids = $3, dim_pages = $4, dim_counts = $5,
            (vis_hash, vis_sys, vis_geo) = (SELECT a.io_h, a.io_s, a.io_g
                                              FROM n, ${S}.add_visitors(d.site_id, d.day, d.vis_hash, d.vis_sys, d.vis_geo, n.h, n.s, n.g) a)
      WHERE d.site_id = $1 AND d.day = $2`,
    [siteId, day.day, ids, pages, flat, vids, hashes, sys, geo],
  )
}
