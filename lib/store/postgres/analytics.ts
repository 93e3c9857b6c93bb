/**
 * PostgresStore's analytics: one row per site and UTC day (`site_days`,
 * migration 6) holding the day's counters, its dimension values' counters
 * (arrays) and its distinct (visitor hash, system, geo) triples (arrays, the
 * ones past `visitor_slots()` in `visitor_overflow`), so a period query reads
 * one row per day, and distinct visitors stay exact: `count(DISTINCT hash)`
 * over the period's triples. Recording a batch is one call of
 * `record_events` (migrations/): one statement, one round trip.
 */
import { ACTIVITY_KINDS, type ActivityKind } from '../../../types/index.js'
import type { BuildState, Dimension, RecordOutcome, RecordedEvent, TrafficTotals } from '../contract/index.js'
import {
  type Measure,
  activityTotals,
  byVisits,
  dimensionRows,
  isVisit,
  periodMethods,
  retentionStart,
} from '../shared/analytics-rows.js'
import type { AnalyticsStore } from '../contract/analytics.js'
import { type PgConn, statement } from './conn.js'

type Row = Record<string, unknown>

/** Site-days deleted per statement of a retention sweep. */
const SWEEP_BATCH = 1000
/** An activity kind's number in `record_events` (1-4, in ACTIVITY_KINDS order). */
const KIND_NUMBER = Object.fromEntries(ACTIVITY_KINDS.map((kind, i) => [kind, i + 1])) as Record<ActivityKind, number>

/** Traffic totals from a row; zeros for no row. */
function trafficOf(row: Row | undefined): TrafficTotals {
  return {
    visits: Number(row?.visits ?? 0),
    page_views: Number(row?.page_views ?? 0),
    unique_visitors: Number(row?.unique_visitors ?? 0),
  }
}

/** How each measure reads a row of its query. */
const READ: Record<Measure<unknown>['name'], (row: Row | undefined) => unknown> = {
  traffic: trafficOf,
  activities: (row) => activityTotals((kind) => Number(row?.[kind] ?? 0)),
}

function recordOutcome(rows: Row[]): RecordOutcome | undefined {
  const row = rows[0]
  if (row === undefined) return undefined
  return { owner: row.o_owner as string, build: row.o_build as BuildState }
}

/** Identical events of a batch, added up: one row of `record_events`. */
interface EventGroup {
  event: RecordedEvent
  count: number
  pages: number
  visitors: Set<string>
}

/**
 * The batch as groups of identical events (site, day, kind, dimension
 * values), sorted by site and day so that concurrent batches lock site-days
 * in one order, and the group of each event.
 */
function groupEvents(events: readonly RecordedEvent[]): { groups: EventGroup[]; groupOf: number[] } {
  const byKey = new Map<string, EventGroup>()
  const keyOf: string[] = []
  for (const e of events) {
    const visit = isVisit(e)
    const key = JSON.stringify([e.site_name, e.day, visit ? '' : e.kind, e.browser, e.os, e.country, e.region])
    keyOf.push(key)
    let group = byKey.get(key)
    if (group === undefined) byKey.set(key, (group = { event: e, count: 0, pages: 0, visitors: new Set() }))
    group.count += 1
    if (visit) {
      group.pages += e.page_views
      group.visitors.add(e.visitor_id)
    }
  }
  const keys = [...byKey.keys()].sort()
  const index = new Map(keys.map((key, i) => [key, i]))
  return { groups: keys.map((key) => byKey.get(key)!), groupOf: keyOf.map((key) => index.get(key)!) }
}

