/**
 * In-memory analytics behind MemoryStore: one bucket per site and UTC day.
 *
 * A bucket keeps the visit and page-view counters, the activity counters, and
 * one cell per `system` value (browser, os) and per `geo` value (country,
 * region) seen that day (analytics-cells.ts). Each cell holds its own counters
 * and the exact set of visitors seen in it; the day's distinct visitors are the
 * union of its system cells (every visit lands in exactly one), so no third
 * set is kept.
 *
 * Memory is what this layout is shaped by:
 * - visitor ids are interned per site to small integers, so a set holds
 *   numbers (one number, a short array, or a typed-array hash set; see
 *   visitor-set.ts), and a union over any period is a pass over
 *   generation-stamped integers, not string hashing; past `exactVisitors`
 *   a site-day switches to HyperLogLog sketches (hll.ts) and interns nothing
 *   more, so a flood of random ids cannot grow the heap;
 * - dimension values are interned once per store to integer ids; the
 *   cells of a bucket are one flat array sorted by id, not Maps or objects.
 *
 * Ranking (most traffic) counts distinct visitors only for the winners. It
 * finds them in the owner's all-time visit order (visit-ranking.ts) when the
 * period holds all of the owner's visits, reading about as many sites as it
 * returns; otherwise it sums per-owner day lists of (site slot, visits), plain
 * numbers for every site.
 *
 * The records a site and an owner are kept in, and a site's days as the
 * state export and import see them, are analytics-site.ts'.
 */
import {
  OTHER,
  type ActivityEvent,
  type ActivityTotals,
  type AnalyticsDayDump,
  type Dimension,
  type PeriodRow,
  type TrafficTotals,
  type VisitEvent,
} from '../contract/index.js'
import { ACTIVITIES, TRAFFIC, dimensionRows } from '../shared/analytics-rows.js'
import { compareText } from '../shared/order.js'
import {
  countActivity,
  countSketchedVisit,
  countVisit,
  sketchCells,
  sumCells,
  uniteVisitors,
  PairDictionary,
  type CellTotals,
} from './analytics-cells.js'
import { AnalyticsCapture } from './analytics-capture.js'
import {
  activityTotals,
  Bucket,
  carriesSketch,
  dumpSite,
  KIND_INDEX,
  loadDay,
  namesOf,
  type OwnerData,
  type SiteData,
} from './analytics-site.js'
import { DayPeriod } from './day-period.js'
import { hashVisitor } from './hll.js'
import { VisitorUnion } from './visitor-set.js'
import { OwnerDay, VisitRanking, rankWinners } from './visit-ranking.js'

/** MemoryStore's default `exactVisitors`: honest sites stay exact. */
export const DEFAULT_EXACT_VISITORS = 10_000

/** In-memory analytics: one day bucket per site. All methods are synchronous. */
export class MemoryAnalytics {
  private readonly sites = new Map<string, SiteData>()
  private readonly owners = new Map<string, OwnerData>()
  private readonly systems = new PairDictionary()
  private readonly geos = new PairDictionary()
  private readonly union = new VisitorUnion()
  private readonly otherSystem = this.systems.id(OTHER, OTHER)
  private readonly otherGeo = this.geos.id(OTHER, OTHER)
  /** The first day kept by the last {@link dropBefore}: days are dropped once per new cutoff. */
  private keptFrom = ''
  /** Captures being dumped (see {@link capture}); each change to a site goes through {@link touch} first. */
  private readonly captures = new Set<AnalyticsCapture<SiteData>>()

  /**
   * `exactVisitors`: a site-day keeps its visitors exactly while its system
   * cells hold at most this many (about its distinct visitors), then
   * switches to HyperLogLog sketches (hll.ts); later visitors of that day
   * are hashed, never interned, so a flood of new ids grows nothing.
   */
  constructor(private readonly exactVisitors = DEFAULT_EXACT_VISITORS) {}

