// Most traffic is answered three ways: from the head of the owner's all-time
// visit order when the period holds every visit the owner has; by scoring
// sites down that order until no later one can rank; else by summing day
// lists. All must give the ranking a plain sum gives, through visits one at a
// time, imported days (bulk counts), deleted sites and reused ranking slots.
import { deepStrictEqual } from 'node:assert/strict'
import fc from 'fast-check'
import t from 'tap'
import { checkProperty, replayable } from '../helpers/fuzz-seed.js'
import type { AnalyticsDayDump } from '../../lib/store/contract/index.js'
import { MemoryAnalytics } from '../../lib/store/memory/analytics-buckets.js'
import { VisitRanking } from '../../lib/store/memory/visit-ranking.js'
import { visitEvent } from '../../lib/testing/conformance/fixtures.js'

replayable(t, import.meta.url)

const DAYS = ['2024-05-01', '2024-05-02', '2024-05-03', '2024-05-04']
const WHOLE = ['2024-01-01', '2024-12-31'] as const
const noActivity = { click_to_call: 0, click_to_map: 0, click_to_email: 0, form_submit: 0 }

/** An imported site-day of `visits` visits by one visitor. */
function importedDay(site_name: string, day: string, visits: number): AnalyticsDayDump {
  const cell = { visits, page_views: visits, activities: noActivity, visitors: ['imported'] }
  return {
    site_name,
    day,
    visits,
    page_views: visits,
    activities: noActivity,
    visitors: ['imported'],
    system: [{ key: ['Chrome 120', 'iOS'], ...cell }],
    geo: [{ key: ['US', 'Unknown'], ...cell }],
  }
}

/** Visits per site in [from, to], ranked the way the API ranks them. */
function naiveRanking(visits: Map<string, Map<string, number>>, from: string, to: string, limit: number) {
  const rows: [string, number][] = []
  for (const [site, days] of visits) {
    let sum = 0
    for (const [day, n] of days) if (day >= from && day <= to) sum += n
    if (sum > 0) rows.push([site, sum])
  }
  rows.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
  return rows.slice(0, limit)
}

// A few sites get most of the visits, as on the web: the all-time order can
// then pass over the rest, which exercises its bound as well as the plain sum.
const siteName = fc
  .oneof(
    { weight: 3, arbitrary: fc.integer({ min: 0, max: 3 }) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 24 }) },
  )
  .map((n) => (n === 0 ? '__proto__' : `site${n}`))
const dayName = fc.constantFrom(...DAYS)
const op = fc.oneof(
  { weight: 12, arbitrary: fc.record({ op: fc.constant('visit' as const), site: siteName, day: dayName }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('import' as const),
      site: siteName,
      day: dayName,
      visits: fc.integer({ min: 1, max: 6 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('drop' as const), site: siteName }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('rank' as const), limit: fc.integer({ min: 1, max: 12 }) }) },
)

t.test('both ways rank exactly as a plain sum does', async (t) => {
  t.doesNotThrow(() =>
    checkProperty(
      import.meta.url,
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const analytics = new MemoryAnalytics()
        const visits = new Map<string, Map<string, number>>()
        const add = (site: string, day: string, n: number) => {
          const days = visits.get(site) ?? new Map<string, number>()
          days.set(day, (days.get(day) ?? 0) + n)
          visits.set(site, days)
        }
        const check = (limit: number) => {
          deepStrictEqual(
            analytics.mostTraffic('owner', ...WHOLE, limit).map((r) => [r.site_name, r.data.visits]),
            naiveRanking(visits, ...WHOLE, limit),
          )
          // Only part of the visits in the period: the day lists answer.
          deepStrictEqual(
            analytics.mostTraffic('owner', DAYS[1]!, DAYS[2]!, limit).map((r) => [r.site_name, r.data.visits]),
            naiveRanking(visits, DAYS[1]!, DAYS[2]!, limit),
          )
        }
        for (const step of ops) {
          if (step.op === 'visit') {
            analytics.recordVisit(visitEvent(step.site, step.day, 'v'), 'owner')
            add(step.site, step.day, 1)
          } else if (step.op === 'import') {
            analytics.load(importedDay(step.site, step.day, step.visits), 'owner')
            add(step.site, step.day, step.visits)
          } else if (step.op === 'drop') {
            analytics.dropSite('owner', step.site)
            visits.delete(step.site)
          } else {
            check(step.limit)
          }
        }
        check(10)
      }),
      { numRuns: 400 },
    ),
  )
})

