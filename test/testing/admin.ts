/**
 * adminRouter over HTTP (supertest against startServer({ admin: true })), on
 * MemoryStore and RedisStore: health, token, loopback rule, clock, builder
 * and settle, reset, seed (all or nothing, every problem listed), events,
 * billing, the request journal and faults.
 */
import t from 'tap'
import request from 'supertest'
import { createEngine, startServer } from '../../lib/index.js'
import { MemoryStore } from '../../lib/store/memory/store.js'
import { isLoopback } from '../../lib/server/index.js'
import { ALICE, STORES, adminServer, basic } from '../helpers/testing.js'

const site = (site_name: string, extra: object = {}) => ({
  site_data: { site_name, original_site_url: `https://${site_name}.example` },
  ...extra,
})

t.test('loopback rule, token and admin off', async (t) => {
  for (const host of ['127.0.0.1', '127.9.8.7', '::1', '[::1]', 'localhost', 'LOCALHOST', '::ffff:127.0.0.1'])
    t.ok(isLoopback(host), `${host} is loopback`)
  for (const host of ['0.0.0.0', '::', '10.0.0.1', '128.0.0.1', 'example.com', '127.0.0.1.example.com'])
    t.notOk(isLoopback(host), `${host} is not`)
  await t.rejects(
    startServer({ admin: true, host: '0.0.0.0' }),
    /not loopback, needs an adminToken/,
    'refused without a token',
  )
  const open = await startServer({ admin: true, host: '0.0.0.0', adminToken: 's3cret' })
  t.teardown(() => open.close())
  const http = request(open.url.replace('0.0.0.0', '127.0.0.1'))
  for (const authorization of [undefined, 'Bearer wrong', 'Basic czNjcmV0', 'Bearer s3cret extra', 'Bearer']) {
    const res = await (authorization
      ? http.get('/__admin/health').set('authorization', authorization)
      : http.get('/__admin/health'))
    t.equal(res.status, 401, `401 with ${authorization}`)
    t.match(res.headers['www-authenticate'], /^Bearer/)
    t.equal(res.body.error_code, 'Unauthorized')
  }
  t.same((await http.get('/__admin/health').set('authorization', 'Bearer s3cret').expect(200)).body, {
    status: 'ok',
    store: 'memory',
  })
  t.equal(
    (await http.get('/__admin/health').set('authorization', 'bearer  s3cret')).status,
    200,
    'the scheme is case-insensitive',
  )

  const off = await startServer()
  t.teardown(() => off.close())
  const offHttp = request(off.url)
  t.equal((await offHttp.get('/__admin/health')).status, 404, 'no /__admin without admin')
  await off.engine.addMasterAccount(ALICE)
  off.controls.addFault({ route: '/sites/{site_name}', error: { status: 500, error_code: 'Boom' } })
  const res = await offHttp.get('/api/sites/nosuch').set('authorization', basic(ALICE.user, ALICE.password))
  t.equal(res.body.error_code, 'ResourceNotExist', 'without admin the API applies no fault')
  t.same(off.controls.requests(), { requests: [] }, 'and journals nothing')
})

t.test(
  'admin calls follow the API’s browser and content-type rules; the OpenAPI document lists them under their own tag',
  async (t) => {
    const server = await startServer({ admin: true })
    t.teardown(() => server.close())
    const http = request(server.url)
    const crossSite = await http.post('/__admin/reset').set('sec-fetch-site', 'cross-site').expect(403)
    t.equal(crossSite.body.error_code, 'AccessForbidden', 'a cross-site write is refused')
    t.equal(
      (await http.post('/__admin/reset').set('origin', 'https://evil.example').expect(403)).body.error_code,
      'AccessForbidden',
    )
    const form = await http
      .put('/__admin/clock')
      .set('content-type', 'application/x-www-form-urlencoded')
      .send('now=2025-01-01')
      .expect(415)
    t.equal(form.body.error_code, 'UnsupportedMediaType')
    await http.get('/__admin/clock').set('sec-fetch-site', 'cross-site').expect(200)
    const document = (await http.get('/api/openapi.json').expect(200)).body
    t.ok(document.tags.some((tag: { name: string }) => tag.name === 'Test-double controls'))
    t.same(document.paths['/__admin/clock'].put.tags, ['Test-double controls'])
    t.same(
      document.paths['/__admin/clock'].servers,
      [{ url: '/', description: document.paths['/__admin/clock'].servers[0].description }],
      'beside /api: the server root',
    )
    const faultBody = document.paths['/__admin/faults'].post.requestBody.content['application/json'].schema
    t.same(faultBody.properties.error.required, ['status', 'error_code'], 'the admin schemas themselves')
    t.equal(document.paths['/__admin/faults'].post.operationId, 'adminAddFault')
    // What the document says of a call is what the server answers.
    const created = await http
      .post('/__admin/faults')
      .send({ route: '/agents', error: { status: 503, error_code: 'ServiceUnavailable' } })
      .expect(201)
    t.same(
      Object.keys(created.body),
      document.paths['/__admin/faults'].post.responses['201'].content['application/json'].schema.required,
    )
    t.ok(document.paths['/__admin/faults/{id}'].delete.responses['404'])
    t.equal((await http.delete('/__admin/faults/nope').expect(404)).body.error_code, 'NotFound')
    t.ok(document.paths['/__admin/faults'].post.responses['400'])
    t.equal((await http.post('/__admin/faults').send({ nope: 1 }).expect(400)).body.error_code, 'InvalidInput')
    t.ok(document.components.securitySchemes.bearerAuth, 'bearer scheme for the admin token')
  },
)

