/**
 * seed(snapshot()) into a reset server gives the same answer to every read
 * call of the API: Retrieve Site, by external id, get-many, created/modified
 * listings, Retrieve Account, grants (an account's sites), Get Site Analytics
 * (traffic and activities, no dimension, system and geo, several periods, so
 * unique visitors over unions of days), most traffic, billing, and Duda's
 * reads (sites.get with its template_id, the site list, the created,
 * published and unpublished listings, the activity log, permissions). On
 * MemoryStore and RedisStore (REDIS_URL), over HTTP and in process.
 */
import t from 'tap'
import { STORES, adminServer, type AdminFixture } from '../helpers/testing.js'

const UA = {
  iphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
  android:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36',
}

/** Builds varied state through the API and the admin calls. */
async function populate(f: AdminFixture): Promise<void> {
  const { http, alice, bob } = f
  const post = (path: string, auth: string, body?: object) => {
    const r = http.post(path).set('authorization', auth)
    return body ? r.send(body) : r
  }
  await http.put('/__admin/clock').send({ now: '2025-03-01T09:00:00' }).expect(200)
  const business = { business_name: 'Trattoria', phone_number: '+1 555', address: { city: 'Springfield' } }
  await post('/api/sites/create', alice, {
    site_data: {
      site_name: 'paid',
      original_site_url: 'https://paid.example',
      external_uid: 'uid-1',
      site_business_info: business,
    },
    publish_now: true,
  }).expect(200)
  await http.post('/__admin/clock/advance').send({ seconds: 3600.25 }).expect(200)
  await post('/api/sites/create', alice, {
    site_data: {
      site_name: 'free',
      original_site_url: 'https://free.example',
      auto_sync_cache_ttl: 'LONG',
      site_domain: 'm.free.example',
    },
  }).expect(200)
  await post('/api/sites/publish/free?test=true', alice).expect(204)
  await post('/api/sites/update/free', alice, {
    original_site_url: 'https://free2.example',
    external_uid: 'uid-1',
  }).expect(204)
  await post('/api/sites/create', alice, {
    site_data: { site_name: 'later', original_site_url: 'https://later.example' },
    create_now: 'false',
    publish_now: true,
  }).expect(200)
  await http
    .put('/__admin/builder')
    .send({ outcome: 'FAILED_CONTENT_TOO_BIG', site_name: 'broken', times: 1 })
    .expect(204)
  await post('/api/sites/create', alice, {
    site_data: { site_name: 'broken', original_site_url: 'https://broken.example' },
    create_now: 'async',
  }).expect(200)
  await http.post('/__admin/builds/settle').expect(204)
  await http.put('/__admin/builder').send({ outcome: 'ok', delay_ms: 60_000, site_name: 'pending' }).expect(204)
  await post('/api/sites/create', alice, {
    site_data: { site_name: 'pending', original_site_url: 'https://pending.example' },
    create_now: 'async',
  }).expect(200)
  await post('/api/sites/create', alice, {
    site_data: { site_name: 'gone', original_site_url: 'https://gone.example' },
    publish_now: true,
  }).expect(200)
  await http.delete('/api/sites/gone').set('authorization', alice).expect(204)
  await post('/api/sites/create', bob, {
    site_data: { site_name: 'bobsite', original_site_url: 'https://bob.example' },
  }).expect(200)
  // Duda's paths: a template, publish/unpublish (unpublished_at, activity log), reset, permissions.
  await post('/api/sites/multiscreen/create', alice, { template_id: 1_000_042, default_domain_prefix: 'duda1' }).expect(
    200,
  )
  await post('/api/sites/multiscreen/create', alice, { template_id: 'tpl-b', default_domain_prefix: 'duda2' }).expect(
    200,
  )
  await http.put('/__admin/clock').send({ now: '2025-03-01T11:00:00' }).expect(200)
  await post('/api/sites/multiscreen/publish/duda1', alice).expect(204)
  await post('/api/sites/multiscreen/publish/duda2', alice).expect(204)
  await post('/api/sites/multiscreen/unpublish/duda1', alice).expect(204)
  await post('/api/sites/multiscreen/reset/duda2', alice, { template_id: 7 }).expect(204)
  await http.put('/__admin/clock').send({ now: '2025-03-02T09:00:00' }).expect(200)
  await post('/api/sites/resetcache/paid', alice).expect(204)
  await post('/api/sites/unpublish/free', alice).expect(204)
  await f.engine.confirmRedirect('paid')
  await post('/api/accounts/create', alice, {
    account_name: 'ada',
    first_name: 'Ada',
    email: 'ada@example.com',
    lang: 'ja',
  }).expect(204)
  await post('/api/accounts/create', alice, { account_name: 'bert' }).expect(204)
  await post('/api/accounts/grant-access/ada/sites/paid', alice).expect(204)
  await post('/api/accounts/grant-access/ada/sites/free', alice).expect(204)
  await post('/api/accounts/bert/sites/duda1/permissions', alice, { permissions: ['STATS_TAB', 'EDIT'] }).expect(204)
  const visits = []
  for (let i = 0; i < 40; i++) {
    visits.push({
      site_name: i % 3 === 0 ? 'free' : 'paid',
      at: `2025-03-0${1 + (i % 5)}T1${i % 10}:00:00`,
      visitor_id: `visitor-${i % 7}`,
      user_agent: i % 2 ? UA.iphone : UA.android,
      country: i % 4 ? 'US' : 'JP',
      region: i % 4 ? 'CA' : 'Tokyo',
      page_views: 1 + (i % 3),
    })
  }
  visits.push({ site_name: 'bobsite', visitor_id: 'b1' })
  await http.post('/__admin/visits').send(visits).expect(204)
  await http.post('/__admin/visits').send({ site_name: 'later', visitor_id: 'first', at: '2025-03-02' }).expect(204)
  await http
    .post('/__admin/activities')
    .send([
      { site_name: 'paid', kind: 'click_to_call', at: '2025-03-02T10:00:00', user_agent: UA.iphone, country: 'US' },
      { site_name: 'paid', kind: 'form_submit', at: '2025-03-04' },
      { site_name: 'free', kind: 'click_to_map' },
    ])
    .expect(204)
}

