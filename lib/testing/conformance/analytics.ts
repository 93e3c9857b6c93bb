/**
 * Conformance suite for the analytics part of the Store contract: recording
 * visits and activities into day buckets (only for sites that exist, reading
 * their owner in the same step), period queries with and without a dimension,
 * the most-traffic ranking and Delete Site dropping analytics.
 *
 * Distinct visitors may be estimated by a shared store (Redis HyperLogLog has
 * about 0.81 % standard error), so every unique_visitors assertion allows 2 %
 * (at least 1 above 1 visitor); exactness of the memory store is tested in
 * test/analytics-memory.ts. Every other figure is exact for every store.
 */
import type { ActivityEvent, SiteRecord, Store, TrafficTotals, VisitEvent } from '../../store/contract.js'
import { TRICKY_NAMES, open, siteRecord } from './fixtures.js'
import type { StoreFactory, Tap } from './fixtures.js'

/** A visit with neutral dimension values; `over` replaces fields. */
export function visitEvent(
  site_name: string,
  day: string,
  visitor_id: string,
  over: Partial<VisitEvent> = {},
): VisitEvent {
  return {
    site_name,
    day,
    visitor_id,
    page_views: 1,
    browser: 'Chrome 120',
    os: 'Android',
    country: 'US',
    region: 'CA',
    ...over,
  }
}

/** An activity with neutral dimension values. */
export function activityEvent(
  site_name: string,
  day: string,
  kind: ActivityEvent['kind'],
  over: Partial<ActivityEvent> = {},
): ActivityEvent {
  return { site_name, day, kind, browser: 'Chrome 120', os: 'Android', country: 'US', region: 'CA', ...over }
}

/** Creates the owner's sites: a store records only for sites that exist, under their owner. */
async function createSites(t: Tap, store: Store, owner: string, ...names: string[]): Promise<void> {
  for (const name of names) t.equal(await store.createSite(siteRecord(name, owner)), true, `created ${name}`)
}

/** Asserts a distinct count within the contract's tolerance. */
export function nearly(t: Tap, got: number, expected: number, message: string): void {
  const slack = expected <= 1 ? 0 : Math.max(1, Math.ceil(expected * 0.02))
  t.ok(Math.abs(got - expected) <= slack, `${message}: ${got} ≈ ${expected} (±${slack})`)
}

/** Asserts exact visits and page views and nearly-exact unique visitors. */
function traffic(t: Tap, got: TrafficTotals | undefined, expected: TrafficTotals, message: string): void {
  t.ok(got, `${message}: present`)
  if (!got) return
  t.equal(got.visits, expected.visits, `${message}: visits`)
  t.equal(got.page_views, expected.page_views, `${message}: page_views`)
  nearly(t, got.unique_visitors, expected.unique_visitors, `${message}: unique_visitors`)
}

async function totals(store: Store, site: string, from: string, to: string): Promise<TrafficTotals | undefined> {
  const rows = await store.siteTraffic(site, from, to)
  return rows.length === 0 ? { visits: 0, page_views: 0, unique_visitors: 0 } : rows[0]!.data
}

async function recordAll(store: Store, events: VisitEvent[]): Promise<void> {
  await Promise.all(events.map((event) => store.recordVisit(event)))
}