t.test('health answers 503 when the store cannot be reached', async (t) => {
  const store = new MemoryStore()
  const server = await startServer({ engine: createEngine({ store }), admin: true })
  t.teardown(() => server.close())
  await store.close()
  const res = await request(server.url).get('/__admin/health').expect(503)
  t.same(res.body, { status: 'unavailable', store: 'memory', message: 'the store cannot be reached' })
  t.equal(
    (await request(server.url).post('/__admin/reset')).body.error_code,
    'ServiceUnavailable',
    'reset: 503 ServiceUnavailable',
  )
})

for (const kind of STORES) {
  t.test(`${kind.name}: admin calls`, async (t) => {
    t.test('unknown paths, wrong methods and bodies where none is taken', async (t) => {
      const { http } = await adminServer(t, kind)
      t.equal((await http.get('/__admin/nope').expect(404)).body.error_code, 'NotFound')
      const wrong = await http.patch('/__admin/clock').expect(405)
      t.equal(wrong.headers.allow, 'GET, PUT, DELETE')
      t.equal(wrong.body.error_code, 'MethodNotAllowed')
      t.match((await http.post('/__admin/reset').send({ all: true }).expect(400)).body.message, /unknown field all/)
      t.match((await http.get('/__admin/clock?x=1').expect(400)).body.message, /unknown query parameter x/)
      t.match(
        (await http.post('/__admin/seed').set('content-type', 'application/json').send('{bad').expect(400)).body
          .error_code,
        'InvalidInput',
      )
      t.same((await http.get('/__admin/health').expect(200)).body, { status: 'ok', store: kind.name })
    })

    t.test('clock: read, freeze, advance, back to real time; bad bodies name the field', async (t) => {
      const { http, alice } = await adminServer(t, kind)
      const real = (await http.get('/__admin/clock').expect(200)).body
      t.equal(real.frozen, false)
      t.ok(Math.abs(Date.parse(`${real.now}Z`) - Date.now()) < 5000, 'real time')
      t.same((await http.put('/__admin/clock').send({ now: '2030-01-02T03:04:05' }).expect(200)).body, {
        now: '2030-01-02T03:04:05',
        frozen: true,
      })
      await http
        .post('/api/sites/create')
        .set('authorization', alice)
        .send(site('clocked', { publish_now: true }))
        .expect(200)
      t.equal(
        (await http.get('/api/sites/clocked').set('authorization', alice)).body.last_published_date,
        '2030-01-02T03:04:05',
        'the API reads the frozen clock',
      )
      t.same((await http.post('/__admin/clock/advance').send({ seconds: 86400 }).expect(200)).body, {
        now: '2030-01-03T03:04:05',
        frozen: true,
      })
      t.same(
        (await http.put('/__admin/clock').send({ now: '2030-02-01' }).expect(200)).body.now,
        '2030-02-01T00:00:00',
        'a day is its midnight',
      )
      const back = (await http.delete('/__admin/clock').expect(200)).body
      t.equal(back.frozen, false)
      const moved = (await http.post('/__admin/clock/advance').send({ seconds: 7200 }).expect(200)).body
      t.same(moved.frozen, false, 'a running clock moves forward and keeps running')
      t.ok(Date.parse(`${moved.now}Z`) - Date.now() > 7100_000, 'two hours ahead of real time')
      const bad: [string, string, object, RegExp][] = [
        ['PUT', '/__admin/clock', {}, /now is required/],
        ['PUT', '/__admin/clock', { now: '2025-02-30' }, /now is not a real date/],
        ['PUT', '/__admin/clock', { now: 'tomorrow' }, /now must be a date YYYY-MM-DD/],
        ['PUT', '/__admin/clock', { now: '2025-01-01', zone: 'X' }, /unknown field zone/],
        ['POST', '/__admin/clock/advance', { seconds: -1 }, /seconds/],
        ['POST', '/__admin/clock/advance', { seconds: '5' }, /seconds must be a number/],
      ]
      for (const [method, path, body, message] of bad) {
        const res = await (method === 'PUT' ? http.put(path) : http.post(path)).send(body).expect(400)
        t.equal(res.body.error_code, 'InvalidInput')
        t.match(res.body.message, message, `${JSON.stringify(body)}: ${res.body.message}`)
      }
    })

    t.test('builder: outcomes, site_name, times, delay and settle', async (t) => {
      const { http, alice } = await adminServer(t, kind)
      const create = (name: string, extra: object = {}) =>
        http.post('/api/sites/create').set('authorization', alice).send(site(name, extra))
      await http.put('/__admin/builder').send({ outcome: 'FAILED_FRAMESET_UNSUPPORTED', times: 1 }).expect(204)
      t.match((await create('first').expect(400)).body.message, /FAILED_FRAMESET_UNSUPPORTED/, 'a sync build fails')
      t.equal(
        (await http.get('/api/sites/first').set('authorization', alice)).body.error_code,
        'ResourceNotExist',
        'and the site is gone',
      )
      await create('second').expect(200)
      await http.put('/__admin/builder').send({ outcome: 'FAILED', site_name: 'target' }).expect(204)
      await create('other', { create_now: 'async' }).expect(200)
      await create('target', { create_now: 'async' }).expect(200)
      await http.post('/__admin/builds/settle').expect(204)
      t.notOk(
        (await http.get('/api/sites/other').set('authorization', alice)).body.creation_status,
        'other sites build normally',
      )
      t.equal(
        (await http.get('/api/sites/target').set('authorization', alice)).body.creation_status,
        'FAILED',
        'the named site fails',
      )
      await http.put('/__admin/builder').send({ outcome: 'ok', delay_ms: 300 }).expect(204)
      await create('slow', { create_now: 'async', publish_now: true }).expect(200)
      t.match((await http.get('/api/sites/slow').set('authorization', alice)).body, {
        status: 'UNDER_CONSTRUCTION',
        creation_status: 'PENDING',
      })
      await http.post('/__admin/builds/settle').expect(204)
      const slow = (await http.get('/api/sites/slow').set('authorization', alice)).body
      t.notOk(slow.creation_status, 'settled: built')
      t.ok(slow.last_published_date, 'and published')
      await http.put('/__admin/builder').send({ outcome: 'FAILED_CONTENT_TOO_BIG' }).expect(204)
      await create('delayed', { create_now: 'false' }).expect(200)
      await http.post('/__admin/visits').send({ site_name: 'delayed', visitor_id: 'v' }).expect(204)
      t.equal(
        (await http.get('/api/sites/delayed').set('authorization', alice)).body.creation_status,
        'FAILED_CONTENT_TOO_BIG',
        'a first-visit build follows it too',
      )
      await http.delete('/__admin/builder').expect(204)
      await create('fine').expect(200)
      for (const [body, message] of [
        [{}, /outcome is required/],
        [{ outcome: 'maybe' }, /outcome must be one of/],
        [{ outcome: 'ok', delay_ms: -1 }, /delay_ms/],
        [{ outcome: 'ok', times: 0 }, /times/],
        [{ outcome: 'ok', site: 'x' }, /unknown field site/],
      ] as const) {
        t.match((await http.put('/__admin/builder').send(body).expect(400)).body.message, message, JSON.stringify(body))
      }
    })

    t.test('reset empties everything but the start-up masters', async (t) => {
      const { http, alice, engine } = await adminServer(t, kind)
      await http
        .post('/__admin/seed')
        .send({ masters: [{ user: 'zed', password: 'zed-pw' }] })
        .expect(204)
      await engine.addMasterAccount({ user: 'late', password: 'late-pw' })
      await http
        .post('/api/sites/create')
        .set('authorization', alice)
        .send(site('resetme', { publish_now: true }))
        .expect(200)
      await http.post('/api/accounts/create').set('authorization', alice).send({ account_name: 'acc' }).expect(204)
      await http.put('/__admin/clock').send({ now: '2001-01-01' }).expect(200)
      await http.post('/__admin/faults').send({ route: '/agents', latency_ms: 1 }).expect(201)
      await http.put('/__admin/builder').send({ outcome: 'FAILED' }).expect(204)
      await http.post('/__admin/reset').expect(204)
      t.equal((await http.get('/api/sites/resetme').set('authorization', alice)).body.error_code, 'ResourceNotExist')
      t.equal((await http.get('/api/accounts/acc').set('authorization', alice)).body.error_code, 'ResourceNotExist')
      t.same((await http.get('/__admin/billing/alice')).body, { charges: [], subscriptions: [] })
      t.equal((await http.get('/__admin/clock')).body.frozen, false)
      t.same((await http.get('/__admin/faults')).body, { faults: [] })
      t.same(
        (await http.get('/__admin/requests')).body.requests.map((r: { path: string }) => r.path),
        ['/sites/resetme', '/accounts/acc'],
        'the journal restarted',
      )
      await http.post('/api/sites/create').set('authorization', alice).send(site('resetme')).expect(200)
      for (const [user, password] of [
        ['zed', 'zed-pw'],
        ['late', 'late-pw'],
      ]) {
        t.equal(
          (await http.get('/api/sites/resetme').set('authorization', basic(user!, password!))).status,
          401,
          `${user} is gone`,
        )
      }
      t.equal(
        (await http.get('/api/sites/resetme').set('authorization', basic('bob', 'bob-pw'))).body.error_code,
        'ResourceNotExist',
        'bob (start-up) stays',
      )
    })

    t.test('seed: applies a valid body; several bad entries are all listed and nothing is applied', async (t) => {
      const { http, alice } = await adminServer(t, kind)
      await http
        .post('/__admin/seed')
        .send({
          masters: [{ user: 'carol', password: 'carol-pw', partner: true }],
          sites: [
            {
              owner: 'carol',
              site_name: 'carolsite',
              original_site_url: 'https://carol.example',
              published: true,
              created_at: '2024-05-01T10:00:00',
            },
            {
              owner: 'alice',
              site_name: 'alicesite',
              original_site_url: 'https://alice.example',
              business_site_info: { business_name: 'A' },
            },
          ],
          accounts: [{ owner: 'carol', account_name: 'cacc', email: 'c@example.com' }],
          grants: [{ owner: 'carol', account_name: 'cacc', site_name: 'carolsite' }],
          visits: [{ site_name: 'carolsite', visitor_id: 'v1', at: '2024-05-02' }],
          activities: [{ site_name: 'carolsite', kind: 'click_to_call', at: '2024-05-02' }],
          billing: [
            {
              owner: 'carol',
              charges: [{ site_name: 'carolsite', at: '2024-05-01T10:00:00' }],
              subscriptions: [{ site_name: 'carolsite', status: 'active' }],
            },
          ],
        })
        .expect(204)
      const carol = basic('carol', 'carol-pw')
      const got = (await http.get('/api/sites/carolsite').set('authorization', carol).expect(200)).body
      t.ok(got.last_published_date, 'published: true publishes (at the clock, without published_at)')
      t.same((await http.get('/api/accounts/cacc').set('authorization', carol).expect(200)).body, {
        account_name: 'cacc',
        email: 'c@example.com',
      })
      t.same((await http.get('/api/sites/alicesite').set('authorization', alice).expect(200)).body.site_business_info, {
        business_name: 'A',
      })
      const traffic = await http
        .get('/api/analytics/site/carolsite')
        .query({ from: '2024-05-01', to: '2024-05-03' })
        .set('authorization', carol)
      t.same(traffic.body, { UNIQUE_VISITORS: 1, VISITS: 1, PAGE_VIEWS: 1 })
      t.same((await http.get('/__admin/billing/carol')).body, {
        charges: [{ site_name: 'carolsite', at: '2024-05-01T10:00:00.000Z' }],
        subscriptions: [{ site_name: 'carolsite', status: 'active' }],
      })

      const before = (await http.get('/__admin/snapshot')).body
      const res = await http
        .post('/__admin/seed')
        .send({
          masters: [{ user: 'dave' }, { user: 'erin', password: 'x' }],
          sites: [
            { owner: 'erin', site_name: 'ok-site', original_site_url: 'https://ok.example' },
            { owner: 'erin', site_name: 'carolsite', original_site_url: 'https://dup.example' },
            { owner: 'erin', site_name: 'badurl', original_site_url: 'ftp://x' },
            { owner: 'nobody', site_name: 'orphan', original_site_url: 'https://o.example' },
            { owner: 'erin', site_name: 'x', original_site_url: 'https://short.example' },
            {
              owner: 'erin',
              site_name: 'badlog',
              original_site_url: 'https://log.example',
              activity_log: [{ at: '2024-01-01', activity: 'site_hugged' }],
            },
            {
              owner: 'erin',
              site_name: 'baddate',
              original_site_url: 'https://date.example',
              template_id: 7,
              unpublished_at: '2024-01-02',
              activity_log: [{ at: '2024-02-30', activity: 'site_created' }],
            },
          ],
          accounts: [
            { owner: 'erin', account_name: 'bad name!' },
            { owner: 'erin', account_name: 'cacc' },
          ],
          grants: [{ owner: 'erin', account_name: 'nope', site_name: 'ok-site' }],
          visits: [
            { site_name: 'ok-site', visitor_id: '', at: '2024-13-01' },
            { site_name: 'missing', visitor_id: 'v' },
          ],
          activities: [{ site_name: 'ok-site', kind: 'hug' }],
        })
        .expect(400)
      t.equal(res.body.error_code, 'InvalidInput')
      for (const needle of [
        'masters[0]: give exactly one of password and password_hash',
        'site carolsite already exists',
        'sites[2]: original_site_url',
        'owner nobody is not a master account',
        'sites[4]: site_name',
        'sites[5]: activity_log[0].activity',
        'sites[6].activity_log[0]: at is not a real date',
        'accounts[0]: account_name',
        'account cacc already exists',
        'grants[0]',
        'visits[1]: site missing does not exist',
        'visits[0]: visitor_id',
        'activities[0]: kind',
      ])
        t.ok(res.body.message.includes(needle), `lists ${needle}`)
      t.same((await http.get('/__admin/snapshot')).body, before, 'nothing was applied')
      t.equal(
        (await http.get('/api/sites/ok-site').set('authorization', basic('erin', 'x'))).status,
        401,
        'not even the valid master',
      )
      t.match((await http.post('/__admin/seed').send({ sites: {} }).expect(400)).body.message, /sites must be an array/)
      t.match((await http.post('/__admin/seed').send({ tables: [] }).expect(400)).body.message, /unknown field tables/)
      t.match(
        (
          await http
            .post('/__admin/seed')
            .send({ masters: [{ user: 'f', password_hash: 'nothex' }] })
            .expect(400)
        ).body.message,
        /password_hash is not one a snapshot gave/,
      )
    })

    t.test('visits and activities: one or many, all or nothing', async (t) => {
      const { http, alice } = await adminServer(t, kind)
      await http.put('/__admin/clock').send({ now: '2025-06-10T12:00:00' }).expect(200)
      await http.post('/api/sites/create').set('authorization', alice).send(site('events')).expect(200)
      await http.post('/__admin/visits').send({ site_name: 'events', visitor_id: 'a', page_views: 3 }).expect(204)
      await http
        .post('/__admin/visits')
        .send([
          { site_name: 'events', visitor_id: 'a' },
          { site_name: 'events', visitor_id: 'b', at: '2025-06-09' },
        ])
        .expect(204)
      const bad = await http
        .post('/__admin/visits')
        .send([
          { site_name: 'events', visitor_id: 'c' },
          { site_name: 'events', visitor_id: 'd', page_views: 0 },
        ])
        .expect(400)
      t.match(bad.body.message, /\[1\]: page_views/)
      t.match(
        (await http.post('/__admin/visits').send({ site_name: 'events' }).expect(400)).body.message,
        /visitor_id is required/,
      )
      t.match(
        (await http.post('/__admin/visits').send({ site_name: 'nosite', visitor_id: 'x' }).expect(400)).body.message,
        /site nosite does not exist/,
      )
      await http
        .post('/__admin/activities')
        .send([
          { site_name: 'events', kind: 'click_to_call' },
          { site_name: 'events', kind: 'form_submit' },
        ])
        .expect(204)
      t.match(
        (
          await http
            .post('/__admin/activities')
            .send({ site_name: 'events', kind: 'click_to_call', extra: 1 })
            .expect(400)
        ).body.message,
        /unknown field extra/,
      )
      const traffic = await http
        .get('/api/analytics/site/events')
        .query({ from: '2025-06-01', to: '2025-06-10' })
        .set('authorization', alice)
      t.same(traffic.body, { UNIQUE_VISITORS: 2, VISITS: 3, PAGE_VIEWS: 5 }, 'only the good calls were recorded')
      const acts = await http
        .get('/api/analytics/site/events')
        .query({ result: 'activities' })
        .set('authorization', alice)
      t.same(acts.body, { CLICK_TO_CALLS: 1, CLICK_TO_MAPS: 0, CLICK_TO_EMAILS: 0, FORM_SUBMITS: 1 })
    })
  })
}
