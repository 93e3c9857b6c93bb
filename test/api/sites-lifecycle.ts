/**
 * The site creation states over HTTP: create_now true, false
 * and async with a builder that succeeds, fails with each creation_status or
 * is held pending; publish_now. Publish, billing and recreate are in
 * sites-publish.ts.
 */
import t, { type Test } from 'tap'
import { createSite, eventually, setup, siteBody, type Fixture } from '../helpers/api.js'

/** The retrieved site, or undefined when it does not exist. */
async function site(f: Fixture, name: string): Promise<Record<string, unknown> | undefined> {
  const res = await f.alice.get(`/sites/${name}`)
  return res.status === 200 ? res.body : undefined
}

/** Waits until the site no longer shows creation_status PENDING. */
async function settled(t: Test, f: Fixture, name: string): Promise<Record<string, unknown> | undefined> {
  const done = await eventually(async () => (await site(f, name))?.creation_status !== 'PENDING')
  t.ok(done, `${name}: the build settled`)
  return site(f, name)
}

t.test('create_now=true (default): built before the response, no status fields', async (t) => {
  const f = await setup(t)
  f.builder.outcome = 'hold'
  let answered = false
  const pendingCreate = f.alice
    .post('/sites/create', siteBody('syncsite', { preview_site_url: 'https://p.example.com/' }))
    .then((r) => {
      answered = true
      return r
    })
  await f.builder.whenCalled('syncsite')
  t.equal(f.builder.pending, 1, 'the builder was called during the request')
  await eventually(() => false, 20)
  t.notOk(answered, 'no response while the build runs')
  t.equal(f.builder.sites[0]?.site_name, 'syncsite')
  t.equal(f.builder.sites[0]?.original_site_url, 'https://www.example.com/', 'the builder gets the site properties')
  f.builder.release('syncsite')
  const res = await pendingCreate
  t.equal(res.status, 200)
  const got = await site(f, 'syncsite')
  t.notOk(got && 'status' in got, 'no status')
  t.notOk(got && 'creation_status' in got, 'no creation_status')
  t.notOk(got && 'last_published_date' in got, 'not published')

  f.builder.outcome = 'succeed'
  for (const create_now of [true, 'true']) {
    const name = await createSite(
      t,
      f.alice,
      undefined,
      { original_site_url: 'https://other.example.net/' },
      { create_now },
    )
    t.equal(f.builder.calls.at(-1), name, `create_now=${JSON.stringify(create_now)} builds at once`)
  }
  t.equal(f.builder.calls.length, 3, 'one build per create')
})

t.test('create_now=true with a failing builder: the create fails and leaves no site', async (t) => {
  const f = await setup(t)
  for (const outcome of ['FAILED', 'FAILED_FRAMESET_UNSUPPORTED', 'FAILED_CONTENT_TOO_BIG', 'reject-plain'] as const) {
    f.builder.outcome = outcome
    const res = await f.alice.post('/sites/create', siteBody('failsync', {}, { publish_now: true }))
    t.equal(res.status, 400, `${outcome}: 400`)
    t.equal(res.body.error_code, 'InvalidInput', `${outcome}: InvalidInput`)
    t.equal(await site(f, 'failsync'), undefined, `${outcome}: no site left`)
  }
  t.same((await f.engine.billing('alice')).charges, [], 'publish_now charged nothing')
  f.builder.outcome = 'succeed'
  await createSite(t, f.alice, 'failsync')
})

t.test('create_now=false: exists at once, not built until first accessed', async (t) => {
  const f = await setup(t)
  for (const create_now of [false, 'false']) {
    const name = `lazy-${String(create_now)}-${typeof create_now}`
    await createSite(t, f.alice, name, {}, { create_now })
    const got = await site(f, name)
    t.ok(got, `${name} exists`)
    t.notOk(got && ('status' in got || 'creation_status' in got), 'no async status fields')
  }
  t.same(f.builder.calls, [], 'builder not called at create')
})

t.test('create_now=false: the first recorded visit builds it, once; publish_now publishes then', async (t) => {
  const f = await setup(t)
  await createSite(t, f.alice, 'lazypub', {}, { create_now: 'false', publish_now: 'true' })
  t.notOk('last_published_date' in (await site(f, 'lazypub'))!, 'not published before the build')
  t.same((await f.engine.billing('alice')).charges, [], 'not charged before the build')
  f.clock.advance(60)
  await Promise.all([
    f.engine.recordVisit({ site_name: 'lazypub', visitor_id: 'v1' }),
    f.engine.recordVisit({ site_name: 'lazypub', visitor_id: 'v2' }),
  ])
  await f.engine.recordVisit({ site_name: 'lazypub', visitor_id: 'v3' })
  t.same(f.builder.calls, ['lazypub'], 'built once, on first access')
  const got = await site(f, 'lazypub')
  t.equal(got?.last_published_date, f.clock.iso(), 'published after the build')
  t.equal((await f.engine.billing('alice')).charges.length, 1, 'charged once')
})

