/**
 * The assertions the analytics groups of the conformance suite share. Every
 * figure is exact for every store except distinct visitors, which a store
 * may estimate (see ConformanceOptions.uniqueVisitors).
 */
import type { PeriodRow, Store, TrafficTotals, VisitEvent } from '../../store/contract/index.js'
import { type Settings, type Tap, siteRecord } from './fixtures.js'

/** Traffic totals, in the contract's order: visits, page views, unique visitors. */
export function traffic(visits: number, page_views: number, unique_visitors: number): TrafficTotals {
  return { visits, page_views, unique_visitors }
}

/** No traffic at all. */
export const NONE: TrafficTotals = traffic(0, 0, 0)

/** The analytics assertions of one test, on its store, held to the suite's settings. */
export interface AnalyticsChecks {
  /** A distinct count: equal for an exact store; for an estimating one within 2 %, at least 1, above one visitor. */
  nearly(got: number, expected: number, message: string): void
  /** Traffic totals: visits and page views exactly, unique visitors as {@link AnalyticsChecks.nearly}. */
  traffic(got: TrafficTotals | undefined, expected: TrafficTotals, message: string): void
  /** The site's traffic over the days [from, to], without a dimension. */
  totals(site: string, from: string, to: string, expected: TrafficTotals, message: string): Promise<void>
  /** The rows' keys, in order; each expected key is written `first / second`. */
  keys(rows: PeriodRow<unknown>[], expected: string[], message?: string): void
  /** Creates the owner's sites: a store records only for sites that exist, under their owner. */
  createSites(owner: string, ...names: string[]): Promise<void>
  /** Records the visits all at once. */
  recordAll(events: VisitEvent[]): Promise<void>
}

/** The analytics assertions for a test `t` on `store`. */
export function analyticsChecks(t: Tap, store: Store, settings: Settings): AnalyticsChecks {
  const checks: AnalyticsChecks = {
    nearly(got, expected, message) {
      const slack = settings.uniqueVisitors === 'exact' || expected <= 1 ? 0 : Math.max(1, Math.ceil(expected * 0.02))
      t.ok(Math.abs(got - expected) <= slack, `${message}: ${got} ≈ ${expected} (±${slack})`)
    },

    traffic(got, expected, message) {
      t.ok(got, `${message}: present`)
      if (!got) return
      t.equal(got.visits, expected.visits, `${message}: visits`)
      t.equal(got.page_views, expected.page_views, `${message}: page_views`)
      checks.nearly(got.unique_visitors, expected.unique_visitors, `${message}: unique_visitors`)
    },

    async totals(site, from, to, expected, message) {
      const rows = await store.siteTraffic(site, from, to)
      checks.traffic(rows.length === 0 ? NONE : rows[0]!.data, expected, message)
    },

    keys(rows, expected, message = 'the keys, in order') {
      t.strictSame(
        rows.map((row) => row.key),
        expected.map((key) => key.split(' / ')),
        message,
      )
    },

    async createSites(owner, ...names) {
      for (const name of names) t.equal(await store.createSite(siteRecord(name, owner)), true, `created ${name}`)
    },

    async recordAll(events) {
      await Promise.all(events.map((event) => store.recordVisit(event)))
    },
  }
  return checks
}