/** The analytics methods of the Store contract, on PostgreSQL. */
export function pgAnalytics(conn: PgConn): AnalyticsStore {
  const S = conn.s
  const q = analyticsQueries(S)
  const st = {
    visit: statement(`SELECT o_owner, o_build FROM ${S}.record_visit($1, $2, $3, $4, $5, $6, $7, $8)`),
    activity: statement(`SELECT o_owner, o_build FROM ${S}.record_activity($1, $2, $3, $4, $5, $6, $7)`),
    events: statement(
      `SELECT o_ord, o_owner, o_build FROM ${S}.record_events($1::text[], $2::date[], $3::smallint[], $4::integer[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::text[], $10::integer[], $11::text[], $12, $13::date)`,
    ),
    dropBefore: statement(`SELECT ${S}.drop_analytics_before($1::date, $2) AS n`),
    traffic: statement(q.traffic),
    activities: statement(q.activities),
    trafficBysystem: statement(q.trafficBySystem),
    trafficBygeo: statement(q.trafficByGeo),
    activitiesBysystem: statement(q.activitiesBySystem),
    activitiesBygeo: statement(q.activitiesByGeo),
    mostTraffic: statement(q.mostTraffic),
  }

  /** One period query: the measure without a dimension, or a row per value of the dimension. */
  async function period<T>(measure: Measure<T>, site: string, from: string, to: string, dimension?: Dimension) {
    const read = READ[measure.name] as (row: Row | undefined) => T
    if (!dimension) {
      const [row] = from > to ? [] : await conn.query<Row>(st[measure.name], [site, from, to])
      return [{ key: [], data: read(row) }]
    }
    if (from > to) return []
    const rows = await conn.query<Row>(st[`${measure.name}By${dimension}`], [site, from, to])
    return dimensionRows(
      measure,
      rows.map((r) => ({ key: [r.k1 as string, r.k2 as string], data: read(r) })),
    )
  }

  /** The first day kept by the last sweep started: a sweep starts once per new cutoff (day). */
  let keptFrom = ''
  /**
   * Deletes the site-days before `first` in batches of {@link SWEEP_BATCH},
   * in the background: once per UTC day, never a cost per event. A failure
   * is retried by the next batch of recordings.
   */
  function sweep(first: string): void {
    if (first <= keptFrom) return
    keptFrom = first
    const loop = async (): Promise<void> => {
      for (;;) {
        const [row] = await conn.query<Row>(st.dropBefore, [first, SWEEP_BATCH], 'write')
        if (Number(row?.n ?? 0) < SWEEP_BATCH) return
      }
    }
    loop().catch(() => {
      keptFrom = ''
    })
  }

  return {
    async recordEvents(events, options) {
      if (events.length === 0) return []
      const first = retentionStart(options.today, options.retentionDays)
      if (first !== undefined) sweep(first)
      const { groups, groupOf } = groupEvents(events)
      const cols: unknown[][] = [[], [], [], [], [], [], [], [], []]
      const vgroup: number[] = []
      const vids: string[] = []
      groups.forEach((g, i) => {
        const e = g.event
        cols[0]!.push(e.site_name)
        cols[1]!.push(e.day)
        cols[2]!.push(isVisit(e) ? 0 : KIND_NUMBER[e.kind])
        cols[3]!.push(g.count)
        cols[4]!.push(g.pages)
        cols[5]!.push(e.browser)
        cols[6]!.push(e.os)
        cols[7]!.push(e.country)
        cols[8]!.push(e.region)
        for (const id of g.visitors) {
          vgroup.push(i + 1)
          vids.push(id)
        }
      })
      const values = [...cols, vgroup, vids, options.maxDimensionValues, first ?? null]
      const rows = await conn.query<Row>(st.events, values, 'write')
      const outcomes: (RecordOutcome | undefined)[] = new Array(groups.length).fill(undefined)
      for (const row of rows)
        outcomes[Number(row.o_ord) - 1] = { owner: row.o_owner as string, build: row.o_build as BuildState }
      return groupOf.map((g) => outcomes[g])
    },

    async recordVisit(v) {
      const values = [v.site_name, v.day, v.visitor_id, v.page_views, v.browser, v.os, v.country, v.region]
      return recordOutcome(await conn.query<Row>(st.visit, values, 'write'))
    },

    async recordActivity(a) {
      const kinds = ACTIVITY_KINDS.map((k) => (k === a.kind ? 1 : 0))
      const values = [a.site_name, a.day, kinds, a.browser, a.os, a.country, a.region]
      return recordOutcome(await conn.query<Row>(st.activity, values, 'write'))
    },

    ...periodMethods(period),

    async mostTraffic(owner, from, to, limit) {
      if (from > to || limit < 1) return []
      const rows = await conn.query<Row>(st.mostTraffic, [owner, from, to, limit])
      return rows.map((r) => ({ site_name: r.site_name as string, data: trafficOf(r) })).sort(byVisits)
    },
  }
}

