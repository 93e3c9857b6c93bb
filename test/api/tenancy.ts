/**
 * Tenancy: a master account sees only its own sites and
 * sub-accounts; another master's resource is ResourceNotExist, except that a
 * taken name is ResourceAlreadyExist, since site and account names are global.
 */
import t, { type Test } from 'tap'
import { createSite, type Fixture, isEmpty, isError, isMissing, setup, siteBody } from '../helpers/api.js'

async function seed(t: Test, f: Fixture): Promise<void> {
  f.clock.set('2025-03-09T00:00:00')
  await createSite(t, f.alice, 'alicesite', { external_uid: 'shared-uid', site_domain: 'a.example.com' })
  await f.alice.post('/accounts/create', { account_name: 'alice-sub', first_name: 'Sub' })
  f.clock.set('2025-03-10T12:00:00')
}

t.test('another master’s site does not exist for bob, on every site endpoint', async (t) => {
  const f = await setup(t)
  await seed(t, f)
  const calls: [string, () => Promise<import('../helpers/api.js').Res>][] = [
    ['retrieve', () => f.bob.get('/sites/alicesite')],
    ['by external id', () => f.bob.get('/sites/byexternal/shared-uid')],
    ['update', () => f.bob.post('/sites/update/alicesite', { site_domain: 'evil.example.com' })],
    ['delete', () => f.bob.del('/sites/alicesite')],
    ['publish', () => f.bob.post('/sites/publish/alicesite')],
    ['publish test', () => f.bob.post('/sites/publish/alicesite?test=true')],
    ['unpublish', () => f.bob.post('/sites/unpublish/alicesite')],
    ['resetcache', () => f.bob.post('/sites/resetcache/alicesite')],
    ['recreate', () => f.bob.post('/sites/recreate/alicesite', { republish: true })],
    ['get-many', () => f.bob.post('/sites/get-many', [{ site_name: 'alicesite' }])],
    ['carol retrieve', () => f.carol.get('/sites/alicesite')],
  ]
  for (const [label, call] of calls) {
    const message = isMissing(t, await call(), label)
    t.notMatch(message, /alice\b(?!site)|owner|belongs/i, `${label}: the message does not reveal the owner`)
  }
  const site = await f.alice.get('/sites/alicesite')
  t.strictSame(
    site.body,
    {
      site_name: 'alicesite',
      original_site_url: 'https://www.example.com/',
      site_domain: 'a.example.com',
      auto_sync_cache_ttl: 'SHORT',
      external_uid: 'shared-uid',
    },
    'alice’s site is untouched and unpublished',
  )
  t.same(await f.engine.billing('alice'), { charges: [], subscriptions: [] })
  t.same(await f.engine.billing('bob'), { charges: [], subscriptions: [] })
})

t.test('get-many fails when any name is another master’s, and does not leak the others', async (t) => {
  const f = await setup(t)
  await seed(t, f)
  await createSite(t, f.bob, 'bobsite')
  const message = isMissing(
    t,
    await f.bob.post('/sites/get-many', [{ site_name: 'bobsite' }, { site_name: 'alicesite' }]),
  )
  t.match(message, /alicesite/)
  t.notMatch(message, /bobsite/)
})

t.test('listings show only the caller’s sites', async (t) => {
  const f = await setup(t)
  await seed(t, f)
  await createSite(t, f.bob, 'bobsite')
  t.same((await f.bob.get('/sites/created')).body, [{ site_name: 'bobsite' }])
  t.same((await f.bob.get('/sites/modified')).body, [{ site_name: 'bobsite' }])
  t.same((await f.carol.get('/sites/created')).body, [])
  t.same((await f.alice.get('/sites/created')).body, [{ site_name: 'alicesite' }])
})