  /** How many visitor ids the site has interned and how many of its days are sketched (for tests). */
  visitorStats(site_name: string): { interned: number; sketchedDays: number } {
    const site = this.sites.get(site_name)
    let sketchedDays = 0
    for (const bucket of site?.days.values() ?? []) if (bucket.sketch !== undefined) sketchedDays++
    return { interned: site?.visitorIds.size ?? 0, sketchedDays }
  }

  /**
   * Adds a visit to its day bucket, its two cells and the ranking of `owner`,
   * the site's owner; a new dimension value past `cap` values that day is
   * counted under "(other)".
   */
  recordVisit(visit: VisitEvent, owner: string, cap = Number.POSITIVE_INFINITY): void {
    this.touch(visit.site_name)
    const site = this.siteData(visit.site_name, owner)
    const bucket = this.bucket(site, visit.day)
    const pages = visit.page_views
    bucket.visits += 1
    bucket.page_views += pages
    const sys = bucket.sys.at(this.systems, visit.browser, visit.os, cap, this.otherSystem)
    const geo = bucket.geo.at(this.geos, visit.country, visit.region, cap, this.otherGeo)
    if (bucket.sketch === undefined) {
      let visitor = site.visitorIds.get(visit.visitor_id)
      if (visitor === undefined) {
        visitor = site.visitorIds.size
        site.visitorIds.set(visit.visitor_id, visitor)
      }
      bucket.members += countVisit(bucket.sys.cells, sys, pages, visitor)
      countVisit(bucket.geo.cells, geo, pages, visitor)
      if (bucket.members > this.exactVisitors) this.toSketch(site, bucket)
    } else {
      hashVisitor(visit.visitor_id)
      bucket.sketch.addHashed()
      countSketchedVisit(bucket.sys.cells, sys, pages)
      countSketchedVisit(bucket.geo.cells, geo, pages)
    }
    this.countOwnerVisits(site, bucket, visit.day, 1)
  }

  /** Adds an activity to its day bucket and its two cells; `owner` and `cap` as {@link recordVisit}. */
  recordActivity(activity: ActivityEvent, owner: string, cap = Number.POSITIVE_INFINITY): void {
    this.touch(activity.site_name)
    const site = this.siteData(activity.site_name, owner)
    const bucket = this.bucket(site, activity.day)
    const kind = KIND_INDEX[activity.kind]
    const acts = (bucket.acts ??= [0, 0, 0, 0])
    acts[kind]! += 1
    const sys = bucket.sys.at(this.systems, activity.browser, activity.os, cap, this.otherSystem)
    countActivity(bucket.sys.cells, sys, kind)
    const geo = bucket.geo.at(this.geos, activity.country, activity.region, cap, this.otherGeo)
    countActivity(bucket.geo.cells, geo, kind)
  }

  /** Traffic over the days [from, to]: one row without a dimension, else one row per value with visits. */
  siteTraffic(site_name: string, from: string, to: string, dimension?: Dimension): PeriodRow<TrafficTotals>[] {
    const site = this.sites.get(site_name)
    if (dimension === undefined) return [{ key: [], data: this.traffic(site, new DayPeriod(from, to)) }]
    const rows: PeriodRow<TrafficTotals>[] = []
    for (const [id, sum] of this.sum(site, from, to, dimension)) {
      if (sum.visits === 0) continue
      this.union.start(site!.visitorIds.size, () => namesOf(site!))
      for (const visitors of sum.visitors) this.union.add(visitors)
      rows.push({
        key: this.dictionary(dimension).pair(id),
        data: { visits: sum.visits, page_views: sum.page_views, unique_visitors: this.union.count },
      })
    }
    return dimensionRows(TRAFFIC, rows)
  }

  /** Activities over the days [from, to]: one row without a dimension, else one row per value with activities. */
  siteActivities(site_name: string, from: string, to: string, dimension?: Dimension): PeriodRow<ActivityTotals>[] {
    const site = this.sites.get(site_name)
    if (dimension === undefined) {
      const counts = [0, 0, 0, 0]
      for (const bucket of site ? new DayPeriod(from, to).of(site.days) : [])
        if (bucket.acts !== undefined) for (let k = 0; k < 4; k++) counts[k]! += bucket.acts[k]!
      return [{ key: [], data: activityTotals(counts) }]
    }
    const rows = [...this.sum(site, from, to, dimension)].map(([id, sum]) => ({
      key: this.dictionary(dimension).pair(id),
      data: activityTotals(sum.acts),
    }))
    return dimensionRows(ACTIVITIES, rows)
  }

