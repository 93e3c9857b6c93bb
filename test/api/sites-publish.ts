/**
 * Publish, unpublish, billing (first publish charges once, `?test=true`,
 * delete cancels), recreate, reset cache and the modification time, over
 * HTTP (docs/api.md: Publish Site, Recreate Site).
 */
import t from 'tap'
import { createSite, type Fixture, isEmpty, isInvalid, isMissing, setup } from '../helpers/api.js'

async function site(f: Fixture, name: string): Promise<Record<string, unknown>> {
  return (await f.alice.get(`/sites/${name}`)).body
}

t.test('publish sets last_published_date; unpublish removes it; publish again renews it', async (t) => {
  const f = await setup(t)
  await createSite(t, f.alice, 'pubsite')
  t.notOk('last_published_date' in (await site(f, 'pubsite')), 'unpublished at first')
  f.clock.set('2025-03-12T01:02:03')
  isEmpty(t, await f.alice.post('/sites/publish/pubsite'), 'publish')
  t.equal((await site(f, 'pubsite')).last_published_date, '2025-03-12T01:02:03')
  t.equal(
    (await f.alice.post('/sites/get-many', [{ site_name: 'pubsite' }])).body[0].last_published_date,
    '2025-03-12T01:02:03',
    'in get-many too',
  )
  f.clock.advance(3600)
  isEmpty(t, await f.alice.post('/sites/unpublish/pubsite'), 'unpublish')
  t.notOk('last_published_date' in (await site(f, 'pubsite')), 'absent while unpublished')
  isEmpty(t, await f.alice.post('/sites/unpublish/pubsite'), 'unpublish an unpublished site')
  f.clock.advance(3600)
  isEmpty(t, await f.alice.post('/sites/publish/pubsite'), 'publish again')
  t.equal((await site(f, 'pubsite')).last_published_date, '2025-03-12T03:02:03')
  f.clock.advance(60)
  isEmpty(t, await f.alice.post('/sites/publish/pubsite'), 'publish a published site')
  t.equal((await site(f, 'pubsite')).last_published_date, '2025-03-12T03:03:03')
})

t.test('the first publish charges once and opens a subscription; later publishes never charge', async (t) => {
  const f = await setup(t)
  await createSite(t, f.alice, 'paysite')
  t.same(await f.engine.billing('alice'), { charges: [], subscriptions: [] }, 'creating charges nothing')
  isEmpty(t, await f.alice.post('/sites/publish/paysite'))
  const at = new Date(`${f.clock.iso()}Z`)
  f.clock.advance(10)
  await f.alice.post('/sites/unpublish/paysite')
  await f.alice.post('/sites/publish/paysite')
  await f.alice.post('/sites/publish/paysite')
  t.same(
    await f.engine.billing('alice'),
    {
      charges: [{ site_name: 'paysite', at }],
      subscriptions: [{ site_name: 'paysite', status: 'active' }],
    },
    'one charge, active subscription, unpublish changed nothing',
  )
  t.same(await f.engine.billing('bob'), { charges: [], subscriptions: [] }, 'nobody else is charged')
})

t.test('?test=true charges nothing and is not a first publish: the first real publish charges once', async (t) => {
  const f = await setup(t)
  await createSite(t, f.alice, 'testpub')
  isEmpty(t, await f.alice.post('/sites/publish/testpub?test=true'))
  t.ok((await site(f, 'testpub')).last_published_date, 'published')
  isEmpty(t, await f.alice.post('/sites/publish/testpub?test=true'))
  t.same(await f.engine.billing('alice'), { charges: [], subscriptions: [] }, 'test publishes charge nothing')
  await f.alice.post('/sites/unpublish/testpub')
  isEmpty(t, await f.alice.post('/sites/publish/testpub'))
  const once = await f.engine.billing('alice')
  t.same(
    once.charges.map((c) => c.site_name),
    ['testpub'],
    'the first publish without test=true charges',
  )
  t.same(once.subscriptions, [{ site_name: 'testpub', status: 'active' }], 'and opens the subscription')
  isEmpty(t, await f.alice.post('/sites/publish/testpub'))
  t.same((await f.engine.billing('alice')).charges.length, 1, 'once')

  await createSite(t, f.alice, 'realpub')
  isEmpty(t, await f.alice.post('/sites/publish/realpub?test=false'), 'test=false charges')
  t.same(
    (await f.engine.billing('alice')).charges.map((c) => c.site_name),
    ['testpub', 'realpub'],
  )

  for (const query of ['test=yes', 'test=1', 'test=true&test=true', 'dry_run=true']) {
    isInvalid(t, await f.alice.post(`/sites/publish/realpub?${query}`), query)
  }
  isMissing(t, await f.alice.post('/sites/publish/nosuchsite?test=true'), 'missing site with test')
})

