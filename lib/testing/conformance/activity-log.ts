/**
 * Conformance group for a site's activity log (`appendSiteActivity`): the
 * owner's site only, oldest first, bounded, atomic under concurrent appends,
 * kept by patches and gone with the site.
 */
import { T0, open, siteRecord } from './fixtures.js'
import type { StoreFactory, Tap } from './fixtures.js'

/** Registers the activity-log group on `t`. */
export function activityLogGroups(t: Tap, factory: StoreFactory): void {
  t.test('appendSiteActivity', async (t) => {
    const store = await open(t, factory)
    await store.createSite(siteRecord('logsite', 'alice'))
    t.equal((await store.getSite('logsite'))?.activity_log, undefined, 'a new site has no log')
    t.equal(await store.appendSiteActivity('alice', 'logsite', { at: T0, activity: 'site_created' }, 3), true)
    t.equal(await store.appendSiteActivity('alice', 'logsite', { at: T0 + 1000, activity: 'site_published' }, 3), true)
    t.strictSame((await store.getSite('logsite'))?.activity_log, [
      { at: T0, activity: 'site_created' },
      { at: T0 + 1000, activity: 'site_published' },
    ])
    t.equal(
      await store.appendSiteActivity('bob', 'logsite', { at: T0, activity: 'site_reset' }, 3),
      false,
      'not the owner',
    )
    t.equal(await store.appendSiteActivity('alice', 'missing', { at: T0, activity: 'site_reset' }, 3), false)
    t.equal((await store.getSite('logsite'))?.activity_log?.length, 2, 'a refused append changes nothing')

    for (let i = 2; i < 5; i++)
      await store.appendSiteActivity('alice', 'logsite', { at: T0 + i * 1000, activity: `a${i}` }, 3)
    t.strictSame(
      (await store.getSite('logsite'))?.activity_log?.map((e) => e.activity),
      ['a2', 'a3', 'a4'],
      'the oldest entries beyond the most are dropped',
    )
    await store.updateSite('alice', 'logsite', { site_domain: 'log.example', modified_at: T0 + 9000 })
    t.equal((await store.getSite('logsite'))?.activity_log?.length, 3, 'a patch keeps the log')

    await store.createSite(siteRecord('busysite', 'alice'))
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.appendSiteActivity('alice', 'busysite', { at: T0 + i, activity: `c${i}` }, 100),
      ),
    )
    const busy = (await store.getSite('busysite'))?.activity_log ?? []
    t.equal(busy.length, 20, 'concurrent appends all land')
    t.strictSame(new Set(busy.map((e) => e.activity)).size, 20)

    await store.deleteSite('alice', 'logsite')
    await store.createSite(siteRecord('logsite', 'alice'))
    t.equal((await store.getSite('logsite'))?.activity_log, undefined, 'the log goes with the site')
  })
}
