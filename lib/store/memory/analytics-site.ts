/**
 * What MemoryAnalytics keeps for one site (its day buckets, its interned
 * visitors) and for one owner (the ranking state), and one site's days as
 * the state export dumps them and the state import loads them. The
 * recording and the queries are analytics-buckets.ts'.
 */
import type { ActivityKind } from '../../../types/index.js'
import type { ActivityTotals, AnalyticsCellDump, AnalyticsDayDump, VisitorsDump } from '../contract/index.js'
import { activityTotals as totalsOf } from '../shared/analytics-rows.js'
import { compareKeys } from '../shared/order.js'
import { addToSketch, cellsOf, Dim, loadCell, membersIn, type Cells, type PairDictionary } from './analytics-cells.js'
import { Hll } from './hll.js'
import { membersOf } from './visitor-set.js'
import type { OwnerDay, VisitRanking } from './visit-ranking.js'

/** A dumped cell's or day's sketch, when it has no exact list (validated by the state import). */
export function sketchOnly(cell: VisitorsDump): Hll | undefined {
  return cell.visitors === undefined && cell.visitors_sketch !== undefined
    ? Hll.fromDump(cell.visitors_sketch)
    : undefined
}

/** The site's visitor ids by interned id (ids are dense and Map order is insertion order). */
export function namesOf(site: SiteData): string[] {
  if (site.names.length !== site.visitorIds.size) site.names = [...site.visitorIds.keys()]
  return site.names
}

/** Where each activity kind is counted in a bucket's or a cell's `acts`. */
export const KIND_INDEX: Readonly<Record<ActivityKind, number>> = {
  click_to_call: 0,
  click_to_map: 1,
  click_to_email: 2,
  form_submit: 3,
}

/** One site on one UTC day. */
export class Bucket {
  visits = 0
  page_views = 0
  acts: number[] | undefined = undefined
  readonly sys = new Dim()
  readonly geo = new Dim()
  /** Where this bucket's visits sit in its owner's day list (set on the first visit). */
  ownerDay: OwnerDay | undefined = undefined
  rank = -1
  /** Visitors in the system cells, added up (at least the distinct visitors): what the threshold bounds. */
  members = 0
  /** The day's visitors once past the threshold; then every cell's visitors are sketches too. */
  sketch: Hll | undefined = undefined
}

/** Everything recorded for one site. */
export interface SiteData {
  name: string
  owner: string
  ownerData: OwnerData
  slot: number
  days: Map<string, Bucket>
  /** visitor_id → interned integer, dense from 0. */
  visitorIds: Map<string, number>
  /**
   * The interned ids' visitor ids, by interned id: built when a sketch needs
   * them (see namesOf), not kept up to date, which would cost 8 bytes an id.
   */
  names: string[]
  /** The bucket written last: consecutive events mostly share a day. */
  lastDay: string
  last: Bucket | undefined
}

/** Per-owner ranking state: each site has a slot; slots of dropped sites are reused. */
export interface OwnerData {
  sites: (SiteData | undefined)[]
  free: number[]
  days: Map<string, OwnerDay>
  /** The slots by all-time visits. */
  ranking: VisitRanking
}

/** Activity totals of counts kept by {@link KIND_INDEX}. */
export function activityTotals(counts: readonly number[] | undefined): ActivityTotals {
  return totalsOf((kind) => counts?.[KIND_INDEX[kind]])
}

/** The two dimensions' value dictionaries, and the id of "(other)" in each. */
export interface Dictionaries {
  systems: PairDictionary
  geos: PairDictionary
  otherSystem: number
  otherGeo: number
}

