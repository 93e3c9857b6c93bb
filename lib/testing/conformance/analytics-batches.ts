/**
 * Conformance groups for `recordEvents`: a batch of visits and activities
 * recorded in order with one outcome per event, the cardinality cap
 * (`maxDimensionValues`, later values under "(other)"), and retention (days
 * before the kept window are neither recorded nor, once a later day is
 * recorded, kept).
 */
import { OTHER, type RecordOptions } from '../../store/contract/index.js'
import { NONE, analyticsChecks, traffic } from './analytics-checks.js'
import { type Settings, type StoreFactory, type Tap, activityEvent, open, siteRecord, visitEvent } from './fixtures.js'

const DAY = '2024-03-10'
const OPTIONS: RecordOptions = { maxDimensionValues: 1000, today: DAY }

/** Registers the batch groups on `t`. */
export function batchGroups(t: Tap, factory: StoreFactory, settings: Settings): void {
  t.test('recordEvents: one outcome per event, in order', async (t) => {
    const store = await open(t, factory)
    const check = analyticsChecks(t, store, settings)
    t.equal(await store.createSite(siteRecord('batch-a', 'alice')), true)
    t.equal(await store.createSite(siteRecord('batch-b', 'bob', { build: 'delayed' })), true)
    t.strictSame(await store.recordEvents([], OPTIONS), [], 'an empty batch answers nothing')
    const outcomes = await store.recordEvents(
      [
        visitEvent('batch-a', DAY, 'v1', { page_views: 3 }),
        visitEvent('nosuch', DAY, 'v1'),
        activityEvent('batch-a', DAY, 'click_to_call'),
        visitEvent('batch-b', DAY, 'v2'),
        visitEvent('batch-a', DAY, 'v2'),
        activityEvent('nosuch', DAY, 'form_submit'),
        visitEvent('batch-a', DAY, 'v1'),
      ],
      OPTIONS,
    )
    const alice = { owner: 'alice', build: 'built' }
    const bob = { owner: 'bob', build: 'delayed' }
    t.strictSame(outcomes, [alice, undefined, alice, bob, alice, undefined, alice], 'outcomes in order')
    await check.totals('batch-a', DAY, DAY, traffic(3, 5, 2), 'every visit of the batch counted')
    await check.totals('batch-b', DAY, DAY, traffic(1, 1, 1), 'the other site too')
    await check.totals('nosuch', DAY, DAY, NONE, 'nothing for a missing site')
    t.equal((await store.siteActivities('batch-a', DAY, DAY))[0]?.data.click_to_call, 1, 'the activity too')
    const ranking = await store.mostTraffic('alice', DAY, DAY, 10)
    t.strictSame(
      ranking.map((r) => [r.site_name, r.data.visits]),
      [['batch-a', 3]],
      'ranked under the owner',
    )
    // A batch and single calls add up to the same figures.
    await store.recordVisit(visitEvent('batch-a', DAY, 'v3'))
    await check.totals('batch-a', DAY, DAY, traffic(4, 6, 3), 'single calls add to batches')
  })

  t.test('recordEvents: at most maxDimensionValues values per dimension per site-day', async (t) => {
    const store = await open(t, factory)
    const check = analyticsChecks(t, store, settings)
    t.equal(await store.createSite(siteRecord('capped', 'alice')), true)
    const cap: RecordOptions = { maxDimensionValues: 3, today: DAY }
    const values = ['AA', 'BB', 'CC', 'DD', 'EE']
    const visits = values.map((c, i) =>
      visitEvent('capped', DAY, `v${i}`, { country: c, region: '1', browser: `B${i}`, os: 'X' }),
    )
    await store.recordEvents(visits.slice(0, 2), cap)
    await store.recordEvents(visits.slice(2), cap)
    // A value already kept stays itself past the cap; an activity is capped as well.
    await store.recordEvents(
      [
        visitEvent('capped', DAY, 'v9', { country: 'AA', region: '1', browser: 'B0', os: 'X' }),
        activityEvent('capped', DAY, 'click_to_map', { country: 'FF', region: '2', browser: 'B9', os: 'X' }),
      ],
      cap,
    )
    const geo = await store.siteTraffic('capped', DAY, DAY, 'geo')
    const other = `${OTHER} / ${OTHER}`
    // Rows are sorted by key like any other: "(" sorts before letters and digits.
    check.keys(geo, [other, 'AA / 1', 'BB / 1', 'CC / 1'], 'three values, then (other)')
    t.strictSame(
      geo.map((row) => row.data.visits),
      [2, 2, 1, 1],
      'visits of the later values folded into (other)',
    )
    check.nearly(geo[0]!.data.unique_visitors, 2, '(other) counts its distinct visitors')
    const system = await store.siteTraffic('capped', DAY, DAY, 'system')
    check.keys(system, [other, 'B0 / X', 'B1 / X', 'B2 / X'], 'the system dimension too')
    const acts = await store.siteActivities('capped', DAY, DAY, 'geo')
    check.keys(acts, [other], 'a new activity value past the cap is (other)')
    await check.totals('capped', DAY, DAY, traffic(6, 6, 6), 'totals keep every visit')
    // The cap is per site-day: the next day starts again.
    const next = '2024-03-11'
    await store.recordEvents([visitEvent('capped', next, 'w', { country: 'ZZ', region: '9' })], cap)
    check.keys(await store.siteTraffic('capped', next, next, 'geo'), ['ZZ / 9'], 'a new day has room again')
  })

  t.test('recordEvents: retention', async (t) => {
    const store = await open(t, factory)
    const check = analyticsChecks(t, store, settings)
    t.equal(await store.createSite(siteRecord('kept', 'alice')), true)
    const keep: RecordOptions = { maxDimensionValues: 1000, retentionDays: 2, today: '2024-03-10' }
    const outcomes = await store.recordEvents(
      [
        visitEvent('kept', '2024-03-08', 'old'),
        visitEvent('kept', '2024-03-09', 'a'),
        visitEvent('kept', '2024-03-10', 'b'),
      ],
      keep,
    )
    t.strictSame(outcomes.length, 3, 'an outcome for every event')
    t.strictSame(outcomes[0], { owner: 'alice', build: 'built' }, 'an expired day still answers its site')
    await check.totals('kept', '2024-03-08', '2024-03-08', NONE, 'a day before the window is not recorded')
    await check.totals('kept', '2024-03-09', '2024-03-10', traffic(2, 2, 2), 'the window is')
    // Two days later, 03-09 and 03-10 are out of the window: recording drops them.
    await store.recordEvents([visitEvent('kept', '2024-03-12', 'c')], { ...keep, today: '2024-03-12' })
    await waitFor(async () => (await store.siteTraffic('kept', '2024-03-09', '2024-03-10'))[0]?.data.visits === 0)
    await check.totals('kept', '2024-03-09', '2024-03-10', NONE, 'older days are gone')
    await check.totals('kept', '2024-03-12', '2024-03-12', traffic(1, 1, 1), 'the new day is kept')
    const ranking = await store.mostTraffic('alice', '2024-03-01', '2024-03-31', 10)
    t.strictSame(
      ranking.map((r) => [r.site_name, r.data.visits]),
      [['kept', 1]],
      'the ranking counts kept days only',
    )
  })
}

/**
 * Waits (up to 2 s) for `done`: a store may drop expired days in the
 * background (PostgreSQL deletes them in batches off the recording path).
 */
async function waitFor(done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 2000
  while (!(await done()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
}