t.test('create_now=async: UNDER_CONSTRUCTION/PENDING until the build succeeds, then both gone', async (t) => {
  const f = await setup(t)
  f.builder.outcome = 'hold'
  await createSite(t, f.alice, 'asyncok', {}, { create_now: 'async' })
  t.equal(f.builder.pending, 1, 'the response came back while the build is running')
  const during = await site(f, 'asyncok')
  t.equal(during?.status, 'UNDER_CONSTRUCTION')
  t.equal(during?.creation_status, 'PENDING')
  const summary = (await f.alice.post('/sites/get-many', [{ site_name: 'asyncok' }])).body[0]
  t.notOk('status' in summary || 'creation_status' in summary, 'get-many does not list the creation state')
  f.builder.release('asyncok')
  const after = await settled(t, f, 'asyncok')
  t.notOk(after && 'status' in after, 'status gone')
  t.notOk(after && 'creation_status' in after, 'creation_status gone')
})

t.test('create_now=async failures: status gone, creation_status holds the failure', async (t) => {
  const f = await setup(t)
  f.builder.outcome = 'hold'
  const cases = [
    ['FAILED_FRAMESET_UNSUPPORTED', 'FAILED_FRAMESET_UNSUPPORTED'],
    ['FAILED_CONTENT_TOO_BIG', 'FAILED_CONTENT_TOO_BIG'],
    ['FAILED', 'FAILED'],
    ['reject-plain', 'FAILED'],
  ] as const
  for (const [outcome, expected] of cases) {
    const name = `fail-${outcome.toLowerCase().replace(/_/g, '-')}`
    await createSite(t, f.alice, name, {}, { create_now: 'async', publish_now: true })
    f.builder.release(name, outcome)
    const after = await settled(t, f, name)
    t.equal(after?.creation_status, expected, `${outcome} → ${expected}`)
    t.notOk(after && 'status' in after, `${outcome}: status gone`)
    t.notOk(after && 'last_published_date' in after, `${outcome}: publish_now did not publish`)
  }
  t.same((await f.engine.billing('alice')).charges, [], 'failed builds charge nothing')
})

t.test('create_now=async with publish_now: published and charged once the build succeeds', async (t) => {
  const f = await setup(t)
  f.builder.outcome = 'hold'
  await createSite(t, f.alice, 'asyncpub', {}, { create_now: 'async', publish_now: 'true' })
  t.notOk('last_published_date' in (await site(f, 'asyncpub'))!, 'not published while pending')
  f.clock.advance(30)
  f.builder.release('asyncpub')
  const after = await settled(t, f, 'asyncpub')
  t.equal(after?.last_published_date, f.clock.iso())
  t.same(
    (await f.engine.billing('alice')).charges.map((c) => c.site_name),
    ['asyncpub'],
  )
})

t.test('a site deleted while its async build runs stays deleted and uncharged', async (t) => {
  const f = await setup(t)
  f.builder.outcome = 'hold'
  await createSite(t, f.alice, 'vanish', {}, { create_now: 'async', publish_now: true })
  t.equal((await f.alice.del('/sites/vanish')).status, 204)
  f.builder.release('vanish')
  await eventually(() => false, 20)
  t.equal(await site(f, 'vanish'), undefined, 'not resurrected')
  t.same(await f.engine.billing('alice'), { charges: [], subscriptions: [] })
})

t.test('a stale async build does not settle a new site that reuses the name', async (t) => {
  const f = await setup(t)
  f.builder.outcome = 'hold'
  await createSite(t, f.alice, 'reused', {}, { create_now: 'async' })
  t.equal((await f.alice.del('/sites/reused')).status, 204)
  f.clock.advance(1)
  await createSite(t, f.alice, 'reused', {}, { create_now: 'async' })
  f.builder.release('reused', 'FAILED_CONTENT_TOO_BIG')
  await eventually(() => false, 20)
  const now = await site(f, 'reused')
  t.equal(now?.creation_status, 'PENDING', 'the new site is still pending')
  t.equal(now?.status, 'UNDER_CONSTRUCTION')
  f.builder.release('reused')
  t.notOk(
    (await settled(t, f, 'reused')) && 'creation_status' in (await site(f, 'reused'))!,
    'its own build settles it',
  )
})

t.test('publish_now with create_now=true: published at once with the clock time', async (t) => {
  const f = await setup(t)
  f.clock.set('2025-03-11T08:09:10')
  await createSite(t, f.alice, 'pubnow', {}, { publish_now: true })
  t.equal((await site(f, 'pubnow'))?.last_published_date, '2025-03-11T08:09:10')
  await createSite(t, f.alice, 'nopub', {}, { publish_now: 'false' })
  t.notOk('last_published_date' in (await site(f, 'nopub'))!, 'publish_now=false leaves it unpublished')
  t.same((await f.engine.billing('alice')).charges, [{ site_name: 'pubnow', at: new Date('2025-03-11T08:09:10Z') }])
})