  /**
   * The owner's sites with visits in [from, to]: visits descending, then
   * site_name ascending, at most `limit`. The winners come from the owner's
   * all-time visit order when that can tell them (visit-ranking.ts), else
   * from a sum of the owner's day lists; buckets are then read only for them.
   */
  mostTraffic(owner: string, from: string, to: string, limit: number): { site_name: string; data: TrafficTotals }[] {
    const data = this.owners.get(owner)
    if (data === undefined || limit <= 0) return []
    const period = new DayPeriod(from, to)
    const winners = rankWinners(data, period, period.of(data.days), limit)
    return winners.map((slot) => {
      const site = data.sites[slot]!
      return { site_name: site.name, data: this.traffic(site, period) }
    })
  }

  /** A site's traffic over a period; zeros for a site without analytics. */
  private traffic(site: SiteData | undefined, period: DayPeriod): TrafficTotals {
    let visits = 0
    let page_views = 0
    this.union.start(site?.visitorIds.size ?? 0, () => (site ? namesOf(site) : []))
    for (const bucket of site ? period.of(site.days) : []) {
      visits += bucket.visits
      page_views += bucket.page_views
      if (bucket.sketch !== undefined) this.union.add(bucket.sketch)
      else uniteVisitors(this.union, bucket.sys.cells)
    }
    return { visits, page_views, unique_visitors: this.union.count }
  }

  /**
   * Drops every site-day before `first` (retention), whole days at a time,
   * with the owners' day lists and rankings. Runs once per new cutoff, i.e.
   * once per UTC day: a pass over the sites, not a cost per event.
   */
  dropBefore(first: string): void {
    if (first <= this.keptFrom) return
    this.keptFrom = first
    for (const capture of this.captures) capture.keepAll()
    for (const site of this.sites.values()) {
      for (const [day, bucket] of site.days) {
        if (day >= first) continue
        if (bucket.visits > 0) site.ownerData.ranking.add(site.slot, -bucket.visits)
        site.days.delete(day)
        if (site.last === bucket) site.last = undefined
      }
    }
    for (const owner of this.owners.values())
      for (const day of owner.days.keys()) if (day < first) owner.days.delete(day)
  }

  /** Forgets everything (a state reset). */
  clear(): void {
    for (const capture of this.captures) capture.keepAll()
    this.keptFrom = ''
    this.sites.clear()
    this.owners.clear()
  }

  /** Every site-day, sorted by site then day, visitors by id (a state export). */
  dump(): AnalyticsDayDump[] {
    const bySite = [...this.sites.values()].sort((a, b) => compareText(a.name, b.name))
    return bySite.flatMap((site) => dumpSite(site, this.systems, this.geos))
  }

  /**
   * The analytics as they are now, dumped a site at a time by the capture's
   * `next()` while calls go on (analytics-capture.ts). Sites come in no
   * particular order, each one's days sorted.
   */
  capture(): AnalyticsCapture<SiteData> {
    const capture: AnalyticsCapture<SiteData> = new AnalyticsCapture(
      this.sites,
      (site) => dumpSite(site, this.systems, this.geos),
      () => this.captures.delete(capture),
    )
    this.captures.add(capture)
    return capture
  }

  /** Before a change to the site's analytics: the captures in progress dump it first. */
  private touch(site_name: string): void {
    if (this.captures.size > 0) for (const capture of this.captures) capture.keep(site_name)
  }

