import { deepStrictEqual } from 'node:assert/strict'
import fc from 'fast-check'
import t from 'tap'
import { checkProperty, replayable } from '../helpers/fuzz-seed.js'
import type {
  ActivityEvent,
  ActivityTotals,
  Dimension,
  PeriodRow,
  TrafficTotals,
  VisitEvent,
} from '../../lib/store/contract/index.js'
import { MemoryAnalytics } from '../../lib/store/memory/analytics-buckets.js'
import { DistinctCounter, addInt, type IntSet } from '../../lib/store/memory/visitor-set.js'
import { visitEvent } from '../../lib/testing/conformance/fixtures.js'

replayable(t, import.meta.url)

t.test('distinct visitors are exact at every size', async (t) => {
  const analytics = new MemoryAnalytics()
  // 1, 2, 8, 9 and 5,000 visitors on a day cross every set representation.
  const sizes = [1, 2, 8, 9, 5000]
  sizes.forEach((size, d) => {
    for (let v = 0; v < size; v++) {
      analytics.recordVisit(visitEvent('s', `2024-01-0${d + 1}`, `v${v}`), 'o')
      analytics.recordVisit(visitEvent('s', `2024-01-0${d + 1}`, `v${v}`, { country: 'JP' }), 'o')
    }
  })
  sizes.forEach((size, d) => {
    const day = `2024-01-0${d + 1}`
    t.equal(analytics.siteTraffic('s', day, day)[0]!.data.unique_visitors, size, `${size} on one day`)
    t.strictSame(
      analytics.siteTraffic('s', day, day, 'geo').map((r) => r.data.unique_visitors),
      [size, size],
      `${size} per geo value`,
    )
  })
  t.equal(analytics.siteTraffic('s', '2024-01-01', '2024-01-05')[0]!.data.unique_visitors, 5000, 'union over the days')
  t.equal(analytics.mostTraffic('o', '2024-01-01', '2024-01-05', 1)[0]!.data.unique_visitors, 5000)
})

t.test('visitor ids are per site', async (t) => {
  const analytics = new MemoryAnalytics()
  analytics.recordVisit(visitEvent('a', '2024-01-01', 'same'), 'o')
  analytics.recordVisit(visitEvent('b', '2024-01-01', 'same'), 'o')
  analytics.recordVisit(visitEvent('b', '2024-01-01', 'other'), 'o')
  t.equal(analytics.siteTraffic('a', '2024-01-01', '2024-01-01')[0]!.data.unique_visitors, 1)
  t.equal(analytics.siteTraffic('b', '2024-01-01', '2024-01-01')[0]!.data.unique_visitors, 2)
})

t.test('dropped sites free their ranking slot for new sites', async (t) => {
  const analytics = new MemoryAnalytics()
  for (let i = 0; i < 3; i++) analytics.recordVisit(visitEvent('first', '2024-01-01', `v${i}`), 'o')
  analytics.recordVisit(visitEvent('second', '2024-01-01', 'v'), 'o')
  analytics.dropSite('someone-else', 'first')
  t.equal(analytics.siteTraffic('first', '2024-01-01', '2024-01-01')[0]!.data.visits, 3, 'another owner cannot drop it')
  analytics.dropSite('o', 'first')
  analytics.recordVisit(visitEvent('third', '2024-01-01', 'v'), 'o')
  analytics.recordVisit(visitEvent('third', '2024-01-01', 'w'), 'o')
  t.strictSame(
    analytics.mostTraffic('o', '2024-01-01', '2024-01-01', 10).map((r) => [r.site_name, r.data.visits]),
    [
      ['third', 2],
      ['second', 1],
    ],
    'the reused slot carries none of the dropped visits',
  )
})

t.test('a name recorded under a new owner starts afresh', async (t) => {
  const analytics = new MemoryAnalytics()
  analytics.recordVisit(visitEvent('s', '2024-01-01', 'a'), 'alice')
  analytics.recordVisit(visitEvent('s', '2024-01-01', 'b'), 'bob')
  t.equal(analytics.siteTraffic('s', '2024-01-01', '2024-01-01')[0]!.data.visits, 1)
  t.strictSame(analytics.mostTraffic('alice', '2024-01-01', '2024-01-01', 10), [])
  t.equal(analytics.mostTraffic('bob', '2024-01-01', '2024-01-01', 10).length, 1)
})