/** Registers the analytics groups on `t` under `name`. */
export function analyticsConformance(t: Tap, name: string, factory: StoreFactory): void {
  t.test(`${name}: analytics`, async (t) => {
    t.test('recording resolves the site in the same step', async (t) => {
      const store = await open(t, factory)
      t.equal(
        await store.recordVisit(visitEvent('nosuch', '2024-01-10', 'a')),
        undefined,
        'a visit for a missing site answers undefined',
      )
      t.equal(
        await store.recordActivity(activityEvent('nosuch', '2024-01-10', 'click_to_call')),
        undefined,
        'so does an activity',
      )
      traffic(
        t,
        await totals(store, 'nosuch', '2024-01-01', '2024-12-31'),
        { visits: 0, page_views: 0, unique_visitors: 0 },
        'and nothing is recorded',
      )
      t.strictSame(
        (await store.siteActivities('nosuch', '2024-01-01', '2024-12-31'))[0]?.data.click_to_call,
        0,
        'no activity either',
      )
      t.strictSame(await store.mostTraffic('alice', '2024-01-01', '2024-12-31', 10), [], 'nor anything ranked')
      // The name exists later: the earlier calls left nothing behind for it.
      await createSites(t, store, 'alice', 'nosuch')
      traffic(
        t,
        await totals(store, 'nosuch', '2024-01-01', '2024-12-31'),
        { visits: 0, page_views: 0, unique_visitors: 0 },
        'a site created afterwards starts empty',
      )

      // The answer carries the owner and build state as stored, JSON-special characters included.
      const owner = 'o"w\\ner:\n☃'
      const site = (build: SiteRecord['build']) => siteRecord(`lazy-${build}`, owner, { build })
      for (const build of ['delayed', 'built', 'pending', 'FAILED_CONTENT_TOO_BIG'] as const) {
        t.equal(await store.createSite(site(build)), true)
        t.strictSame(
          await store.recordVisit(visitEvent(`lazy-${build}`, '2024-01-10', 'a')),
          { owner, build },
          `visit: ${build}`,
        )
        t.strictSame(
          await store.recordActivity(activityEvent(`lazy-${build}`, '2024-01-10', 'form_submit')),
          { owner, build },
          `activity: ${build}`,
        )
      }
      await store.updateSite(owner, 'lazy-delayed', { build: 'built' })
      t.strictSame(
        await store.recordVisit(visitEvent('lazy-delayed', '2024-01-11', 'b')),
        { owner, build: 'built' },
        'the build state at the time of recording',
      )
      const ranking = await store.mostTraffic(owner, '2024-01-01', '2024-01-31', 10)
      t.strictSame(
        ranking.map((r) => [r.site_name, r.data.visits]),
        [
          ['lazy-delayed', 2],
          ['lazy-FAILED_CONTENT_TOO_BIG', 1],
          ['lazy-built', 1],
          ['lazy-pending', 1],
        ],
        'ranked under the owner read from the site',
      )
    })

    t.test('a deleted site stops recording; a re-created name starts from zero', async (t) => {
      const store = await open(t, factory)
      await createSites(t, store, 'alice', 'brief', 'other')
      await recordAll(store, [
        visitEvent('brief', '2024-02-01', 'a'),
        visitEvent('brief', '2024-02-01', 'b'),
        visitEvent('other', '2024-02-01', 'a'),
      ])
      t.equal(await store.deleteSite('alice', 'brief'), true)
      t.equal(
        await store.recordVisit(visitEvent('brief', '2024-02-01', 'c')),
        undefined,
        'a visit after the delete is refused',
      )
      t.equal(
        await store.recordActivity(activityEvent('brief', '2024-02-01', 'click_to_map')),
        undefined,
        'an activity too',
      )
      traffic(
        t,
        await totals(store, 'brief', '2024-01-01', '2024-12-31'),
        { visits: 0, page_views: 0, unique_visitors: 0 },
        'nothing recorded after the delete',
      )
      t.strictSame(
        (await store.mostTraffic('alice', '2024-01-01', '2024-12-31', 10)).map((r) => r.site_name),
        ['other'],
      )

      await createSites(t, store, 'alice', 'brief')
      t.strictSame(await store.recordVisit(visitEvent('brief', '2024-02-01', 'a', { page_views: 4 })), {
        owner: 'alice',
        build: 'built',
      })
      traffic(
        t,
        await totals(store, 'brief', '2024-02-01', '2024-02-01'),
        { visits: 1, page_views: 4, unique_visitors: 1 },
        'the new incarnation counts only its own visit',
      )
      t.strictSame(
        (await store.mostTraffic('alice', '2024-02-01', '2024-02-01', 10)).map((r) => [r.site_name, r.data.visits]),
        [
          ['brief', 1],
          ['other', 1],
        ],
      )
    })

    t.test('visits racing a delete leave nothing behind', async (t) => {
      const store = await open(t, factory)
      await createSites(t, store, 'alice', 'racy')
      const visits = Array.from({ length: 200 }, (_, i) => store.recordVisit(visitEvent('racy', '2024-03-01', `v${i}`)))
      const deleted = store.deleteSite('alice', 'racy')
      const later = Array.from({ length: 200 }, (_, i) => store.recordVisit(visitEvent('racy', '2024-03-01', `w${i}`)))
      const outcomes = await Promise.all([...visits, ...later])
      t.equal(await deleted, true)
      t.ok(
        outcomes.every((o) => o === undefined || (o.owner === 'alice' && o.build === 'built')),
        'each visit is recorded for the site or refused',
      )
      traffic(
        t,
        await totals(store, 'racy', '2024-03-01', '2024-03-01'),
        { visits: 0, page_views: 0, unique_visitors: 0 },
        'whatever was recorded went with the site',
      )
      t.strictSame(await store.mostTraffic('alice', '2024-03-01', '2024-03-01', 10), [])
    })

    t.test('day buckets and inclusive periods', async (t) => {
      const store = await open(t, factory)
      await createSites(t, store, 'alice', 's1', 's2')
      await recordAll(store, [
        visitEvent('s1', '2024-01-30', 'a', { page_views: 3 }),
        visitEvent('s1', '2024-01-31', 'a'),
        visitEvent('s1', '2024-01-31', 'b', { page_views: 2 }),
        visitEvent('s1', '2024-02-01', 'c'),
        visitEvent('s1', '2024-02-03', 'a'),
        visitEvent('s2', '2024-01-31', 'z'),
      ])
      traffic(
        t,
        await totals(store, 's1', '2024-01-30', '2024-02-03'),
        { visits: 5, page_views: 8, unique_visitors: 3 },
        'whole range',
      )
      traffic(
        t,
        await totals(store, 's1', '2024-01-31', '2024-01-31'),
        { visits: 2, page_views: 3, unique_visitors: 2 },
        'one day',
      )
      traffic(
        t,
        await totals(store, 's1', '2024-01-31', '2024-02-01'),
        { visits: 3, page_views: 4, unique_visitors: 3 },
        'across a month end',
      )
      traffic(
        t,
        await totals(store, 's1', '2024-02-02', '2024-02-02'),
        { visits: 0, page_views: 0, unique_visitors: 0 },
        'a day without visits',
      )
      traffic(
        t,
        await totals(store, 's1', '2023-01-01', '2030-12-31'),
        { visits: 5, page_views: 8, unique_visitors: 3 },
        'a period far wider than the data',
      )
      traffic(
        t,
        await totals(store, 'nosuch', '2024-01-01', '2024-12-31'),
        { visits: 0, page_views: 0, unique_visitors: 0 },
        'unknown site',
      )
      const rows = await store.siteTraffic('s1', '2024-01-30', '2024-02-03')
      t.equal(rows.length, 1, 'without a dimension there is exactly one row')
      t.strictSame(rows[0]!.key, [], 'with an empty key')
      t.strictSame(await store.siteTraffic('nosuch', '2024-01-01', '2024-01-02'), [
        { key: [], data: { visits: 0, page_views: 0, unique_visitors: 0 } },
      ])
    })

    t.test('system and geo breakdowns', async (t) => {
      const store = await open(t, factory)
      await createSites(t, store, 'alice', 's1')
      await recordAll(store, [
        visitEvent('s1', '2024-03-01', 'a', { browser: 'Mobile Safari 17', os: 'iOS', country: 'JP', region: 'Tokyo' }),
        visitEvent('s1', '2024-03-02', 'a', {
          browser: 'Mobile Safari 17',
          os: 'iOS',
          country: 'JP',
          region: 'Osaka',
          page_views: 4,
        }),
        visitEvent('s1', '2024-03-02', 'b', { browser: 'Chrome 120', os: 'Android', country: 'JP', region: 'Tokyo' }),
        visitEvent('s1', '2024-03-03', 'c', { browser: 'Chrome 120', os: 'Android', country: 'FR', region: 'Unknown' }),
        visitEvent('s1', '2024-03-03', 'b', { browser: 'Chrome 121', os: 'Android', country: 'JP', region: 'Tokyo' }),
      ])
      await store.recordActivity(
        activityEvent('s1', '2024-03-03', 'form_submit', {
          browser: 'Firefox 115',
          os: 'Linux',
          country: 'DE',
          region: 'Berlin',
        }),
      )
      const system = await store.siteTraffic('s1', '2024-03-01', '2024-03-03', 'system')
      t.strictSame(
        system.map((r) => r.key),
        [
          ['Chrome 120', 'Android'],
          ['Chrome 121', 'Android'],
          ['Mobile Safari 17', 'iOS'],
        ],
        'system rows sorted by key; values without visits absent',
      )
      traffic(t, system[0]?.data, { visits: 2, page_views: 2, unique_visitors: 2 }, 'Chrome 120')
      traffic(t, system[1]?.data, { visits: 1, page_views: 1, unique_visitors: 1 }, 'Chrome 121')
      traffic(t, system[2]?.data, { visits: 2, page_views: 5, unique_visitors: 1 }, 'Safari: one visitor on two days')
      const geo = await store.siteTraffic('s1', '2024-03-01', '2024-03-03', 'geo')
      t.strictSame(
        geo.map((r) => r.key),
        [
          ['FR', 'Unknown'],
          ['JP', 'Osaka'],
          ['JP', 'Tokyo'],
        ],
        'geo rows sorted by country then region',
      )
      traffic(t, geo[2]?.data, { visits: 3, page_views: 3, unique_visitors: 2 }, 'JP/Tokyo')
      const narrow = await store.siteTraffic('s1', '2024-03-02', '2024-03-02', 'geo')
      t.strictSame(
        narrow.map((r) => r.key),
        [
          ['JP', 'Osaka'],
          ['JP', 'Tokyo'],
        ],
        'a narrower period has only its values',
      )
      t.strictSame(await store.siteTraffic('s1', '2024-04-01', '2024-04-30', 'system'), [], 'no visits: no rows')
      t.strictSame(await store.siteTraffic('nosuch', '2024-03-01', '2024-03-03', 'geo'), [], 'unknown site: no rows')
    })

    t.test('activities', async (t) => {
      const store = await open(t, factory)
      await createSites(t, store, 'alice', 's1')
      const kinds = [
        'click_to_call',
        'click_to_call',
        'click_to_map',
        'click_to_email',
        'form_submit',
        'form_submit',
        'form_submit',
      ] as const
      await Promise.all(
        kinds.map((kind, i) =>
          store.recordActivity(
            activityEvent(
              's1',
              `2024-05-0${1 + (i % 3)}`,
              kind,
              i < 2 ? { os: 'iOS', browser: 'Mobile Safari 17', country: 'JP', region: 'Tokyo' } : {},
            ),
          ),
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
      t.strictSame(
        geo.map((r) => r.key),
        [
          ['JP', 'Tokyo'],
          ['US', 'CA'],
        ],
      )
      t.strictSame(
        await store.siteActivities('nosuch', '2024-05-01', '2024-05-03'),
        [{ key: [], data: { click_to_call: 0, click_to_map: 0, click_to_email: 0, form_submit: 0 } }],
        'unknown site: zeros',
      )
      traffic(
        t,
        await totals(store, 's1', '2024-05-01', '2024-05-03'),
        { visits: 1, page_views: 1, unique_visitors: 1 },
        'activities are not visits',
      )
    })

    t.test('mostTraffic', async (t) => {
      const store = await open(t, factory)
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
        await createSites(t, store, owner, site)
        for (let i = 0; i < n; i++) events.push(visitEvent(site, '2024-06-10', `v${i % 2}`, { page_views: 2 }))
      }
      await createSites(t, store, 'alice', 'old', 'quiet')
      events.push(visitEvent('old', '2024-05-01', 'x'))
      await recordAll(store, events)
      await store.recordActivity(activityEvent('quiet', '2024-06-10', 'click_to_call'))
      const ranking = await store.mostTraffic('alice', '2024-06-01', '2024-06-30', 10)
      t.strictSame(
        ranking.map((r) => r.site_name),
        ['big', 'tie-a', 'tie-b', 'small'],
        "by visits, ties by name; only the owner's sites with visits in the period",
      )
      traffic(t, ranking[0]?.data, { visits: 5, page_views: 10, unique_visitors: 2 }, 'big')
      traffic(t, ranking[3]?.data, { visits: 1, page_views: 2, unique_visitors: 1 }, 'small')
      t.strictSame(
        (await store.mostTraffic('alice', '2024-06-01', '2024-06-30', 2)).map((r) => r.site_name),
        ['big', 'tie-a'],
        'limit caps the rows',
      )
      t.strictSame(
        (await store.mostTraffic('alice', '2024-05-01', '2024-06-30', 10)).map((r) => r.site_name),
        ['big', 'tie-a', 'tie-b', 'old', 'small'],
      )
      t.strictSame(await store.mostTraffic('alice', '2024-07-01', '2024-07-31', 10), [], 'no visits in the period')
      t.strictSame(await store.mostTraffic('carol', '2024-06-01', '2024-06-30', 10), [], 'unknown owner')
      t.strictSame(
        (await store.mostTraffic('bob', '2024-06-01', '2024-06-30', 10)).map((r) => r.site_name),
        ['bobsite'],
      )
    })

    t.test('mostTraffic over many sites and days', async (t) => {
      const store = await open(t, factory)
      const events: VisitEvent[] = []
      await createSites(t, store, 'alice', ...Array.from({ length: 40 }, (_, i) => `site${String(i).padStart(2, '0')}`))
      // Site i gets (i % 7) + 1 visits on each of 5 days: the top sites are those with i % 7 = 6, by name.
      for (let i = 0; i < 40; i++) {
        for (let d = 1; d <= 5; d++)
          for (let k = 0; k <= i % 7; k++)
            events.push(visitEvent(`site${String(i).padStart(2, '0')}`, `2024-08-0${d}`, `v${k}`))
      }
      await recordAll(store, events)
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
      nearly(t, ranking[0]!.data.unique_visitors, 7, 'distinct across days')
      t.strictSame(
        (await store.mostTraffic('alice', '2024-08-02', '2024-08-02', 3)).map((r) => r.data.visits),
        [7, 7, 7],
        'one day',
      )
    })

    t.test('deleteSite drops its analytics', async (t) => {
      const store = await open(t, factory)
      await createSites(t, store, 'alice', 'gone', 'kept')
      await store.recordVisit(visitEvent('gone', '2024-02-01', 'a'))
      await store.recordActivity(activityEvent('gone', '2024-02-01', 'click_to_map'))
      await store.recordVisit(visitEvent('kept', '2024-02-01', 'a'))
      t.equal(await store.deleteSite('alice', 'gone'), true)
      traffic(
        t,
        await totals(store, 'gone', '2024-01-01', '2024-12-31'),
        { visits: 0, page_views: 0, unique_visitors: 0 },
        'traffic gone',
      )
      t.strictSame(
        (await store.siteActivities('gone', '2024-01-01', '2024-12-31'))[0]?.data.click_to_map ?? 0,
        0,
        'activities gone',
      )
      t.strictSame(
        (await store.mostTraffic('alice', '2024-01-01', '2024-12-31', 10)).map((r) => r.site_name),
        ['kept'],
        'out of the ranking',
      )
      // The name is free again; a new owner starts from nothing.
      await createSites(t, store, 'bob', 'gone')
      await store.recordVisit(visitEvent('gone', '2024-02-01', 'b'))
      traffic(
        t,
        await totals(store, 'gone', '2024-02-01', '2024-02-01'),
        { visits: 1, page_views: 1, unique_visitors: 1 },
        'new incarnation',
      )
      t.strictSame(
        (await store.mostTraffic('bob', '2024-01-01', '2024-12-31', 10)).map((r) => r.site_name),
        ['gone'],
      )
      t.strictSame(
        (await store.mostTraffic('alice', '2024-01-01', '2024-12-31', 10)).map((r) => r.site_name),
        ['kept'],
      )
    })

    t.test('thousands of distinct visitors, within tolerance', async (t) => {
      const store = await open(t, factory)
      await createSites(t, store, 'alice', 'busy')
      const events: VisitEvent[] = []
      // Day d has visitors [d*1000, d*1000 + 1500): each day shares 500 with the next, 3,500 distinct in all.
      for (let d = 0; d < 3; d++) {
        for (let v = d * 1000; v < d * 1000 + 1500; v++) {
          events.push(visitEvent('busy', `2024-09-0${d + 1}`, `visitor-${v}`, { os: v % 2 === 0 ? 'iOS' : 'Android' }))
        }
      }
      await recordAll(store, events)
      traffic(
        t,
        await totals(store, 'busy', '2024-09-01', '2024-09-03'),
        { visits: 4500, page_views: 4500, unique_visitors: 3500 },
        'three days',
      )
      traffic(
        t,
        await totals(store, 'busy', '2024-09-02', '2024-09-02'),
        { visits: 1500, page_views: 1500, unique_visitors: 1500 },
        'one day',
      )
      const system = await store.siteTraffic('busy', '2024-09-01', '2024-09-03', 'system')
      t.strictSame(
        system.map((r) => r.key[1]),
        ['Android', 'iOS'],
      )
      traffic(t, system[0]?.data, { visits: 2250, page_views: 2250, unique_visitors: 1750 }, 'per dimension value')
      const [top] = await store.mostTraffic('alice', '2024-09-01', '2024-09-03', 10)
      traffic(t, top?.data, { visits: 4500, page_views: 4500, unique_visitors: 3500 }, 'ranking row')
    })

    t.test('concurrent recording loses nothing', async (t) => {
      const store = await open(t, factory)
      await createSites(t, store, 'alice', 'hot')
      const events = Array.from({ length: 1000 }, (_, i) =>
        visitEvent('hot', '2024-10-01', `v${i % 250}`, { page_views: 1 + (i % 3) }),
      )
      await Promise.all([
        recordAll(store, events),
        ...Array.from({ length: 100 }, () =>
          store.recordActivity(activityEvent('hot', '2024-10-01', 'click_to_email')),
        ),
      ])
      traffic(
        t,
        await totals(store, 'hot', '2024-10-01', '2024-10-01'),
        { visits: 1000, page_views: 1999, unique_visitors: 250 },
        'all visits counted',
      )
      t.equal(
        (await store.siteActivities('hot', '2024-10-01', '2024-10-01'))[0]?.data.click_to_email,
        100,
        'all activities counted',
      )
    })

    t.test('user-supplied strings are ordinary data', async (t) => {
      const store = await open(t, factory)
      for (const tricky of TRICKY_NAMES) {
        const site = `site${tricky}`
        await createSites(t, store, tricky, site)
        await store.recordVisit(
          visitEvent(site, '2024-11-01', tricky, { browser: tricky, os: tricky, country: tricky, region: tricky }),
        )
        await store.recordActivity(
          activityEvent(site, '2024-11-01', 'click_to_call', {
            browser: tricky,
            os: tricky,
            country: tricky,
            region: tricky,
          }),
        )
        traffic(
          t,
          await totals(store, site, '2024-11-01', '2024-11-01'),
          { visits: 1, page_views: 1, unique_visitors: 1 },
          tricky,
        )
        t.strictSame(
          (await store.siteTraffic(site, '2024-11-01', '2024-11-01', 'geo')).map((r) => r.key),
          [[tricky, tricky]],
        )
        t.strictSame(
          (await store.siteActivities(site, '2024-11-01', '2024-11-01', 'system')).map((r) => r.key),
          [[tricky, tricky]],
        )
        t.strictSame(
          (await store.mostTraffic(tricky, '2024-11-01', '2024-11-01', 10)).map((r) => r.site_name),
          [site],
        )
      }
      // Values that a naive "a|b" key would confuse stay apart.
      await createSites(t, store, 'alice', 'sep')
      await store.recordVisit(visitEvent('sep', '2024-11-02', 'x', { country: 'a|b', region: 'c' }))
      await store.recordVisit(visitEvent('sep', '2024-11-02', 'y', { country: 'a', region: 'b|c' }))
      t.strictSame(
        (await store.siteTraffic('sep', '2024-11-02', '2024-11-02', 'geo')).map((r) => r.key),
        [
          ['a', 'b|c'],
          ['a|b', 'c'],
        ],
      )
    })
  })
}