/** One site's days, sorted by day, visitors by id. */
export function dumpSite(site: SiteData, systems: PairDictionary, geos: PairDictionary): AnalyticsDayDump[] {
  const out: AnalyticsDayDump[] = []
  const ids = [...site.visitorIds.keys()]
  const cells = (flat: Cells, dictionary: PairDictionary): AnalyticsCellDump[] =>
    cellsOf(flat)
      .map((cell) => ({
        key: dictionary.pair(cell.id),
        visits: cell.visits,
        page_views: cell.page_views,
        activities: activityTotals(cell.acts),
        ...(cell.visitors instanceof Hll
          ? { visitors_sketch: cell.visitors.toDump() }
          : {
              visitors: membersOf(cell.visitors)
                .map((n) => ids[n]!)
                .sort(),
            }),
      }))
      .sort((a, b) => compareKeys(a.key, b.key))
  for (const day of [...site.days.keys()].sort()) {
    const bucket = site.days.get(day)!
    const system = cells(bucket.sys.cells, systems)
    out.push({
      site_name: site.name,
      day,
      visits: bucket.visits,
      page_views: bucket.page_views,
      activities: activityTotals(bucket.acts),
      ...(bucket.sketch !== undefined
        ? { visitors_sketch: bucket.sketch.toDump() }
        : { visitors: [...new Set(system.flatMap((cell) => cell.visitors!))].sort() }),
      system,
      geo: cells(bucket.geo.cells, geos),
    })
  }
  return out
}

/** Whether an exported site-day carries a sketch anywhere: then it loads into a sketched bucket. */
export function carriesSketch(day: AnalyticsDayDump): boolean {
  return [day, ...day.system, ...day.geo].some((cell) => sketchOnly(cell) !== undefined)
}

/**
 * Adds one exported site-day's counters, cells and visitors to the site's
 * bucket of that day (sketched already if the day {@link carriesSketch}).
 * Exact visitor ids are interned in the site; an exact bucket's `members`
 * is counted again, for the caller to compare with its threshold.
 */
export function loadDay(site: SiteData, bucket: Bucket, day: AnalyticsDayDump, dictionaries: Dictionaries): void {
  const { systems, geos, otherSystem, otherGeo } = dictionaries
  const intern = (id: string): number => {
    let n = site.visitorIds.get(id)
    if (n === undefined) site.visitorIds.set(id, (n = site.visitorIds.size))
    return n
  }
  const counts = (a: ActivityTotals): number[] => [a.click_to_call, a.click_to_map, a.click_to_email, a.form_submit]
  const view = (cell: AnalyticsCellDump) => ({
    visits: cell.visits,
    page_views: cell.page_views,
    visitors: bucket.sketch === undefined ? (cell.visitors ?? []).map(intern) : undefined,
    acts: counts(cell.activities).some((n) => n > 0) ? counts(cell.activities) : undefined,
  })
  bucket.visits += day.visits
  bucket.page_views += day.page_views
  if (counts(day.activities).some((n) => n > 0)) {
    const acts = (bucket.acts ??= [0, 0, 0, 0])
    counts(day.activities).forEach((n, k) => (acts[k]! += n))
  }
  // An import keeps every value it is given: the cap applies to recording.
  const all = Number.POSITIVE_INFINITY
  const sketch = bucket.sketch
  for (const cell of day.system) {
    const at = bucket.sys.at(systems, ...cell.key, all, otherSystem)
    loadCell(bucket.sys.cells, at, view(cell))
    if (sketch !== undefined) sketch.merge(addToSketch(bucket.sys.cells, at, cell.visitors ?? [], sketchOnly(cell)))
  }
  for (const cell of day.geo) {
    const at = bucket.geo.at(geos, ...cell.key, all, otherGeo)
    loadCell(bucket.geo.cells, at, view(cell))
    if (sketch !== undefined) addToSketch(bucket.geo.cells, at, cell.visitors ?? [], sketchOnly(cell))
  }
  if (sketch !== undefined) {
    for (const id of day.visitors ?? []) sketch.add(id)
    const own = sketchOnly(day)
    if (own !== undefined) sketch.merge(own)
  } else {
    bucket.members = membersIn(bucket.sys.cells)
  }
}