/** The period queries, for the schema `S` (quoted). Parameters: $1 site (or owner), $2 from day, $3 to day. */
export function analyticsQueries(S: string) {
  const site = `(SELECT id FROM ${S}.sites WHERE site_name = $1)`
  /**
   * The (visitor hash, system id, geo id) triples of `sites` (a condition on
   * site_id) from $2 to $3: the arrays of the site-days and their overflow.
   */
  const triples = (sites: string) => `
SELECT u.h, u.sys, u.geo
  FROM ${S}.site_days d, unnest(d.vis_hash, d.vis_sys, d.vis_geo) AS u(h, sys, geo)
 WHERE d.site_id ${sites} AND d.day BETWEEN $2 AND $3
UNION ALL
SELECT x.vh, x.sys_id, x.geo_id FROM ${S}.visitor_overflow x WHERE x.site_id ${sites} AND x.day BETWEEN $2 AND $3`
  /**
   * Per dimension value: sums and, for traffic, distinct visitors of that
   * value. Both come out of one aggregation over a UNION ALL (no join of two
   * aggregates, which a plan without statistics could nest and recompute).
   */
  const byValue = (dim: 0 | 1, traffic: boolean) => {
    const at = (n: number) => `d.dim_counts[(u.k - 1) * 5 + ${n}]`
    const names = traffic
      ? ['visits', 'page_views', 'unique_visitors']
      : ['click_to_call', 'click_to_map', 'click_to_email', 'form_submit']
    const counters = traffic ? [at(1), 'u.pages', '0'] : [at(2), at(3), at(4), at(5)]
    const visitors = traffic
      ? `
          UNION ALL
          SELECT z.${dim === 0 ? 'sys' : 'geo'}, 0, 0, count(DISTINCT z.h) FROM (${triples(`= ${site}`)}) z GROUP BY 1`
      : ''
    return `
SELECT v.k1, v.k2, t.*
  FROM (SELECT w.dim_id, ${names.map((n) => `sum(w.${n}) AS ${n}`).join(', ')}
          FROM (SELECT u.id AS dim_id, ${counters.map((c, i) => `${c} AS ${names[i]}`).join(', ')}
                  FROM ${S}.site_days d, unnest(d.dim_ids, d.dim_pages) WITH ORDINALITY AS u(id, pages, k)
                 WHERE d.site_id = ${site} AND d.day BETWEEN $2 AND $3${visitors}) w
         GROUP BY w.dim_id) t
  JOIN ${S}.dim_values v ON v.id = t.dim_id AND v.dim = ${dim}`
  }
  return {
    traffic: `
SELECT coalesce(sum(d.visits), 0) AS visits, coalesce(sum(d.page_views), 0) AS page_views,
       (SELECT count(DISTINCT w.h) FROM (${triples(`= ${site}`)}) w) AS unique_visitors
  FROM ${S}.site_days d
 WHERE d.site_id = ${site} AND d.day BETWEEN $2 AND $3`,
    activities: `
SELECT coalesce(sum(d.click_to_call), 0) AS click_to_call, coalesce(sum(d.click_to_map), 0) AS click_to_map,
       coalesce(sum(d.click_to_email), 0) AS click_to_email, coalesce(sum(d.form_submit), 0) AS form_submit
  FROM ${S}.site_days d
 WHERE d.site_id = ${site} AND d.day BETWEEN $2 AND $3`,
    trafficBySystem: byValue(0, true),
    trafficByGeo: byValue(1, true),
    activitiesBySystem: byValue(0, false),
    activitiesByGeo: byValue(1, false),
    /**
     * $1 owner, $4 limit. Sums the owner's site-days (an index-only scan of
     * site_days_by_owner), finds the visits of the limit-th site, joins names
     * only for the sites at or above it (the tie-break needs them), then reads
     * page views and distinct visitors for the winners only.
     */
    mostTraffic: `
WITH ranked AS (
  SELECT d.site_id, sum(d.visits) AS visits
    FROM ${S}.site_days d
   WHERE d.owner = $1 AND d.day BETWEEN $2 AND $3
   GROUP BY d.site_id
  HAVING sum(d.visits) > 0
), cutoff AS (
  SELECT visits FROM ranked ORDER BY visits DESC OFFSET $4 - 1 LIMIT 1
), top AS (
  SELECT r.site_id, s.site_name, r.visits
    FROM ranked r JOIN ${S}.sites s ON s.id = r.site_id
   WHERE r.visits >= coalesce((SELECT visits FROM cutoff), 0)
   ORDER BY r.visits DESC, s.site_name
   LIMIT $4
)
SELECT top.site_name, top.visits,
       (SELECT sum(d.page_views) FROM ${S}.site_days d WHERE d.site_id = top.site_id AND d.day BETWEEN $2 AND $3) AS page_views,
       (SELECT count(DISTINCT w.h) FROM (${triples('= top.site_id')}) w) AS unique_visitors
  FROM top`,
  }
}
