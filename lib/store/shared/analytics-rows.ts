/**
 * What every store's analytics answers share: the two measures (traffic and
 * activities), which dimension rows the contract keeps and in what order, and
 * the order of the most-traffic ranking.
 */
import { ACTIVITY_KINDS } from '../../../types/index.js'
import type {
  ActivityTotals,
  Dimension,
  PeriodRow,
  RecordedEvent,
  TrafficTotals,
  VisitEvent,
} from '../contract/index.js'
import type { AnalyticsStore } from '../contract/analytics.js'
import { compareKeys, compareText } from './order.js'

/** What a period query adds up, and which dimension values it reports. */
export interface Measure<T> {
  /** `siteTraffic` or `siteActivities`. */
  name: 'traffic' | 'activities'
  /** Whether a dimension value counts: only values with data are rows. */
  counted(data: T): boolean
}

/** siteTraffic: a dimension value is a row when it has visits. */
export const TRAFFIC: Measure<TrafficTotals> = { name: 'traffic', counted: (data) => data.visits > 0 }

/** siteActivities: a dimension value is a row when it has any activity. */
export const ACTIVITIES: Measure<ActivityTotals> = {
  name: 'activities',
  counted: (data) => ACTIVITY_KINDS.some((kind) => data[kind] > 0),
}

/** Activity totals of nothing. */
export function zeroActivities(): ActivityTotals {
  return { click_to_call: 0, click_to_map: 0, click_to_email: 0, form_submit: 0 }
}

/** Activity totals read from any source of counts by kind; a missing count is 0. */
export function activityTotals(count: (kind: keyof ActivityTotals) => number | undefined): ActivityTotals {
  const out = zeroActivities()
  for (const kind of ACTIVITY_KINDS) out[kind] = count(kind) ?? 0
  return out
}

/** The rows of a query by dimension as the contract has them: values with data only, sorted by key. */
export function dimensionRows<T>(measure: Measure<T>, rows: PeriodRow<T>[]): PeriodRow<T>[] {
  return rows.filter((row) => measure.counted(row.data)).sort((a, b) => compareKeys(a.key, b.key))
}

/**
 * A store's one period query, serving both measures: the measure's totals
 * over the days [from, to], as one row without a dimension and one row per
 * dimension value with one.
 */
export type PeriodQuery = <T>(
  measure: Measure<T>,
  site_name: string,
  from: string,
  to: string,
  dimension?: Dimension,
) => Promise<PeriodRow<T>[]>

/** siteTraffic and siteActivities of a store that answers both with one {@link PeriodQuery}. */
export function periodMethods(query: PeriodQuery): Pick<AnalyticsStore, 'siteTraffic' | 'siteActivities'> {
  return {
    siteTraffic: (site_name, from, to, dimension) => query(TRAFFIC, site_name, from, to, dimension),
    siteActivities: (site_name, from, to, dimension) => query(ACTIVITIES, site_name, from, to, dimension),
  }
}

/** The most-traffic order: visits descending, then site_name ascending. */
export function byVisits(
  a: { site_name: string; data: TrafficTotals },
  b: { site_name: string; data: TrafficTotals },
): number {
  return b.data.visits - a.data.visits || compareText(a.site_name, b.site_name)
}

const FIRST_DAY_MS = Date.parse('0001-01-01T00:00:00Z')

/**
 * The first day kept under a retention of `days` counted back from `today`
 * (both `YYYY-MM-DD`, today included), or undefined when nothing expires.
 */
export function retentionStart(today: string, days: number | undefined): string | undefined {
  if (days === undefined || !Number.isFinite(days)) return undefined
  const ms = Date.parse(`${today}T00:00:00Z`) - (Math.max(1, Math.floor(days)) - 1) * 86_400_000
  if (!(ms >= FIRST_DAY_MS)) return undefined
  return new Date(ms).toISOString().slice(0, 10)
}

/** Whether a {@link RecordedEvent} is a visit (activities carry a `kind` instead of a visitor). */
export function isVisit(event: RecordedEvent): event is VisitEvent {
  return (event as VisitEvent).visitor_id !== undefined
}
