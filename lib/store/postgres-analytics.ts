/**
 * Analytics half of PostgresStore: per-day aggregate rows, so a period query
 * reads at most one row per day (and per dimension value), plus exact
 * distinct visitors. Every call is one statement: one round trip. The SQL is
 * in lib/store/postgres-analytics-sql.ts.
 */
import { ACTIVITY_KINDS, type ActivityKind } from '../../types/index.js'
import type {
  ActivityEvent,
  ActivityTotals,
  BuildState,
  Dimension,
  PeriodRow,
  RecordOutcome,
  TrafficTotals,
  VisitEvent,
} from './contract.js'
import { analyticsQueries } from './postgres-analytics-sql.js'
import { statement, type PgConn, type Statement } from './postgres-conn.js'

const KINDS: readonly ActivityKind[] = ACTIVITY_KINDS

type Row = Record<string, unknown>

/** Orders dimension keys element by element (UTF-16 code units, as MemoryStore does). */
function compareKeys(a: PeriodRow<unknown>, b: PeriodRow<unknown>): number {
  for (let i = 0; i < Math.min(a.key.length, b.key.length); i++) {
    const x = a.key[i] as string
    const y = b.key[i] as string
    if (x !== y) return x < y ? -1 : 1
  }
  return a.key.length - b.key.length
}

function traffic(row: Row | undefined): TrafficTotals {
  return {
    visits: Number(row?.visits ?? 0),
    page_views: Number(row?.page_views ?? 0),
    unique_visitors: Number(row?.unique_visitors ?? 0),
  }
}

function activities(row: Row | undefined): ActivityTotals {
  const out = {} as ActivityTotals
  for (const kind of KINDS) out[kind] = Number(row?.[kind] ?? 0)
  return out
}

function recordOutcome(rows: Row[]): RecordOutcome | undefined {
  const row = rows[0]
  if (row === undefined) return undefined
  return { owner: row.o_owner as string, build: row.o_build as BuildState }
}

/** The analytics methods of the Store contract, on PostgreSQL. */
export class PgAnalytics {
  private readonly st: Record<string, Statement>

  constructor(private readonly conn: PgConn) {
    const S = conn.s
    const q = analyticsQueries(S)
    this.st = {
      visit: statement(`SELECT o_owner, o_build FROM ${S}.record_visit($1, $2, $3, $4, $5, $6, $7, $8)`),
      activity: statement(`SELECT o_owner, o_build FROM ${S}.record_activity($1, $2, $3, $4, $5, $6, $7)`),
      traffic: statement(q.traffic),
      activities: statement(q.activities),
      trafficBysystem: statement(q.trafficBySystem),
      trafficBygeo: statement(q.trafficByGeo),
      activitiesBysystem: statement(q.activitiesBySystem),
      activitiesBygeo: statement(q.activitiesByGeo),
      mostTraffic: statement(q.mostTraffic),
    }
  }

  /** See {@link Store.recordVisit}. */
  async recordVisit(v: VisitEvent): Promise<RecordOutcome | undefined> {
    const rows = await this.conn.query<Row>(
      this.st.visit!,
      [v.site_name, v.day, v.visitor_id, v.page_views, v.browser, v.os, v.country, v.region],
      'write',
    )
    return recordOutcome(rows)
  }

  /** See {@link Store.recordActivity}. */
  async recordActivity(a: ActivityEvent): Promise<RecordOutcome | undefined> {
    const kinds = KINDS.map((k) => (k === a.kind ? 1 : 0))
    const rows = await this.conn.query<Row>(
      this.st.activity!,
      [a.site_name, a.day, kinds, a.browser, a.os, a.country, a.region],
      'write',
    )
    return recordOutcome(rows)
  }

  /** See {@link Store.siteTraffic}. */
  async siteTraffic(
    site: string,
    from: string,
    to: string,
    dimension?: Dimension,
  ): Promise<PeriodRow<TrafficTotals>[]> {
    if (from > to) return dimension ? [] : [{ key: [], data: traffic(undefined) }]
    if (!dimension) {
      const [row] = await this.conn.query<Row>(this.st.traffic!, [site, from, to])
      return [{ key: [], data: traffic(row) }]
    }
    const rows = await this.conn.query<Row>(this.st[`trafficBy${dimension}`]!, [site, from, to])
    return rows
      .map((r) => ({ key: [r.k1 as string, r.k2 as string], data: traffic(r) }))
      .filter((r) => r.data.visits > 0)
      .sort(compareKeys)
  }

  /** See {@link Store.siteActivities}. */
  async siteActivities(
    site: string,
    from: string,
    to: string,
    dimension?: Dimension,
  ): Promise<PeriodRow<ActivityTotals>[]> {
    if (from > to) return dimension ? [] : [{ key: [], data: activities(undefined) }]
    if (!dimension) {
      const [row] = await this.conn.query<Row>(this.st.activities!, [site, from, to])
      return [{ key: [], data: activities(row) }]
    }
    const rows = await this.conn.query<Row>(this.st[`activitiesBy${dimension}`]!, [site, from, to])
    return rows
      .map((r) => ({ key: [r.k1 as string, r.k2 as string], data: activities(r) }))
      .filter((r) => KINDS.some((k) => r.data[k] > 0))
      .sort(compareKeys)
  }

  /** See {@link Store.mostTraffic}. */
  async mostTraffic(
    owner: string,
    from: string,
    to: string,
    limit: number,
  ): Promise<{ site_name: string; data: TrafficTotals }[]> {
    if (from > to || limit < 1) return []
    const rows = await this.conn.query<Row>(this.st.mostTraffic!, [owner, from, to, limit])
    return rows
      .map((r) => ({ site_name: r.site_name as string, data: traffic(r) }))
      .sort(
        (a, b) => b.data.visits - a.data.visits || (a.site_name < b.site_name ? -1 : a.site_name > b.site_name ? 1 : 0),
      )
  }
}