const PERIODS = [
  {},
  { from: '2025-03-01', to: '2025-03-05' },
  { from: '2025-03-02', to: '2025-03-03' },
  { from: '2025-03-04T00:00:00', to: '2025-03-04T23:59:59' },
]
const LISTINGS = [
  { from: '2025-03-01', to: '2025-03-02' },
  { from: '2025-03-01T09:00:00', to: '2025-03-01T09:00:00' },
  { from: '2025-03-01T10:00:00', to: '2025-03-01T10:00:00' },
  { from: '2025-03-01T10:00:01', to: '2025-03-02' },
]

/** The answer of every read call, as status and body, keyed by the call. */
async function reads(f: AdminFixture): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>()
  const get = async (path: string, auth: string, query: object = {}) => {
    const res = await f.http.get(path).query(query).set('authorization', auth)
    out.set(`GET ${path} ${JSON.stringify(query)} as ${auth === f.alice ? 'alice' : 'bob'}`, [res.status, res.body])
  }
  for (const auth of [f.alice, f.bob]) {
    for (const name of ['paid', 'free', 'later', 'broken', 'pending', 'gone', 'bobsite'])
      await get(`/api/sites/${name}`, auth)
    await get('/api/sites/byexternal/uid-1', auth)
    for (const q of LISTINGS) {
      await get('/api/sites/created', auth, q)
      await get('/api/sites/modified', auth, q)
    }
    const many = await f.http
      .post('/api/sites/get-many')
      .set('authorization', auth)
      .send(['paid', 'free', 'later', 'broken'].map((site_name) => ({ site_name })))
    out.set(`get-many ${auth}`, [many.status, many.body])
    for (const q of PERIODS) await get('/api/analytics/sites/withmosttraffic', auth, q)
  }
  for (const name of ['ada', 'bert']) await get(`/api/accounts/${name}`, f.alice)
  for (const name of ['duda1', 'duda2', 'paid', 'free']) {
    await get(`/api/sites/multiscreen/${name}`, f.alice)
    await get(`/api/sites/multiscreen/${name}/activities`, f.alice)
  }
  await get('/api/sites/multiscreen', f.alice, { limit: 50 })
  for (const listing of ['created', 'published', 'unpublished'])
    for (const lastDays of [1, 5, 30]) await get(`/api/sites/multiscreen/${listing}`, f.alice, { lastDays })
  for (const account of ['ada', 'bert']) {
    await get(`/api/accounts/grant-access/${account}/sites/multiscreen`, f.alice)
    for (const site of ['paid', 'duda1']) await get(`/api/accounts/${account}/sites/${site}/permissions`, f.alice)
  }
  for (const name of ['paid', 'free', 'later', 'bobsite']) {
    for (const q of PERIODS) {
      for (const result of ['traffic', 'activities']) {
        for (const dimension of [undefined, 'system', 'geo']) {
          await get(`/api/analytics/site/${name}`, name === 'bobsite' ? f.bob : f.alice, {
            ...q,
            result,
            ...(dimension ? { dimension } : {}),
          })
        }
      }
    }
  }
  out.set('grants ada', await f.engine.as('alice').accountSites('ada'))
  out.set('grants bert', await f.engine.as('alice').accountSites('bert'))
  for (const user of ['alice', 'bob']) out.set(`billing ${user}`, (await f.http.get(`/__admin/billing/${user}`)).body)
  return out
}