t.test('publish, unpublish, resetcache and recreate of a missing site: ResourceNotExist', async (t) => {
  const f = await setup(t)
  for (const op of ['publish', 'unpublish', 'resetcache', 'recreate']) {
    t.match(isMissing(t, await f.alice.post(`/sites/${op}/nosuchsite`), op), /nosuchsite/)
  }
})

t.test('delete cancels the subscription; a new site with the name is billed on its own', async (t) => {
  const f = await setup(t)
  await createSite(t, f.alice, 'cycle', {}, { publish_now: true })
  isEmpty(t, await f.alice.del('/sites/cycle'))
  t.same((await f.engine.billing('alice')).subscriptions, [{ site_name: 'cycle', status: 'cancelled' }])
  f.clock.advance(86400)
  await createSite(t, f.alice, 'cycle')
  isEmpty(t, await f.alice.post('/sites/publish/cycle'))
  const billing = await f.engine.billing('alice')
  t.equal(billing.charges.length, 2, 'the new site charges at its first publish')
  t.same(billing.subscriptions, [
    { site_name: 'cycle', status: 'cancelled' },
    { site_name: 'cycle', status: 'active' },
  ])

  await createSite(t, f.alice, 'neverpub')
  isEmpty(t, await f.alice.del('/sites/neverpub'))
  t.equal(
    (await f.engine.billing('alice')).subscriptions.length,
    2,
    'a never-published site had no subscription to cancel',
  )
})

t.test('recreate restores the creation properties, runs the builder, and unpublishes', async (t) => {
  const f = await setup(t)
  const original = {
    original_site_url: 'https://www.example.com/',
    preview_site_url: 'https://preview.example.com/',
    site_domain: 'm.example.com',
    auto_sync_cache_ttl: 'LONG',
    site_business_info: { business_name: 'Shop' },
    external_uid: 'orig-uid',
  }
  await createSite(t, f.alice, 'redo', original, { publish_now: true })
  await f.alice.post('/sites/update/redo', {
    site_domain: 'changed.example.org',
    original_site_url: 'https://changed.example.org/',
    auto_sync_cache_ttl: 'VERY_LONG',
    external_uid: 'new-uid',
  })
  t.equal((await site(f, 'redo')).site_domain, 'changed.example.org')
  const builds = f.builder.calls.length
  isEmpty(t, await f.alice.post('/sites/recreate/redo'), 'recreate without a body')
  t.strictSame(await site(f, 'redo'), { site_name: 'redo', ...original }, 'edits lost, unpublished')
  t.equal(f.builder.calls.length, builds + 1, 'rebuilt')
  t.equal((await f.alice.get('/sites/byexternal/orig-uid')).body.site_name, 'redo', 'found by the restored uid')
  isMissing(t, await f.alice.get('/sites/byexternal/new-uid'), 'the edited uid is gone')
  t.same(
    (await f.engine.billing('alice')).subscriptions,
    [{ site_name: 'redo', status: 'active' }],
    'subscription untouched',
  )
})