t.test('visitor sets: every representation, unions by stamps', async (t) => {
  const ids = fc.array(fc.oneof(fc.nat(40), fc.nat(20_000)), { maxLength: 3000 })
  t.doesNotThrow(() =>
    checkProperty(
      import.meta.url,
      fc.property(fc.array(ids, { minLength: 1, maxLength: 4 }), (lists) => {
        const sets: IntSet[] = lists.map((list) => list.reduce<IntSet>((set, id) => addInt(set, id), undefined))
        const counter = new DistinctCounter()
        counter.start(20_001)
        for (const set of sets) counter.add(set)
        deepStrictEqual(counter.count, new Set(lists.flat()).size)
        // Each set alone holds exactly its distinct ids.
        for (const [i, set] of sets.entries()) {
          counter.start(20_001)
          counter.add(set)
          deepStrictEqual(counter.count, new Set(lists[i]).size)
        }
      }),
      { numRuns: 200 },
    ),
  )
})

// ------------------------------------------------- model-based comparison

/** An event with the owner its site had when it was recorded. */
type Owned<E> = E & { owner: string }

/** The obvious implementation: keep every event, filter and group per query. */
class NaiveAnalytics {
  visits: Owned<VisitEvent>[] = []
  activities: Owned<ActivityEvent>[] = []
  drop(owner: string, site: string): void {
    if (!this.visits.concat(this.activities as never[]).some((e) => e.site_name === site && e.owner === owner)) return
    this.visits = this.visits.filter((e) => e.site_name !== site)
    this.activities = this.activities.filter((e) => e.site_name !== site)
  }
  keyOf(e: VisitEvent | ActivityEvent, dimension?: Dimension): string[] {
    return dimension === undefined ? [] : dimension === 'system' ? [e.browser, e.os] : [e.country, e.region]
  }
  traffic(site: string, from: string, to: string, dimension?: Dimension): PeriodRow<TrafficTotals>[] {
    const groups = new Map<string, VisitEvent[]>()
    for (const e of this.visits) {
      if (e.site_name !== site || e.day < from || e.day > to) continue
      const key = JSON.stringify(this.keyOf(e, dimension))
      groups.set(key, [...(groups.get(key) ?? []), e])
    }
    if (dimension === undefined && groups.size === 0) groups.set('[]', [])
    return [...groups]
      .map(([key, events]) => ({ key: JSON.parse(key) as string[], data: totalsOf(events) }))
      .sort(byKey)
  }
  activitiesOf(site: string, from: string, to: string, dimension?: Dimension): PeriodRow<ActivityTotals>[] {
    const groups = new Map<string, ActivityTotals>()
    if (dimension === undefined) groups.set('[]', zeroActs())
    for (const e of this.activities) {
      if (e.site_name !== site || e.day < from || e.day > to) continue
      const key = JSON.stringify(this.keyOf(e, dimension))
      const acts = groups.get(key) ?? zeroActs()
      acts[e.kind] += 1
      groups.set(key, acts)
    }
    return [...groups].map(([key, data]) => ({ key: JSON.parse(key) as string[], data })).sort(byKey)
  }
  most(owner: string, from: string, to: string, limit: number): { site_name: string; data: TrafficTotals }[] {
    const sites = new Set(
      this.visits.filter((e) => e.owner === owner && e.day >= from && e.day <= to).map((e) => e.site_name),
    )
    return [...sites]
      .map((site_name) => ({ site_name, data: this.traffic(site_name, from, to)[0]!.data }))
      .sort((a, b) => b.data.visits - a.data.visits || (a.site_name < b.site_name ? -1 : 1))
      .slice(0, limit)
  }
}