t.test('site names are global: a taken name is ResourceAlreadyExist, freed by its owner’s delete', async (t) => {
  const f = await setup(t)
  await seed(t, f)
  isError(
    t,
    await f.bob.post('/sites/create', siteBody('alicesite')),
    400,
    'ResourceAlreadyExist',
    'bob takes alice’s name',
  )
  isError(t, await f.carol.post('/sites/create', siteBody('alicesite')), 400, 'ResourceAlreadyExist', 'carol too')
  const generated = await createSite(t, f.bob, undefined)
  t.equal(generated, 'examplecom', 'generated names are global too')
  const second = await createSite(t, f.alice, undefined)
  t.not(second, 'examplecom', 'alice gets another generated name')
  isEmpty(t, await f.alice.del('/sites/alicesite'))
  await createSite(t, f.bob, 'alicesite')
  t.equal((await f.bob.get('/sites/alicesite')).status, 200, 'bob owns it now')
  isMissing(t, await f.alice.get('/sites/alicesite'), 'alice no longer sees it')
})

t.test('external_uid is per master: each finds their own site', async (t) => {
  const f = await setup(t)
  await seed(t, f)
  await createSite(t, f.bob, 'bobsite', { external_uid: 'shared-uid' })
  t.equal((await f.bob.get('/sites/byexternal/shared-uid')).body.site_name, 'bobsite')
  t.equal((await f.alice.get('/sites/byexternal/shared-uid')).body.site_name, 'alicesite')
})

t.test('billing is per master: bob’s publishes never charge alice', async (t) => {
  const f = await setup(t)
  await seed(t, f)
  await createSite(t, f.bob, 'bobsite', {}, { publish_now: true })
  await f.alice.post('/sites/publish/alicesite')
  const charged = async (user: string) => (await f.engine.billing(user)).charges.map((c) => c.site_name)
  t.same(await charged('alice'), ['alicesite'])
  t.same(await charged('bob'), ['bobsite'])
  await f.bob.del('/sites/alicesite')
  const { subscriptions } = await f.engine.billing('alice')
  t.same(subscriptions, [{ site_name: 'alicesite', status: 'active' }], 'bob cannot cancel alice’s subscription')
})

t.test('another master’s sub-accounts do not exist for bob; account names are global', async (t) => {
  const f = await setup(t)
  await seed(t, f)
  await createSite(t, f.bob, 'bobsite')
  await f.bob.post('/accounts/create', { account_name: 'bob-sub' })
  const calls: [string, () => Promise<import('../helpers/api.js').Res>][] = [
    ['retrieve', () => f.bob.get('/accounts/alice-sub')],
    ['update', () => f.bob.post('/accounts/update/alice-sub', { first_name: 'Evil' })],
    ['delete', () => f.bob.del('/account/alice-sub')],
    ['grant alice’s account on bob’s site', () => f.bob.post('/accounts/grant-access/alice-sub/sites/bobsite')],
    ['revoke alice’s account on bob’s site', () => f.bob.post('/accounts/revoke-access/alice-sub/sites/bobsite')],
    ['grant bob’s account on alice’s site', () => f.bob.post('/accounts/grant-access/bob-sub/sites/alicesite')],
    ['revoke bob’s account on alice’s site', () => f.bob.post('/accounts/revoke-access/bob-sub/sites/alicesite')],
    ['alice grants bob’s account', () => f.alice.post('/accounts/grant-access/bob-sub/sites/alicesite')],
  ]
  for (const [label, call] of calls) isMissing(t, await call(), label)
  isError(
    t,
    await f.bob.post('/accounts/create', { account_name: 'alice-sub' }),
    400,
    'ResourceAlreadyExist',
    'taken account name',
  )
  t.strictSame(
    (await f.alice.get('/accounts/alice-sub')).body,
    { account_name: 'alice-sub', first_name: 'Sub' },
    'untouched',
  )
  t.same(await f.bob.api.accountSites('bob-sub'), [], 'no grant slipped through')
  t.same(await f.alice.api.accountSites('alice-sub'), [])
  isEmpty(t, await f.alice.del('/account/alice-sub'))
  isEmpty(
    t,
    await f.bob.post('/accounts/create', { account_name: 'alice-sub' }),
    'a deleted account name is free for anyone',
  )
})