t.test('recreate with republish: published again, never charged a second time', async (t) => {
  const f = await setup(t)
  await createSite(t, f.alice, 'redopub', {}, { publish_now: true })
  f.clock.advance(120)
  isEmpty(t, await f.alice.post('/sites/recreate/redopub', { republish: true }))
  t.equal((await site(f, 'redopub')).last_published_date, f.clock.iso(), 'republished now')
  isEmpty(t, await f.alice.post('/sites/recreate/redopub', { republish: false }))
  t.notOk('last_published_date' in (await site(f, 'redopub')), 'republish=false leaves it unpublished')
  isEmpty(t, await f.alice.post('/sites/recreate/redopub', {}))
  t.equal((await f.engine.billing('alice')).charges.length, 1, 'one charge in all')
})

t.test('recreate body: republish must be a boolean; no unknown fields', async (t) => {
  const f = await setup(t)
  await createSite(t, f.alice, 'redobad')
  isInvalid(t, await f.alice.post('/sites/recreate/redobad', { republish: 'yes' }), 'republish yes')
  isInvalid(t, await f.alice.post('/sites/recreate/redobad', { republish: null }), 'republish null')
  t.match(
    isInvalid(t, await f.alice.post('/sites/recreate/redobad', { republish: true, hard: true }), 'unknown field'),
    /hard/,
  )
  isInvalid(t, await f.alice.post('/sites/recreate/redobad', [true]), 'array body')
  t.notOk('last_published_date' in (await site(f, 'redobad')), 'nothing happened')
})

t.test('reset cache: 204 and the site is unchanged', async (t) => {
  const f = await setup(t)
  await createSite(t, f.alice, 'cached', { auto_sync_cache_ttl: 'VERY_SHORT' }, { publish_now: true })
  const before = await site(f, 'cached')
  f.clock.advance(5)
  isEmpty(t, await f.alice.post('/sites/resetcache/cached'))
  t.strictSame(await site(f, 'cached'), before, 'same properties, still published')
})

t.test(
  'modified time: create, update, publish, unpublish, recreate and reset cache set it; reads and grants do not',
  async (t) => {
    const f = await setup(t)
    f.clock.set('2025-03-01T00:00:00')
    await createSite(t, f.alice, 'touched')
    await f.alice.post('/accounts/create', { account_name: 'viewer' })
    const window = (at: string) =>
      f.alice.get(`/sites/modified?from=${at}&to=${at}`).then((r) => r.body as { site_name: string }[])
    t.same(await window('2025-03-01T00:00:00'), [{ site_name: 'touched' }], 'create sets it')

    const steps: [string, () => Promise<unknown>][] = [
      ['update', () => f.alice.post('/sites/update/touched', { site_domain: 'x.example.com' })],
      ['publish', () => f.alice.post('/sites/publish/touched')],
      ['unpublish', () => f.alice.post('/sites/unpublish/touched')],
      ['recreate', () => f.alice.post('/sites/recreate/touched')],
      ['resetcache', () => f.alice.post('/sites/resetcache/touched')],
    ]
    let hour = 1
    for (const [label, act] of steps) {
      const at = `2025-03-01T${String(hour++).padStart(2, '0')}:00:00`
      f.clock.set(at)
      await act()
      t.same(await window(at), [{ site_name: 'touched' }], `${label} sets it`)
    }
    const last = `2025-03-01T${String(hour - 1).padStart(2, '0')}:00:00`
    f.clock.set('2025-03-02T00:00:00')
    await f.alice.get('/sites/touched')
    await f.alice.post('/sites/get-many', [{ site_name: 'touched' }])
    await f.alice.post('/accounts/grant-access/viewer/sites/touched')
    await f.alice.post('/accounts/revoke-access/viewer/sites/touched')
    await f.alice.post('/sites/publish/nosuchsite')
    t.same(await window('2025-03-02T00:00:00'), [], 'reads, grants and failed calls do not')
    t.same(await window(last), [{ site_name: 'touched' }], 'still at the last change')
    t.same(
      (await f.alice.get('/sites/created?from=2025-03-01T00:00:00&to=2025-03-01T00:00:00')).body,
      [{ site_name: 'touched' }],
      'creation time unchanged',
    )
  },
)
