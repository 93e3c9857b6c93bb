/**
 * Conformance groups for the analytics part of the Store contract, second
 * half: period queries with and without a dimension, and the most-traffic
 * ranking. Recording is in analytics.ts.
 */
import type { VisitEvent } from '../../store/contract/index.js'
import { NONE, analyticsChecks, traffic } from './analytics-checks.js'
import { type Settings, type StoreFactory, type Tap, activityEvent, open, visitEvent } from './fixtures.js'

/** Registers the period and ranking groups on `t`. */
export function periodGroups(t: Tap, factory: StoreFactory, settings: Settings): void {
  t.test('day buckets and inclusive periods', async (t) => {
    const store = await open(t, factory)
    const check = analyticsChecks(t, store, settings)
    await check.createSites('alice', 's1', 's2')
    await check.recordAll([
      visitEvent('s1', '2024-01-30', 'a', { page_views: 3 }),
      visitEvent('s1', '2024-01-31', 'a'),
      visitEvent('s1', '2024-01-31', 'b', { page_views: 2 }),
      visitEvent('s1', '2024-02-01', 'c'),
      visitEvent('s1', '2024-02-03', 'a'),
      visitEvent('s2', '2024-01-31', 'z'),
    ])
    await check.totals('s1', '2024-01-30', '2024-02-03', traffic(5, 8, 3), 'whole range')
    await check.totals('s1', '2024-01-31', '2024-01-31', traffic(2, 3, 2), 'one day')
    await check.totals('s1', '2024-01-31', '2024-02-01', traffic(3, 4, 3), 'across a month end')
    await check.totals('s1', '2024-02-02', '2024-02-02', NONE, 'a day without visits')
    await check.totals('s1', '2023-01-01', '2030-12-31', traffic(5, 8, 3), 'a period far wider than the data')
    await check.totals('nosuch', '2024-01-01', '2024-12-31', NONE, 'unknown site')
    const rows = await store.siteTraffic('s1', '2024-01-30', '2024-02-03')
    t.equal(rows.length, 1, 'without a dimension there is exactly one row')
    t.strictSame(rows[0]!.key, [], 'with an empty key')
    t.strictSame(await store.siteTraffic('nosuch', '2024-01-01', '2024-01-02'), [{ key: [], data: NONE }])
  })

  t.test('system and geo breakdowns', async (t) => {
    const store = await open(t, factory)
    const check = analyticsChecks(t, store, settings)
    await check.createSites('alice', 's1')
    const safari = { browser: 'Mobile Safari 17', os: 'iOS' }
    const chrome = { browser: 'Chrome 120', os: 'Android' }
    const tokyo = { country: 'JP', region: 'Tokyo' }
    await check.recordAll([
      visitEvent('s1', '2024-03-01', 'a', { ...safari, ...tokyo }),
      visitEvent('s1', '2024-03-02', 'a', { ...safari, country: 'JP', region: 'Osaka', page_views: 4 }),
      visitEvent('s1', '2024-03-02', 'b', { ...chrome, ...tokyo }),
      visitEvent('s1', '2024-03-03', 'c', { ...chrome, country: 'FR', region: 'Unknown' }),
      visitEvent('s1', '2024-03-03', 'b', { browser: 'Chrome 121', os: 'Android', ...tokyo }),
    ])
    const firefox = { browser: 'Firefox 115', os: 'Linux', country: 'DE', region: 'Berlin' }
    await store.recordActivity(activityEvent('s1', '2024-03-03', 'form_submit', firefox))
    const system = await store.siteTraffic('s1', '2024-03-01', '2024-03-03', 'system')
    check.keys(
      system,
      ['Chrome 120 / Android', 'Chrome 121 / Android', 'Mobile Safari 17 / iOS'],
      'system rows sorted by key; values without visits absent',
    )
    check.traffic(system[0]?.data, traffic(2, 2, 2), 'Chrome 120')
    check.traffic(system[1]?.data, traffic(1, 1, 1), 'Chrome 121')
    check.traffic(system[2]?.data, traffic(2, 5, 1), 'Safari: one visitor on two days')
    const geo = await store.siteTraffic('s1', '2024-03-01', '2024-03-03', 'geo')
    check.keys(geo, ['FR / Unknown', 'JP / Osaka', 'JP / Tokyo'], 'geo rows sorted by country then region')
    check.traffic(geo[2]?.data, traffic(3, 3, 2), 'JP/Tokyo')
    const narrow = await store.siteTraffic('s1', '2024-03-02', '2024-03-02', 'geo')
    check.keys(narrow, ['JP / Osaka', 'JP / Tokyo'], 'a narrower period has only its values')
    t.strictSame(await store.siteTraffic('s1', '2024-04-01', '2024-04-30', 'system'), [], 'no visits: no rows')
    t.strictSame(await store.siteTraffic('nosuch', '2024-03-01', '2024-03-03', 'geo'), [], 'unknown site: no rows')
  })

  t.test('activities', async (t) => {
    const store = await open(t, factory)
    const check = analyticsChecks(t, store, settings)
    await check.createSites('alice', 's1')
    const kinds = [
      'click_to_call',
      'click_to_call',
      'click_to_map',
      'click_to_email',
      'form_submit',
      'form_submit',
      'form_submit',
    ] as const
    const iphone = { os: 'iOS', browser: 'Mobile Safari 17', country: 'JP', region: 'Tokyo' }
    await Promise.all(
      kinds.map((kind, i) =>
        store.recordActivity(activityEvent('s1', `2024-05-0${1 + (i % 3)}`, kind, i < 2 ? iphone : {})),
      ),
    )
    await store.recordVisit(visitEvent('s1', '2024-05-01', 'v', { browser: 'Opera 100', os: 'Windows' }))
    const [all] = await store.siteActivities('s1', '2024-05-01', '2024-05-03')
    t.strictSame(
      all,
      { key: [], data: { click_to_call: 2, click_to_map: 1, click_to_email: 1, form_submit: 3 } },
      'totals by kind',
    )
    const [first] = await store.siteActivities('s1', '2024-05-01', '2024-05-01')
    t.strictSame(
      first?.data,
      { click_to_call: 1, click_to_map: 0, click_to_email: 1, form_submit: 1 },
      'one day: the 1st, 4th and 7th events',
    )
    const system = await store.siteActivities('s1', '2024-05-01', '2024-05-03', 'system')
    t.strictSame(
      system,
      [
        {
          key: ['Chrome 120', 'Android'],
          data: { click_to_call: 0, click_to_map: 1, click_to_email: 1, form_submit: 3 },
        },
        {
          key: ['Mobile Safari 17', 'iOS'],
          data: { click_to_call: 2, click_to_map: 0, click_to_email: 0, form_submit: 0 },
        },
      ],
      'system rows: only values with activities, sorted',
    )
    const geo = await store.siteActivities('s1', '2024-05-01', '2024-05-03', 'geo')
    check.keys(geo, ['JP / Tokyo', 'US / CA'])
    t.strictSame(
      await store.siteActivities('nosuch', '2024-05-01', '2024-05-03'),
      [{ key: [], data: { click_to_call: 0, click_to_map: 0, click_to_email: 0, form_submit: 0 } }],
      'unknown site: zeros',
    )
    await check.totals('s1', '2024-05-01', '2024-05-03', traffic(1, 1, 1), 'activities are not visits')
  })

  t.test('mostTraffic', async (t) => {
    const store = await open(t, factory)
    const check = analyticsChecks(t, store, settings)
    const ranked = async (owner: string, from: string, to: string, limit = 10) =>
      (await store.mostTraffic(owner, from, to, limit)).map((r) => r.site_name)
    const events: VisitEvent[] = []
    // visits per site: big 5, tie-b 3, tie-a 3, small 1; bob's site 9 must never show for alice.
    const plan: [string, string, number][] = [
      ['big', 'alice', 5],
      ['tie-b', 'alice', 3],
      ['tie-a', 'alice', 3],
      ['small', 'alice', 1],
      ['bobsite', 'bob', 9],
    ]
    for (const [site, owner, n] of plan) {
      await check.createSites(owner, site)
      for (let i = 0; i < n; i++) events.push(visitEvent(site, '2024-06-10', `v${i % 2}`, { page_views: 2 }))
    }
    await check.createSites('alice', 'old', 'quiet')
    events.push(visitEvent('old', '2024-05-01', 'x'))
    await check.recordAll(events)
    await store.recordActivity(activityEvent('quiet', '2024-06-10', 'click_to_call'))
    const ranking = await store.mostTraffic('alice', '2024-06-01', '2024-06-30', 10)
    t.strictSame(
      ranking.map((r) => r.site_name),
      ['big', 'tie-a', 'tie-b', 'small'],
      "by visits, ties by name; only the owner's sites with visits in the period",
    )
    check.traffic(ranking[0]?.data, traffic(5, 10, 2), 'big')
    check.traffic(ranking[3]?.data, traffic(1, 2, 1), 'small')
    t.strictSame(await ranked('alice', '2024-06-01', '2024-06-30', 2), ['big', 'tie-a'], 'limit caps the rows')
    t.strictSame(await ranked('alice', '2024-05-01', '2024-06-30'), ['big', 'tie-a', 'tie-b', 'old', 'small'])
    t.strictSame(await ranked('alice', '2024-07-01', '2024-07-31'), [], 'no visits in the period')
    t.strictSame(await ranked('carol', '2024-06-01', '2024-06-30'), [], 'unknown owner')
    t.strictSame(await ranked('bob', '2024-06-01', '2024-06-30'), ['bobsite'])
  })

  t.test('mostTraffic over many sites and days', async (t) => {
    const store = await open(t, factory)
    const check = analyticsChecks(t, store, settings)
    const events: VisitEvent[] = []
    const name = (i: number) => `site${String(i).padStart(2, '0')}`
    await check.createSites('alice', ...Array.from({ length: 40 }, (_, i) => name(i)))
    // Site i gets (i % 7) + 1 visits on each of 5 days: the top sites are those with i % 7 = 6, by name.
    for (let i = 0; i < 40; i++) {
      for (let d = 1; d <= 5; d++)
        for (let k = 0; k <= i % 7; k++) events.push(visitEvent(name(i), `2024-08-0${d}`, `v${k}`))
    }
    await check.recordAll(events)
    const ranking = await store.mostTraffic('alice', '2024-08-01', '2024-08-05', 10)
    t.strictSame(
      ranking.map((r) => [r.site_name, r.data.visits]),
      [
        ['site06', 35],
        ['site13', 35],
        ['site20', 35],
        ['site27', 35],
        ['site34', 35],
        ['site05', 30],
        ['site12', 30],
        ['site19', 30],
        ['site26', 30],
        ['site33', 30],
      ],
    )
    check.nearly(ranking[0]!.data.unique_visitors, 7, 'distinct across days')
    t.strictSame(
      (await store.mostTraffic('alice', '2024-08-02', '2024-08-02', 3)).map((r) => r.data.visits),
      [7, 7, 7],
      'one day',
    )
  })

  t.test('thousands of distinct visitors, within tolerance', async (t) => {
    const store = await open(t, factory)
    const check = analyticsChecks(t, store, settings)
    await check.createSites('alice', 'busy')
    const events: VisitEvent[] = []
    // Day d has visitors [d*1000, d*1000 + 1500): each day shares 500 with the next, 3,500 distinct in all.
    for (let d = 0; d < 3; d++) {
      for (let v = d * 1000; v < d * 1000 + 1500; v++) {
        events.push(visitEvent('busy', `2024-09-0${d + 1}`, `visitor-${v}`, { os: v % 2 === 0 ? 'iOS' : 'Android' }))
      }
    }
    await check.recordAll(events)
    await check.totals('busy', '2024-09-01', '2024-09-03', traffic(4500, 4500, 3500), 'three days')
    await check.totals('busy', '2024-09-02', '2024-09-02', traffic(1500, 1500, 1500), 'one day')
    const system = await store.siteTraffic('busy', '2024-09-01', '2024-09-03', 'system')
    t.strictSame(
      system.map((r) => r.key[1]),
      ['Android', 'iOS'],
    )
    check.traffic(system[0]?.data, traffic(2250, 2250, 1750), 'per dimension value')
    const [top] = await store.mostTraffic('alice', '2024-09-01', '2024-09-03', 10)
    check.traffic(top?.data, traffic(4500, 4500, 3500), 'ranking row')
  })
}