for (const kind of STORES) {
  t.test(`${kind.name}: seed(snapshot()) after reset answers every read call the same`, async (t) => {
    const f = await adminServer(t, kind)
    await populate(f)
    await f.http.put('/__admin/clock').send({ now: '2025-03-05T18:00:00' }).expect(200)
    const before = await reads(f)
    t.ok(before.size > 140, `${before.size} read calls compared`)
    t.match(
      before.get('GET /api/sites/broken {} as alice'),
      [200, { creation_status: 'FAILED_CONTENT_TOO_BIG' }],
      'a failed async build is part of the state',
    )
    t.match(
      before.get('GET /api/sites/pending {} as alice'),
      [200, { status: 'UNDER_CONSTRUCTION', creation_status: 'PENDING' }],
      'so is a pending one',
    )
    t.match(
      before.get('GET /api/sites/multiscreen/duda1 {} as alice'),
      [200, { site_name: 'duda1', template_id: 1_000_042 }],
      'the template of a Duda-created site is part of the state',
    )
    t.match(
      before.get('GET /api/sites/multiscreen/unpublished {"lastDays":30} as alice'),
      [200, ['duda1']],
      'so is the last unpublish',
    )
    t.match(
      before.get('GET /api/sites/multiscreen/duda2/activities {} as alice'),
      [200, { results: [{ activity: 'site_reset' }, { activity: 'site_published' }, { activity: 'site_created' }] }],
      'so is the activity log',
    )
    t.match(
      before.get('GET /api/accounts/bert/sites/duda1/permissions {} as alice'),
      [200, { permissions: ['STATS_TAB', 'EDIT'] }],
      'and the permissions of a grant',
    )
    t.match(before.get('billing alice'), {
      charges: [{ site_name: 'paid' }, { site_name: 'gone' }],
      subscriptions: [{ status: 'active' }, { status: 'cancelled' }],
    })

    const snap = (await f.http.get('/__admin/snapshot').expect(200)).body
    await f.http.post('/__admin/reset').expect(204)
    t.same(
      (await f.http.get('/api/sites/paid').set('authorization', f.alice)).body.error_code,
      'ResourceNotExist',
      'reset emptied the state',
    )
    await f.http.put('/__admin/clock').send({ now: '2025-03-05T18:00:00' }).expect(200)
    await f.http.post('/__admin/seed').send(snap).expect(204)
    const after = await reads(f)
    for (const [call, answer] of before) t.same(after.get(call), answer, call)
    t.same((await f.http.get('/__admin/snapshot')).body, snap, 'the snapshot of the seeded state equals the first')
  })

  t.test(`${kind.name}: the same round trip in process`, async (t) => {
    const f = await adminServer(t, kind)
    await populate(f)
    const controls = f.server.controls
    controls.setClock({ now: '2025-03-05T18:00:00' })
    const snap = await controls.snapshot()
    const before = await reads(f)
    await controls.reset()
    controls.setClock({ now: new Date(Date.UTC(2025, 2, 5, 18)) })
    await controls.seed(JSON.parse(JSON.stringify(snap)))
    const after = await reads(f)
    t.same([...after], [...before], 'every read answers the same')
  })
}
