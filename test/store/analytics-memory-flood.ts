/**
 * MemoryStore's bound on visitor memory (issue 23): a site-day keeps its
 * visitors exactly up to `exactVisitors`, then in HyperLogLog sketches; ids
 * past the threshold are hashed, never interned, so a flood of random
 * visitor ids stops growing the intern table and the sets.
 */
import t from 'tap'
import { MemoryAnalytics } from '../../lib/store/memory/analytics-buckets.js'
import { MemoryStore } from '../../lib/store/memory/store.js'
import { siteRecord, visitEvent } from '../../lib/testing/conformance/fixtures.js'
import { adminServer } from '../helpers/testing.js'

const DAY = '2024-03-01'
/**
 * Distinct visitor ids, as a flood of forged beacons sends them. Fixed rather
 * than random, so the estimates (0.81 % standard error) are the same every
 * run: an assertion at 2 % of a random sample would fail about one run in 80.
 */
const floodIds = (n: number, tag: string): string[] => Array.from({ length: n }, (_, i) => `${tag}-${i.toString(36)}`)
const within2 = (actual: number, expected: number) => Math.abs(actual - expected) <= expected * 0.02

t.test(
  'a flood of 200,000 random visitor ids: interning stops at the threshold, the count stays within 2 %',
  async (t) => {
    const analytics = new MemoryAnalytics(1000)
    const ids = floodIds(200_000, 'a')
    ids.forEach((id, i) => {
      analytics.recordVisit(visitEvent('s', DAY, id, { country: i % 2 === 0 ? 'US' : 'FR' }), 'o')
      if (i === 999) t.strictSame(analytics.visitorStats('s'), { interned: 1000, sketchedDays: 0 }, 'exact up to 1,000')
    })
    t.strictSame(analytics.visitorStats('s'), { interned: 1001, sketchedDays: 1 }, 'nothing interned past the switch')
    const [total] = analytics.siteTraffic('s', DAY, DAY)
    t.equal(total!.data.visits, 200_000, 'every visit counted')
    t.ok(within2(total!.data.unique_visitors, 200_000), `unique visitors ${total!.data.unique_visitors} ≈ 200,000`)
    for (const row of analytics.siteTraffic('s', DAY, DAY, 'geo'))
      t.ok(within2(row.data.unique_visitors, 100_000), `${row.key[0]}: ${row.data.unique_visitors} ≈ 100,000`)
    // The same ids again: a sketch, like a set, counts each once.
    for (const id of ids.slice(0, 50_000)) analytics.recordVisit(visitEvent('s', DAY, id), 'o')
    t.ok(within2(analytics.siteTraffic('s', DAY, DAY)[0]!.data.unique_visitors, 200_000), 'repeats add nothing')
    t.equal(analytics.visitorStats('s').interned, 1001, 'and intern nothing')
  },
)

t.test('exact up to the threshold, estimated just past it', async (t) => {
  const analytics = new MemoryAnalytics(500)
  for (let v = 0; v < 500; v++) analytics.recordVisit(visitEvent('s', DAY, `v${v}`), 'o')
  t.equal(analytics.siteTraffic('s', DAY, DAY)[0]!.data.unique_visitors, 500, 'exact at the threshold')
  t.equal(analytics.visitorStats('s').sketchedDays, 0)
  analytics.recordVisit(visitEvent('s', DAY, 'v500'), 'o')
  t.equal(analytics.visitorStats('s').sketchedDays, 1, 'one more visitor: sketched')
  t.ok(within2(analytics.siteTraffic('s', DAY, DAY)[0]!.data.unique_visitors, 501), 'and still about right')
})

