/**
 * Conformance groups for site expectations: updateSite, publishSite and
 * deleteSite apply only when the stored site holds the expected created_at
 * and build, checked in the same atomic step as the mutation.
 */
import type { SiteExpectation, SiteRecord, Store } from '../../store/contract/index.js'
import { accountRecord, at, open, siteRecord } from './fixtures.js'
import type { StoreFactory, Tap } from './fixtures.js'

const ALL: [number, number] = [0, Number.MAX_SAFE_INTEGER]
const EMPTY = { charges: [], subscriptions: [] }

/** Everything a refused mutation could have touched, to compare before and after. */
async function snapshot(store: Store, owner: string, site_name: string): Promise<unknown> {
  return {
    site: await store.getSite(site_name),
    created: await store.listSites(owner, 'created', ...ALL),
    modified: await store.listSites(owner, 'modified', ...ALL),
    uid: (await store.findSiteByExternalUid(owner, 'uid'))?.site_name,
    billing: await store.getBilling(owner),
  }
}

/** Expectations that differ from `site` in exactly one field. */
function wrongExpectations(site: SiteRecord): [string, SiteExpectation][] {
  return [
    ['created_at differs', { created_at: site.created_at + 1, build: site.build }],
    ['build differs', { created_at: site.created_at, build: site.build === 'built' ? 'pending' : 'built' }],
    ['one failure for another', { build: 'FAILED_CONTENT_TOO_BIG' }],
    ['only created_at given, and it differs', { created_at: site.created_at - 1000 }],
  ]
}

