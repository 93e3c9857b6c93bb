/**
 * The analytics part of the Store contract: visits and activities recorded
 * per site and UTC day, and the period queries over them. Conventions: see
 * index.ts.
 */
import type { ActivityKind } from '../../../types/index.js'
import type { Operations } from './shared.js'
import type { BuildState } from './sites.js'

/** The analytics dimensions (`dimension` of Get Site Analytics). */
export type Dimension = 'system' | 'geo'

/**
 * One visit, already reduced by the engine to its day bucket and dimension
 * values (browser "<name> <major>", OS name, country, region; "Unknown" where
 * not known). It names no owner: the store reads it from the site record in
 * the same atomic step that records the visit (see {@link AnalyticsStore.recordVisit}).
 */
export interface VisitEvent {
  site_name: string
  day: string
  visitor_id: string
  page_views: number
  browser: string
  os: string
  country: string
  region: string
}

/** One activity, reduced like {@link VisitEvent}. */
export interface ActivityEvent {
  site_name: string
  day: string
  kind: ActivityKind
  browser: string
  os: string
  country: string
  region: string
}

/**
 * What {@link AnalyticsStore.recordVisit} and {@link AnalyticsStore.recordActivity} answer: the
 * owner and build state of the site the event was recorded for, as they were
 * when it was recorded.
 */
export interface RecordOutcome {
  owner: string
  build: BuildState
}

/** One event of a {@link AnalyticsStore.recordEvents} batch: a visit or an activity. */
export type RecordedEvent = VisitEvent | ActivityEvent

/** The value every dimension value past the cap is folded into (both parts of the key). */
export const OTHER = '(other)'

/** How a {@link AnalyticsStore.recordEvents} batch is recorded. */
export interface RecordOptions {
  /**
   * At most this many distinct values per dimension (`system`, `geo`) per
   * site-day; an event bringing a new value past it is counted under
   * `["(other)", "(other)"]` ({@link OTHER}) instead. That key itself is not
   * counted against the cap, so a day holds at most `maxDimensionValues + 1`
   * rows per dimension.
   */
  maxDimensionValues: number
  /**
   * Days kept: events of days before `today - retentionDays + 1` are not
   * recorded, and the store may drop whole days older than that (Redis: key
   * expiry; PostgreSQL: whole days deleted in batches off the hot path;
   * memory: whole days dropped). Undefined: kept forever.
   */
  retentionDays?: number
  /** The engine clock's UTC day (`YYYY-MM-DD`), from which retention counts back. */
  today: string
}

/** Traffic totals of a period (lower-case; the engine renames them for the API). */
export interface TrafficTotals {
  visits: number
  page_views: number
  /**
   * Distinct visitor_ids over the whole period (and dimension value). A memory
   * store counts exactly up to its `exactVisitors` threshold per site-day
   * (default 10,000), then estimates like Redis; a shared store may estimate
   * (Redis HyperLogLog: about 0.81 % standard error), and the conformance
   * suite allows 2 % from 1,000 up.
   */
  unique_visitors: number
}

/** Activity totals of a period, keyed by {@link ActivityKind}. */
export type ActivityTotals = Record<ActivityKind, number>

/**
 * One row of a period query. Without a dimension there is exactly one row and
 * `key` is `[]`; with `system` the key is `[browser, os]`, with `geo` it is
 * `[country, region]`. Rows come sorted by key.
 */
export interface PeriodRow<T> {
  key: string[]
  data: T
}

/** Recording visits and activities, and the period queries over them. */
export interface AnalyticsStore {
  /**
   * Adds a visit to the site's day bucket and its owner's ranking, and answers
   * the site's owner and build state. Finding the site and recording are ONE
   * atomic step, so a visit is never recorded for a site that does not exist
   * (or was deleted meanwhile) and never ranks under a former owner.
   * Undefined, with nothing recorded, when no site has that name. No
   * cardinality cap or retention applies: the engine records through
   * {@link AnalyticsStore.recordEvents}; this stays for single events and older callers.
   */
  recordVisit(visit: VisitEvent): Promise<RecordOutcome | undefined>
  /** Adds an activity to the site's day bucket; otherwise as {@link AnalyticsStore.recordVisit}. */
  recordActivity(activity: ActivityEvent): Promise<RecordOutcome | undefined>
  /**
   * Records a batch of visits and activities, in order, each as
   * {@link AnalyticsStore.recordVisit} / {@link AnalyticsStore.recordActivity} would (each event
   * is atomic with the read of its site), under the cardinality cap and
   * retention of `options`, and answers one outcome per event, in order
   * (undefined for an event whose site does not exist: nothing recorded for
   * it). One round trip on a shared store: the engine sends every recording of
   * an event-loop turn as one batch.
   */
  recordEvents(events: readonly RecordedEvent[], options: RecordOptions): Promise<(RecordOutcome | undefined)[]>
  /** Traffic of the site over the days [from, to], grouped by the dimension if given. */
  siteTraffic(site_name: string, from: string, to: string, dimension?: Dimension): Promise<PeriodRow<TrafficTotals>[]>
  /** Activities of the site over the days [from, to], grouped by the dimension if given. */
  siteActivities(
    site_name: string,
    from: string,
    to: string,
    dimension?: Dimension,
  ): Promise<PeriodRow<ActivityTotals>[]>
  /**
   * The owner's sites with at least one visit in [from, to], by visits
   * descending, ties by site_name ascending, at most `limit` rows.
   */
  mostTraffic(
    owner: string,
    from: string,
    to: string,
    limit: number,
  ): Promise<{ site_name: string; data: TrafficTotals }[]>
}

/** The methods of {@link AnalyticsStore}, as {@link Operations} lists them. */
export const ANALYTICS_OPERATIONS = {
  recordVisit: 'write',
  recordActivity: 'write',
  recordEvents: 'write',
  siteTraffic: 'read',
  siteActivities: 'read',
  mostTraffic: 'read',
} as const satisfies Operations<AnalyticsStore>