t.test('a period uniting exact days and sketched days counts shared visitors once', async (t) => {
  const analytics = new MemoryAnalytics(1000)
  const flood = floodIds(30_000, 'b')
  for (let v = 0; v < 800; v++) analytics.recordVisit(visitEvent('s', '2024-03-01', `v${v}`), 'o')
  // Day 2 is flooded and also sees the 800 visitors of day 1.
  for (let v = 0; v < 800; v++) analytics.recordVisit(visitEvent('s', '2024-03-02', `v${v}`), 'o')
  for (const id of flood) analytics.recordVisit(visitEvent('s', '2024-03-02', id), 'o')
  // Day 3 is exact and has 800 others.
  for (let v = 800; v < 1600; v++) analytics.recordVisit(visitEvent('s', '2024-03-03', `v${v}`), 'o')
  t.equal(analytics.visitorStats('s').sketchedDays, 1)
  t.equal(analytics.siteTraffic('s', '2024-03-01', '2024-03-01')[0]!.data.unique_visitors, 800, 'an exact day alone')
  t.equal(analytics.siteTraffic('s', '2024-03-01', '2024-03-03', undefined)[0]!.data.visits, 800 + 30_800 + 800)
  const unique = analytics.siteTraffic('s', '2024-03-01', '2024-03-03')[0]!.data.unique_visitors
  t.ok(within2(unique, 31_600), `exact ∪ sketch ∪ exact: ${unique} ≈ 31,600 (not 32,400)`)
  const system = analytics.siteTraffic('s', '2024-03-01', '2024-03-03', 'system')
  t.equal(system.length, 1)
  t.ok(within2(system[0]!.data.unique_visitors, 31_600), 'so does a dimension cell')
  t.equal(analytics.mostTraffic('o', '2024-03-01', '2024-03-03', 1)[0]!.data.unique_visitors, unique, 'and the ranking')
})

t.test('sketched days round-trip through exportState/importState', async (t) => {
  const store = new MemoryStore({ exactVisitors: 100 })
  await store.createSite(siteRecord('s', 'alice'))
  for (const id of floodIds(5000, 'c')) await store.recordVisit(visitEvent('s', DAY, id))
  for (let v = 0; v < 50; v++) await store.recordVisit(visitEvent('s', '2024-03-02', `v${v}`))
  const dump = await store.exportState()
  const flooded = dump.analytics.find((d) => d.day === DAY)!
  t.equal(typeof flooded.visitors_sketch, 'string', 'the flooded day is a sketch')
  t.equal(flooded.visitors, undefined)
  t.equal(typeof flooded.system[0]!.visitors_sketch, 'string', 'so are its cells')
  // The state schema (admin /state, --state files) takes a sketch as plain base64.
  t.match(flooded.visitors_sketch, /^[A-Za-z0-9+/]*={0,2}$/, 'a sketch is base64')
  t.ok(flooded.visitors_sketch!.length <= 100_000, 'within the schema bound')
  t.strictSame(dump.analytics.find((d) => d.day === '2024-03-02')!.visitors?.length, 50, 'the quiet day stays exact')
  const before = await store.siteTraffic('s', DAY, '2024-03-02')
  t.ok(within2(before[0]!.data.unique_visitors, 5050))
  for (const copy of [new MemoryStore({ exactVisitors: 100 }), new MemoryStore()]) {
    await copy.importState(dump)
    t.strictSame(await copy.exportState(), dump, 'the export of the import is the dump')
    t.strictSame(await copy.siteTraffic('s', DAY, '2024-03-02'), before, 'and counts the same')
  }
  await store.close()
})

t.test('exactVisitors must be a non-negative integer', async (t) => {
  for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])
    t.throws(() => new MemoryStore({ exactVisitors: bad }), TypeError, String(bad))
  t.doesNotThrow(() => new MemoryStore({ exactVisitors: 0 }))
})

t.test('a sketched day survives the test double snapshot and seed over HTTP', async (t) => {
  let store: MemoryStore | undefined
  const f = await adminServer(t, { name: 'memory', make: () => (store = new MemoryStore({ exactVisitors: 5 })) })
  await store!.createSite(siteRecord('flooded', 'alice'))
  for (const id of floodIds(50, 'd')) await store!.recordVisit(visitEvent('flooded', DAY, id))
  const snap = (await f.http.get('/__admin/snapshot').expect(200)).body
  t.ok(JSON.stringify(snap).includes('visitors_sketch'), 'the snapshot holds the sketch')
  await f.http.post('/__admin/reset').expect(204)
  const seeded = await f.http.post('/__admin/seed').send(snap)
  t.equal(seeded.status, 204, JSON.stringify(seeded.body))
  t.same((await f.http.get('/__admin/snapshot')).body, snap, 'and seeds it back as it was')
  t.ok(within2((await store!.siteTraffic('flooded', DAY, DAY))[0]!.data.unique_visitors, 50), 'counting about 50')
})
