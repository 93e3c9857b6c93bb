/**
 * Conformance groups for the analytics part of the Store contract, first
 * half: recording visits and activities (only for sites that exist, reading
 * their owner in the same step), Delete Site dropping analytics, concurrency,
 * and user-supplied strings. The period queries are in analytics-periods.ts.
 *
 * Distinct visitors may be estimated by a shared store (Redis HyperLogLog has
 * about 0.81 % standard error): ConformanceOptions.uniqueVisitors says which
 * the store does. Every other figure is exact for every store.
 */
import type { SiteRecord } from '../../store/contract/index.js'
import { NONE, analyticsChecks, traffic } from './analytics-checks.js'
import { batchGroups } from './analytics-batches.js'
import { periodGroups } from './analytics-periods.js'
import {
  type Settings,
  type StoreFactory,
  type Tap,
  TRICKY_NAMES,
  activityEvent,
  open,
  settingsOf,
  siteRecord,
  visitEvent,
} from './fixtures.js'

const YEAR: [string, string] = ['2024-01-01', '2024-12-31']

/** Registers every analytics group on `t`. */
export function analyticsGroups(t: Tap, factory: StoreFactory, settings: Settings): void {
  recordingGroups(t, factory, settings)
  periodGroups(t, factory, settings)
  batchGroups(t, factory, settings)
}

/**
 * The analytics groups alone, as one subtest named `${name}: analytics`.
 *
 * @deprecated `storeConformance` runs them now, with everything else: call
 * it alone. Kept so that existing suites still run; it runs the same
 * groups as storeConformance, with its default options.
 */
export function analyticsConformance(t: Tap, name: string, factory: StoreFactory): void {
  t.test(`${name}: analytics`, async (t) => analyticsGroups(t, factory, settingsOf()))
}