t.test('ties at the cut are broken by name, however many sites tie', async (t) => {
  const analytics = new MemoryAnalytics()
  // 500 sites with 2 visits, visited in reverse name order, then 3 with 3 visits.
  for (let i = 499; i >= 0; i--) {
    for (const day of DAYS.slice(0, 2))
      analytics.recordVisit(visitEvent(`s${String(i).padStart(3, '0')}`, day, 'v'), 'o')
  }
  for (const name of ['z1', 'z2', 'z3']) {
    for (const day of DAYS.slice(0, 3)) analytics.recordVisit(visitEvent(name, day, 'v'), 'o')
  }
  t.strictSame(
    analytics.mostTraffic('o', ...WHOLE, 6).map((r) => [r.site_name, r.data.visits]),
    [
      ['z1', 3],
      ['z2', 3],
      ['z3', 3],
      ['s000', 2],
      ['s001', 2],
      ['s002', 2],
    ],
  )
  t.strictSame(analytics.mostTraffic('o', ...WHOLE, 1)[0]!.data, { visits: 3, page_views: 3, unique_visitors: 1 })
})

/** Records `perDay(site, day)` visits for sites s0..s(n-1) on `days` consecutive days from 2024-01-01. */
function trafficOf(sites: number, days: number, perDay: (site: number, day: number) => number) {
  const analytics = new MemoryAnalytics()
  const visits = new Map<string, Map<string, number>>()
  for (let d = 0; d < days; d++) {
    const day = new Date(Date.UTC(2024, 0, 1 + d)).toISOString().slice(0, 10)
    for (let s = 0; s < sites; s++) {
      const name = `s${s}`
      const n = perDay(s, d)
      for (let v = 0; v < n; v++) analytics.recordVisit(visitEvent(name, day, `v${v}`), 'o')
      if (n > 0) visits.set(name, (visits.get(name) ?? new Map()).set(day, n))
    }
  }
  return { analytics, visits }
}

t.test('the last weeks of a long history rank as a plain sum does, however the visits are spread', async (t) => {
  let seed = 7
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  const spreads = {
    // Every site about the same: the all-time order can pass over almost none.
    even: () => 1 + Math.floor(random() * 3),
    // A few sites take most visits: it passes over almost all.
    skewed: (s: number) => Math.floor(40 / (s + 1) + random()),
    // Popular before the period and quiet in it: all-time order misleads.
    faded: (s: number, d: number) => (d < 40 ? Math.floor(40 / (s + 1)) : s % 7),
  }
  for (const [spread, perDay] of Object.entries(spreads)) {
    const { analytics, visits } = trafficOf(400, 60, perDay)
    for (const [from, to] of [
      ['2024-02-01', '2024-02-29'],
      ['2024-02-20', '2024-02-20'],
      ['2024-03-05', '2024-03-09'],
    ] as const) {
      t.strictSame(
        analytics.mostTraffic('o', from, to, 10).map((r) => [r.site_name, r.data.visits]),
        naiveRanking(visits, from, to, 10),
        `${spread}, ${from} to ${to}`,
      )
    }
  }
})

t.test(
  'the all-time order scores about `limit` sites when visits are skewed, and gives up early when even',
  async (t) => {
    const ranking = new VisitRanking()
    const sites = 10_000
    // All-time visits fall with the slot; the period holds 9 in 10 of each site's.
    for (let slot = 0; slot < sites; slot++) ranking.add(slot, Math.floor(100_000 / (slot + 1)) + 1)
    const nameOf = (slot: number) => `s${String(slot).padStart(5, '0')}`
    let scored = 0
    const top = ranking.topBounded(
      10,
      (slot) => (scored++, Math.floor((ranking.visitsOf(slot) * 9) / 10)),
      nameOf,
      1000,
    )
    t.strictSame(top, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    t.ok(scored < 20, `scored ${scored} sites`)

    const even = new VisitRanking()
    for (let slot = 0; slot < sites; slot++) even.add(slot, 60 + (slot % 5))
    scored = 0
    t.equal(
      even.topBounded(10, () => (scored++, 30), nameOf, 1000),
      undefined,
      'every site could still rank: over budget',
    )
    t.ok(scored <= 10, `gave up after scoring ${scored} sites`)
    scored = 0
    t.equal(
      even.topBounded(10, () => (scored++, 0), nameOf, 1000),
      undefined,
      'no site has visits in the period',
    )
    t.equal(scored, 1000, 'gives up at the budget')
  },
)