  /**
   * Adds one exported site-day to `owner`'s site (a state import). Its
   * visitors are exact ids or this store's sketches (checked beforehand);
   * the day's own exact list is implied by its system cells. A day with a
   * sketch, or past the threshold once loaded, is sketched.
   */
  load(day: AnalyticsDayDump, owner: string): void {
    this.touch(day.site_name)
    const site = this.siteData(day.site_name, owner)
    const bucket = this.bucket(site, day.day)
    if (carriesSketch(day) && bucket.sketch === undefined) this.toSketch(site, bucket)
    const { systems, geos, otherSystem, otherGeo } = this
    loadDay(site, bucket, day, { systems, geos, otherSystem, otherGeo })
    if (bucket.sketch === undefined && bucket.members > this.exactVisitors) this.toSketch(site, bucket)
    if (day.visits > 0) this.countOwnerVisits(site, bucket, day.day, day.visits)
  }

  /** Forgets everything recorded for the owner's site (Delete Site). */
  dropSite(owner: string, site_name: string): void {
    const site = this.sites.get(site_name)
    if (site === undefined || site.owner !== owner) return
    this.touch(site_name)
    // Zeroed entries stay in the owner's day lists: a zero never ranks, and
    // removing them would mean renumbering every other bucket's rank.
    for (const { ownerDay, rank } of site.days.values()) {
      if (ownerDay === undefined) continue
      ownerDay.total -= ownerDay.visits[rank]!
      ownerDay.visits[rank] = 0
    }
    const data = site.ownerData
    data.ranking.remove(site.slot)
    data.sites[site.slot] = undefined
    data.free.push(site.slot)
    this.sites.delete(site_name)
  }

  private siteData(site_name: string, owner: string): SiteData {
    const known = this.sites.get(site_name)
    if (known !== undefined && known.owner === owner) return known
    // Same name, other owner: the old site was deleted and its name reused.
    if (known !== undefined) this.dropSite(known.owner, site_name)
    let data = this.owners.get(owner)
    if (data === undefined) {
      this.owners.set(owner, (data = { sites: [], free: [], days: new Map(), ranking: new VisitRanking() }))
    }
    const slot = data.free.pop() ?? data.sites.length
    const site: SiteData = {
      name: site_name,
      owner,
      ownerData: data,
      slot,
      days: new Map(),
      visitorIds: new Map(),
      names: [],
      lastDay: '',
      last: undefined,
    }
    data.sites[slot] = site
    this.sites.set(site_name, site)
    return site
  }

  private bucket(site: SiteData, day: string): Bucket {
    if (site.lastDay === day && site.last !== undefined) return site.last
    let bucket = site.days.get(day)
    if (bucket === undefined) site.days.set(day, (bucket = new Bucket()))
    site.lastDay = day
    site.last = bucket
    return bucket
  }

  /** Switches a site-day to sketches: the day's and every cell's visitors. */
  private toSketch(site: SiteData, bucket: Bucket): void {
    const names = namesOf(site)
    bucket.sketch = sketchCells(bucket.sys.cells, names)
    sketchCells(bucket.geo.cells, names)
  }

  private dictionary(dimension: Dimension): PairDictionary {
    return dimension === 'system' ? this.systems : this.geos
  }

  /** The cells of one dimension of the site's buckets in [from, to], added up by value id. */
  private sum(site: SiteData | undefined, from: string, to: string, dimension: Dimension): Map<number, CellTotals> {
    const buckets = site ? new DayPeriod(from, to).of(site.days) : []
    return sumCells(buckets.map((bucket) => (dimension === 'system' ? bucket.sys.cells : bucket.geo.cells)))
  }

  /**
   * Adds `visits` of the site on `day` to its owner's day list and all-time
   * ranking. A recorded visit (one) keeps the ranking current in O(1); an
   * imported day marks it to be rebuilt.
   */
  private countOwnerVisits(site: SiteData, bucket: Bucket, day: string, visits: number): void {
    let list = bucket.ownerDay
    if (list === undefined) {
      const { days } = site.ownerData
      list = days.get(day)
      if (list === undefined) days.set(day, (list = new OwnerDay()))
      bucket.ownerDay = list
      bucket.rank = list.append(site.slot, visits)
    } else {
      list.visits[bucket.rank]! += visits
      list.total += visits
    }
    site.ownerData.ranking.add(site.slot, visits)
  }
}