function recordingGroups(t: Tap, factory: StoreFactory, settings: Settings): void {
  t.test('recording resolves the site in the same step', async (t) => {
    const store = await open(t, factory)
    const check = analyticsChecks(t, store, settings)
    const missing = visitEvent('nosuch', '2024-01-10', 'a')
    t.equal(await store.recordVisit(missing), undefined, 'a visit for a missing site answers undefined')
    const activity = activityEvent('nosuch', '2024-01-10', 'click_to_call')
    t.equal(await store.recordActivity(activity), undefined, 'so does an activity')
    await check.totals('nosuch', ...YEAR, NONE, 'and nothing is recorded')
    t.strictSame((await store.siteActivities('nosuch', ...YEAR))[0]?.data.click_to_call, 0, 'no activity either')
    t.strictSame(await store.mostTraffic('alice', ...YEAR, 10), [], 'nor anything ranked')
    // The name exists later: the earlier calls left nothing behind for it.
    await check.createSites('alice', 'nosuch')
    await check.totals('nosuch', ...YEAR, NONE, 'a site created afterwards starts empty')

    // The answer carries the owner and build state as stored, JSON-special characters included.
    const owner = 'o"w\\ner:\n☃'
    const site = (build: SiteRecord['build']) => siteRecord(`lazy-${build}`, owner, { build })
    for (const build of ['delayed', 'built', 'pending', 'FAILED_CONTENT_TOO_BIG'] as const) {
      t.equal(await store.createSite(site(build)), true)
      const visit = visitEvent(`lazy-${build}`, '2024-01-10', 'a')
      t.strictSame(await store.recordVisit(visit), { owner, build }, `visit: ${build}`)
      const activity = activityEvent(`lazy-${build}`, '2024-01-10', 'form_submit')
      t.strictSame(await store.recordActivity(activity), { owner, build }, `activity: ${build}`)
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
    const check = analyticsChecks(t, store, settings)
    await check.createSites('alice', 'brief', 'other')
    await check.recordAll([
      visitEvent('brief', '2024-02-01', 'a'),
      visitEvent('brief', '2024-02-01', 'b'),
      visitEvent('other', '2024-02-01', 'a'),
    ])
    t.equal(await store.deleteSite('alice', 'brief'), true)
    const visit = visitEvent('brief', '2024-02-01', 'c')
    t.equal(await store.recordVisit(visit), undefined, 'a visit after the delete is refused')
    const activity = activityEvent('brief', '2024-02-01', 'click_to_map')
    t.equal(await store.recordActivity(activity), undefined, 'an activity too')
    await check.totals('brief', ...YEAR, NONE, 'nothing recorded after the delete')
    t.strictSame(
      (await store.mostTraffic('alice', ...YEAR, 10)).map((r) => r.site_name),
      ['other'],
    )

    await check.createSites('alice', 'brief')
    t.strictSame(await store.recordVisit(visitEvent('brief', '2024-02-01', 'a', { page_views: 4 })), {
      owner: 'alice',
      build: 'built',
    })
    await check.totals(
      'brief',
      '2024-02-01',
      '2024-02-01',
      traffic(1, 4, 1),
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
    const check = analyticsChecks(t, store, settings)
    await check.createSites('alice', 'racy')
    const visits = Array.from({ length: 200 }, (_, i) => store.recordVisit(visitEvent('racy', '2024-03-01', `v${i}`)))
    const deleted = store.deleteSite('alice', 'racy')
    const later = Array.from({ length: 200 }, (_, i) => store.recordVisit(visitEvent('racy', '2024-03-01', `w${i}`)))
    const outcomes = await Promise.all([...visits, ...later])
    t.equal(await deleted, true)
    t.ok(
      outcomes.every((o) => o === undefined || (o.owner === 'alice' && o.build === 'built')),
      'each visit is recorded for the site or refused',
    )
    await check.totals('racy', '2024-03-01', '2024-03-01', NONE, 'whatever was recorded went with the site')
    t.strictSame(await store.mostTraffic('alice', '2024-03-01', '2024-03-01', 10), [])
  })

  t.test('deleteSite drops its analytics', async (t) => {
    const store = await open(t, factory)
    const check = analyticsChecks(t, store, settings)
    const ranked = async (owner: string) => (await store.mostTraffic(owner, ...YEAR, 10)).map((r) => r.site_name)
    await check.createSites('alice', 'gone', 'kept')
    await store.recordVisit(visitEvent('gone', '2024-02-01', 'a'))
    await store.recordActivity(activityEvent('gone', '2024-02-01', 'click_to_map'))
    await store.recordVisit(visitEvent('kept', '2024-02-01', 'a'))
    t.equal(await store.deleteSite('alice', 'gone'), true)
    await check.totals('gone', ...YEAR, NONE, 'traffic gone')
    t.strictSame((await store.siteActivities('gone', ...YEAR))[0]?.data.click_to_map ?? 0, 0, 'activities gone')
    t.strictSame(await ranked('alice'), ['kept'], 'out of the ranking')
    // The name is free again; a new owner starts from nothing.
    await check.createSites('bob', 'gone')
    await store.recordVisit(visitEvent('gone', '2024-02-01', 'b'))
    await check.totals('gone', '2024-02-01', '2024-02-01', traffic(1, 1, 1), 'new incarnation')
    t.strictSame(await ranked('bob'), ['gone'])
    t.strictSame(await ranked('alice'), ['kept'])
  })

  t.test('concurrent recording loses nothing', async (t) => {
    const store = await open(t, factory)
    const check = analyticsChecks(t, store, settings)
    await check.createSites('alice', 'hot')
    const events = Array.from({ length: 1000 }, (_, i) =>
      visitEvent('hot', '2024-10-01', `v${i % 250}`, { page_views: 1 + (i % 3) }),
    )
    await Promise.all([
      check.recordAll(events),
      ...Array.from({ length: 100 }, () => store.recordActivity(activityEvent('hot', '2024-10-01', 'click_to_email'))),
    ])
    await check.totals('hot', '2024-10-01', '2024-10-01', traffic(1000, 1999, 250), 'all visits counted')
    t.equal(
      (await store.siteActivities('hot', '2024-10-01', '2024-10-01'))[0]?.data.click_to_email,
      100,
      'all activities counted',
    )
  })

  t.test('user-supplied strings are ordinary data', async (t) => {
    const store = await open(t, factory)
    const check = analyticsChecks(t, store, settings)
    const day = '2024-11-01'
    for (const tricky of TRICKY_NAMES) {
      const site = `site${tricky}`
      const dimensions = { browser: tricky, os: tricky, country: tricky, region: tricky }
      await check.createSites(tricky, site)
      await store.recordVisit(visitEvent(site, day, tricky, dimensions))
      await store.recordActivity(activityEvent(site, day, 'click_to_call', dimensions))
      await check.totals(site, day, day, traffic(1, 1, 1), tricky)
      t.strictSame(
        (await store.siteTraffic(site, day, day, 'geo')).map((r) => r.key),
        [[tricky, tricky]],
      )
      t.strictSame(
        (await store.siteActivities(site, day, day, 'system')).map((r) => r.key),
        [[tricky, tricky]],
      )
      t.strictSame(
        (await store.mostTraffic(tricky, day, day, 10)).map((r) => r.site_name),
        [site],
      )
    }
    // Values that a naive "a|b" key would confuse stay apart.
    await check.createSites('alice', 'sep')
    await store.recordVisit(visitEvent('sep', '2024-11-02', 'x', { country: 'a|b', region: 'c' }))
    await store.recordVisit(visitEvent('sep', '2024-11-02', 'y', { country: 'a', region: 'b|c' }))
    check.keys(await store.siteTraffic('sep', '2024-11-02', '2024-11-02', 'geo'), ['a / b|c', 'a|b / c'])
  })
}