/** Registers the expectation groups on `t`. */
export function expectationGroups(t: Tap, factory: StoreFactory): void {
  t.test('a failed expectation changes nothing and reports not found', async (t) => {
    const store = await open(t, factory)
    const site = siteRecord('guarded', 'alice', {
      build: 'FAILED',
      external_uid: 'uid',
      created_at: at(1),
      modified_at: at(2),
    })
    await store.createSite(site)
    await store.createAccount(accountRecord('acc', 'alice'))
    await store.grantAccess('alice', 'acc', 'guarded')
    const before = await snapshot(store, 'alice', 'guarded')
    for (const [label, expect] of wrongExpectations(site)) {
      const patch = { build: 'built' as const, modified_at: at(9), external_uid: 'moved' }
      t.equal(await store.updateSite('alice', 'guarded', patch, expect), undefined, `updateSite: ${label}`)
      t.equal(await store.publishSite('alice', 'guarded', at(9), true, expect), undefined, `publishSite: ${label}`)
      t.equal(await store.deleteSite('alice', 'guarded', expect), false, `deleteSite: ${label}`)
    }
    t.strictSame(await snapshot(store, 'alice', 'guarded'), before, 'site, indexes and ledger are untouched')
    t.strictSame(await store.listGrants('alice', 'acc'), ['guarded'], 'the grant survives')
    t.strictSame(await store.getBilling('alice'), EMPTY, 'nobody was charged')
  })

  t.test('a matching expectation lets each mutation apply', async (t) => {
    const store = await open(t, factory)
    const site = siteRecord('site', 'alice', { build: 'pending', created_at: at(1), modified_at: at(1) })
    await store.createSite(site)
    const both = { created_at: at(1), build: 'pending' as const }

    const updated = await store.updateSite('alice', 'site', { build: 'built', publish_when_built: null }, both)
    t.equal(updated?.build, 'built', 'updateSite applies; the expectation is checked before the patch')
    t.equal(
      await store.updateSite('alice', 'site', { site_domain: 'm.example' }, both),
      undefined,
      'the old build no longer matches',
    )

    const built = { created_at: at(1), build: 'built' as const }
    t.equal((await store.updateSite('alice', 'site', { site_domain: 'm.example' }, built))?.site_domain, 'm.example')
    t.equal(
      (await store.updateSite('alice', 'site', { modified_at: at(3) }, { created_at: at(1) }))?.modified_at,
      at(3),
      'created_at alone',
    )
    t.equal(
      (await store.updateSite('alice', 'site', { cache_reset_at: at(3) }, { build: 'built' }))?.cache_reset_at,
      at(3),
      'build alone',
    )
    t.ok(await store.updateSite('alice', 'site', { cache_reset_at: at(4) }, {}), 'an empty expectation expects nothing')
    t.ok(
      await store.updateSite('alice', 'site', { cache_reset_at: at(5) }, { created_at: undefined, build: undefined }),
      'nor undefined fields',
    )

    t.strictSame(
      await store.publishSite('alice', 'site', at(6), true, built),
      { charged: true },
      'publishSite applies and charges',
    )
    t.equal((await store.getSite('site'))?.published_at, at(6))
    t.strictSame(await store.publishSite('alice', 'site', at(7), true, { build: 'built' }), { charged: false })
    t.strictSame((await store.getBilling('alice')).charges, [{ site_name: 'site', at: at(6) }])

    t.equal(await store.deleteSite('alice', 'site', built), true, 'deleteSite applies')
    t.equal(await store.getSite('site'), undefined)
    t.strictSame((await store.getBilling('alice')).subscriptions, [{ site_name: 'site', status: 'cancelled' }])
  })

  t.test('the owner check still comes first', async (t) => {
    const store = await open(t, factory)
    const site = siteRecord('mine', 'alice')
    await store.createSite(site)
    const exact = { created_at: site.created_at, build: site.build }
    t.equal(await store.updateSite('bob', 'mine', { site_domain: 'x.example' }, exact), undefined)
    t.equal(await store.publishSite('bob', 'mine', at(1), true, exact), undefined)
    t.equal(await store.deleteSite('bob', 'mine', exact), false)
    t.equal(await store.updateSite('alice', 'missing', { site_domain: 'x.example' }, exact), undefined, 'missing site')
    t.strictSame(await store.getSite('mine'), site)
    t.strictSame(await store.getBilling('bob'), EMPTY)
  })

  t.test('delete and re-create of the name: the old created_at no longer matches', async (t) => {
    const store = await open(t, factory)
    await store.createSite(siteRecord('reborn', 'alice', { build: 'pending', created_at: at(1), modified_at: at(1) }))
    const old = (await store.getSite('reborn')) as SiteRecord
    const stale = { created_at: old.created_at, build: old.build }
    t.equal(await store.deleteSite('alice', 'reborn'), true)
    const fresh = siteRecord('reborn', 'alice', { build: 'pending', created_at: at(2), modified_at: at(2) })
    t.equal(await store.createSite(fresh), true, 'the same owner re-creates the name, same build state')

    t.equal(await store.updateSite('alice', 'reborn', { build: 'FAILED' }, stale), undefined, 'updateSite refused')
    t.equal(await store.publishSite('alice', 'reborn', at(3), true, stale), undefined, 'publishSite refused')
    t.equal(await store.deleteSite('alice', 'reborn', stale), false, 'deleteSite refused')
    t.strictSame(await store.getSite('reborn'), fresh, 'the new site is untouched')
    t.strictSame(await store.getBilling('alice'), EMPTY)

    t.equal(
      (await store.updateSite('alice', 'reborn', { build: 'built' }, { created_at: at(2) }))?.build,
      'built',
      'its own created_at matches',
    )
  })

  t.test('50 parallel guarded updates of the build: exactly one applies', async (t) => {
    const store = await open(t, factory)
    await store.createSite(siteRecord('race', 'alice', { build: 'pending' }))
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        store.updateSite('alice', 'race', { build: 'built', modified_at: at(100 + i) }, { build: 'pending' }),
      ),
    )
    const applied = results.filter((r) => r !== undefined)
    t.equal(applied.length, 1, 'one winner')
    t.strictSame(await store.getSite('race'), applied[0], 'the stored site is the winner’s')
    t.strictSame(await store.listSites('alice', 'modified', ...ALL), ['race'])
  })

  t.test('an expectation with another key rejects with TypeError and changes nothing', async (t) => {
    const store = await open(t, factory)
    const site = siteRecord('strict', 'alice')
    await store.createSite(site)
    const bad = { owner: 'alice' } as unknown as SiteExpectation
    await t.rejects(store.updateSite('alice', 'strict', { site_domain: 'x.example' }, bad), TypeError, 'updateSite')
    await t.rejects(store.publishSite('alice', 'strict', at(1), true, bad), TypeError, 'publishSite')
    await t.rejects(store.deleteSite('alice', 'strict', bad), TypeError, 'deleteSite')
    t.strictSame(await store.getSite('strict'), site)
    t.strictSame(await store.getBilling('alice'), EMPTY)
  })
}