const zeroActs = (): ActivityTotals => ({ click_to_call: 0, click_to_map: 0, click_to_email: 0, form_submit: 0 })
const byKey = (a: PeriodRow<unknown>, b: PeriodRow<unknown>): number =>
  JSON.stringify(a.key) < JSON.stringify(b.key) ? -1 : 1
function totalsOf(events: VisitEvent[]): TrafficTotals {
  return {
    visits: events.length,
    page_views: events.reduce((sum, e) => sum + e.page_views, 0),
    unique_visitors: new Set(events.map((e) => e.visitor_id)).size,
  }
}

const day = fc
  .integer({ min: 0, max: 40 })
  .map((n) => new Date(Date.UTC(2024, 0, 25) + n * 86_400_000).toISOString().slice(0, 10))
const small = (values: string[]) => fc.constantFrom(...values)
const dims = {
  browser: small(['Chrome 120', 'Safari 17', 'Unknown']),
  os: small(['iOS', 'Android']),
  country: small(['US', 'JP', '__proto__']),
  region: small(['Unknown', 'Tokyo']),
}
const site = small(['s1', 's2', 's3', 'constructor'])
const owner = small(['alice', 'bob'])
const op = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      op: fc.constant('visit' as const),
      site_name: site,
      owner,
      day,
      visitor_id: small(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k']),
      page_views: fc.integer({ min: 1, max: 5 }),
      ...dims,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('activity' as const),
      site_name: site,
      owner,
      day,
      kind: small(['click_to_call', 'click_to_map', 'click_to_email', 'form_submit']) as fc.Arbitrary<
        ActivityEvent['kind']
      >,
      ...dims,
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('drop' as const), site_name: site, owner }) },
)
const query = fc.record({
  site_name: site,
  owner,
  from: day,
  to: day,
  dimension: fc.constantFrom(undefined, 'system' as const, 'geo' as const),
  limit: fc.integer({ min: 1, max: 4 }),
})

t.test('agrees with a naive model on random histories', async (t) => {
  // checkProperty throws the shrunk counterexample on the first disagreement.
  t.doesNotThrow(() =>
    checkProperty(
      import.meta.url,
      fc.property(fc.array(op, { maxLength: 120 }), fc.array(query, { minLength: 1, maxLength: 8 }), (ops, queries) => {
        const analytics = new MemoryAnalytics()
        const naive = new NaiveAnalytics()
        for (const { op: kind, ...event } of ops) {
          if (kind === 'drop') {
            analytics.dropSite(event.owner, event.site_name)
            naive.drop(event.owner, event.site_name)
            continue
          }
          // One owner per name, as the engine guarantees: the name's first recorded owner keeps it.
          const holder =
            [...naive.visits, ...naive.activities].find((e) => e.site_name === event.site_name)?.owner ?? event.owner
          const e = { ...event, owner: holder }
          if (kind === 'visit') {
            analytics.recordVisit(e as VisitEvent, holder)
            naive.visits.push(e as Owned<VisitEvent>)
          } else {
            analytics.recordActivity(e as ActivityEvent, holder)
            naive.activities.push(e as Owned<ActivityEvent>)
          }
        }
        for (const q of queries) {
          const [from, to] = q.from <= q.to ? [q.from, q.to] : [q.to, q.from]
          deepStrictEqual(
            analytics.siteTraffic(q.site_name, from, to, q.dimension),
            naive.traffic(q.site_name, from, to, q.dimension),
          )
          deepStrictEqual(
            analytics.siteActivities(q.site_name, from, to, q.dimension),
            naive.activitiesOf(q.site_name, from, to, q.dimension),
          )
          deepStrictEqual(analytics.mostTraffic(q.owner, from, to, q.limit), naive.most(q.owner, from, to, q.limit))
          // A period holding every visit is ranked from the all-time order instead of the day lists.
          const all = ['2024-01-01', '2024-12-31'] as const
          deepStrictEqual(analytics.mostTraffic(q.owner, ...all, q.limit), naive.most(q.owner, ...all, q.limit))
        }
      }),
      { numRuns: 300 },
    ),
  )
})
