/**
 * Conformance groups for publishing, billing and deletion: the first-publish
 * charge, subscriptions, and what Delete Site cascades to.
 */
import { TRICKY_NAMES, accountRecord, at, open, siteRecord } from './fixtures.js'
import type { StoreFactory, Tap } from './fixtures.js'

const ALL: [number, number] = [0, Number.MAX_SAFE_INTEGER]

/** Registers the publish, billing and delete groups on `t`. */
export function lifecycleGroups(t: Tap, factory: StoreFactory): void {
  t.test('publishSite: the first publish charges once', async (t) => {
    const store = await open(t, factory)
    await store.createSite(siteRecord('pub', 'alice'))
    t.strictSame(await store.getBilling('alice'), { charges: [], subscriptions: [] }, 'an owner without charges')

    t.strictSame(await store.publishSite('alice', 'pub', at(10), true), { charged: true }, 'first publish charges')
    let site = await store.getSite('pub')
    t.equal(site?.published_at, at(10))
    t.equal(site?.modified_at, at(10))
    t.equal(site?.first_published_at, at(10))
    const ledger = {
      charges: [{ site_name: 'pub', at: at(10) }],
      subscriptions: [{ site_name: 'pub', status: 'active' as const }],
    }
    t.strictSame(await store.getBilling('alice'), ledger, 'one charge and one active subscription')

    t.strictSame(await store.publishSite('alice', 'pub', at(20), true), { charged: false }, 'a second publish does not')
    site = await store.getSite('pub')
    t.equal(site?.published_at, at(20), 'published_at moves')
    t.equal(site?.first_published_at, at(10), 'first_published_at never moves')

    await store.updateSite('alice', 'pub', { published_at: null, modified_at: at(25) })
    t.strictSame(
      await store.publishSite('alice', 'pub', at(30), true),
      { charged: false },
      'nor a publish after unpublish',
    )
    t.strictSame(await store.getBilling('alice'), ledger, 'the ledger is unchanged')
    t.strictSame(await store.getBilling('bob'), { charges: [], subscriptions: [] }, 'ledgers are per owner')

    const copy = await store.getBilling('alice')
    copy.charges.push({ site_name: 'fake', at: 0 })
    copy.subscriptions[0]!.status = 'cancelled'
    t.strictSame(await store.getBilling('alice'), ledger, 'getBilling returns a copy')
    for (const name of TRICKY_NAMES) {
      t.strictSame(await store.getBilling(name), { charges: [], subscriptions: [] }, `getBilling(${name})`)
    }
  })

  t.test('publishSite: a publish without charge (test=true) is not a first publish', async (t) => {
    const store = await open(t, factory)
    await store.createSite(siteRecord('free', 'alice'))
    t.strictSame(await store.publishSite('alice', 'free', at(1), false), { charged: false }, 'a test publish')
    let site = await store.getSite('free')
    t.equal(site?.published_at, at(1), 'publishes')
    t.equal(site?.first_published_at, undefined, 'but is not the first publish')
    t.strictSame(await store.publishSite('alice', 'free', at(2), false), { charged: false }, 'nor is a second one')
    t.strictSame(await store.publishSite('alice', 'free', at(3), true), { charged: true }, 'the first real one charges')
    site = await store.getSite('free')
    t.equal(site?.first_published_at, at(3))
    t.strictSame(await store.publishSite('alice', 'free', at(4), true), { charged: false }, 'once')
    t.strictSame(await store.publishSite('alice', 'free', at(5), false), { charged: false })
    t.strictSame(await store.getBilling('alice'), {
      charges: [{ site_name: 'free', at: at(3) }],
      subscriptions: [{ site_name: 'free', status: 'active' }],
    })
  })

  t.test('publishSite: owner checks', async (t) => {
    const store = await open(t, factory)
    const record = siteRecord('mine', 'alice')
    await store.createSite(record)
    t.equal(await store.publishSite('bob', 'mine', at(1), true), undefined, "another owner's site is not found")
    t.equal(await store.publishSite('alice', 'missing', at(1), true), undefined, 'missing site')
    t.strictSame(await store.getSite('mine'), record, 'nothing changed')
    t.strictSame(await store.getBilling('bob'), { charges: [], subscriptions: [] }, 'nobody was charged')
    t.strictSame(await store.getBilling('alice'), { charges: [], subscriptions: [] })
    t.strictSame(await store.getSite('missing'), undefined)
  })

  t.test('publishSite: 50 parallel first publishes charge exactly once', async (t) => {
    const store = await open(t, factory)
    await store.createSite(siteRecord('race', 'alice'))
    const times = Array.from({ length: 50 }, (_, i) => at(100 + i))
    const outcomes = await Promise.all(times.map((when) => store.publishSite('alice', 'race', when, true)))
    const charged = outcomes.map((o, i) => (o?.charged ? times[i] : undefined)).filter((x) => x !== undefined)
    t.equal(charged.length, 1, 'exactly one charged: true')
    t.ok(
      outcomes.every((o) => o !== undefined),
      'every publish found the site',
    )
    t.strictSame(
      await store.getBilling('alice'),
      { charges: [{ site_name: 'race', at: charged[0] }], subscriptions: [{ site_name: 'race', status: 'active' }] },
      'exactly one ledger charge, at the charged publish',
    )
    t.equal((await store.getSite('race'))?.first_published_at, charged[0], 'first_published_at is the charged publish')
  })

  t.test('publishSite: parallel first publishes of different sites all land in the ledger', async (t) => {
    const store = await open(t, factory)
    const names = Array.from({ length: 30 }, (_, i) => `many-${String(i).padStart(2, '0')}`)
    for (const name of names) await store.createSite(siteRecord(name, 'alice'))
    const outcomes = await Promise.all(names.map((name, i) => store.publishSite('alice', name, at(i), true)))
    t.ok(
      outcomes.every((o) => o?.charged === true),
      'each site is charged',
    )
    const billing = await store.getBilling('alice')
    t.strictSame(billing.charges.map((c) => c.site_name).sort(), names, 'no charge is lost')
    t.strictSame(billing.subscriptions.map((s) => s.site_name).sort(), names, 'no subscription is lost')
    t.ok(billing.subscriptions.every((s) => s.status === 'active'))
  })

  t.test('deleteSite: cascades and frees the name', async (t) => {
    const store = await open(t, factory)
    await store.createSite(
      siteRecord('gone', 'alice', { external_uid: 'uid-gone', created_at: at(1), modified_at: at(2) }),
    )
    await store.createSite(siteRecord('kept', 'alice', { created_at: at(1), modified_at: at(2) }))
    await store.createAccount(accountRecord('acc', 'alice'))
    await store.grantAccess('alice', 'acc', 'gone')
    await store.grantAccess('alice', 'acc', 'kept')
    await store.publishSite('alice', 'gone', at(3), true)

    t.equal(await store.deleteSite('bob', 'gone'), false, "another owner's site is not found")
    t.ok(await store.getSite('gone'), 'and it is still there')
    t.equal(await store.deleteSite('alice', 'missing'), false, 'missing site')

    t.equal(await store.deleteSite('alice', 'gone'), true)
    t.equal(await store.getSite('gone'), undefined)
    t.equal(await store.deleteSite('alice', 'gone'), false, 'a second delete finds nothing')
    t.strictSame(await store.listSites('alice', 'created', ...ALL), ['kept'], 'gone from the creation index')
    t.strictSame(await store.listSites('alice', 'modified', ...ALL), ['kept'], 'gone from the modification index')
    t.equal(await store.findSiteByExternalUid('alice', 'uid-gone'), undefined, 'gone from the external-uid index')
    t.strictSame(await store.listGrants('alice', 'acc'), ['kept'], 'its grants are removed')
    t.strictSame(
      await store.getBilling('alice'),
      { charges: [{ site_name: 'gone', at: at(3) }], subscriptions: [{ site_name: 'gone', status: 'cancelled' }] },
      'its subscription is cancelled; the charge stays',
    )

    t.equal(
      await store.createSite(siteRecord('gone', 'alice', { created_at: at(10), modified_at: at(10) })),
      true,
      'the name is free again',
    )
    t.strictSame(await store.listGrants('alice', 'acc'), ['kept'], 'the new site does not inherit old grants')
    t.notOk('first_published_at' in ((await store.getSite('gone')) ?? {}), 'nor the old publish')
    t.strictSame(await store.listSites('alice', 'created', at(1), at(1)), ['kept'], 'nor old index entries')
    t.strictSame(
      await store.publishSite('alice', 'gone', at(11), true),
      { charged: true },
      'a new incarnation is charged anew',
    )
    let billing = await store.getBilling('alice')
    t.strictSame(billing.subscriptions, [
      { site_name: 'gone', status: 'cancelled' },
      { site_name: 'gone', status: 'active' },
    ])
    t.equal(billing.charges.length, 2)

    await store.deleteSite('alice', 'gone')
    billing = await store.getBilling('alice')
    t.strictSame(
      billing.subscriptions.map((s) => s.status),
      ['cancelled', 'cancelled'],
      'only the active one is cancelled again',
    )

    t.equal(await store.createSite(siteRecord('gone', 'bob')), true, 'another owner may take the freed name')
    await store.publishSite('bob', 'gone', at(20), true)
    await store.deleteSite('bob', 'gone')
    t.strictSame(await store.getBilling('bob'), {
      charges: [{ site_name: 'gone', at: at(20) }],
      subscriptions: [{ site_name: 'gone', status: 'cancelled' }],
    })
    t.equal((await store.getBilling('alice')).subscriptions.length, 2, "bob's site does not touch alice's ledger")
  })

  t.test('deleteSite: an unpublished or uncharged site has nothing to cancel', async (t) => {
    const store = await open(t, factory)
    await store.createSite(siteRecord('never', 'alice'))
    await store.createSite(siteRecord('testpub', 'alice'))
    await store.publishSite('alice', 'testpub', at(1), false)
    t.equal(await store.deleteSite('alice', 'never'), true)
    t.equal(await store.deleteSite('alice', 'testpub'), true)
    t.strictSame(await store.getBilling('alice'), { charges: [], subscriptions: [] })
  })

  t.test('deleteSite: 50 parallel deletes, exactly one succeeds', async (t) => {
    const store = await open(t, factory)
    await store.createSite(siteRecord('del', 'alice'))
    await store.publishSite('alice', 'del', at(1), true)
    const results = await Promise.all(Array.from({ length: 50 }, () => store.deleteSite('alice', 'del')))
    t.equal(results.filter(Boolean).length, 1, 'exactly one true')
    t.strictSame((await store.getBilling('alice')).subscriptions, [{ site_name: 'del', status: 'cancelled' }])
  })
}
