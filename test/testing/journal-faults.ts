/**
 * The request journal and fault injection over HTTP (startServer with admin),
 * on MemoryStore and RedisStore: what is journaled and what never is,
 * filters, bodies, 404/405; faults after authentication and before the
 * engine, matching, counting, probability, latency, drops.
 */
import t from 'tap'
import { STORES, adminServer } from '../helpers/testing.js'

const site = (site_name: string) => ({ site_data: { site_name, original_site_url: `https://${site_name}.example` } })

for (const kind of STORES) {
  t.test(`${kind.name}: journal`, async (t) => {
    const { http, alice, bob } = await adminServer(t, kind)
    await http.put('/__admin/clock').send({ now: '2025-04-01T08:00:00' }).expect(200)
    await http.post('/api/sites/create').set('authorization', alice).send(site('journaled')).expect(200)
    await http.get('/api/sites/journaled').set('authorization', bob).expect(400)
    await http.get('/api/sites/journaled').set('authorization', 'Basic bm9ib2R5Om5vcGU=').expect(401)
    await http.get('/api/sites/created').query({ from: '2025-04-01' }).set('authorization', alice).expect(200)
    await http.get('/api/nothing/here').set('authorization', alice).expect(404)
    await http.put('/api/sites/journaled').set('authorization', alice).expect(405)
    const big = { site_data: { site_name: 'bigbody', original_site_url: `https://big.example/${'x'.repeat(70_000)}` } }
    await http.post('/api/sites/create').set('authorization', alice).send(big).expect(400)
    const all = (await http.get('/__admin/requests').expect(200)).body.requests
    t.equal(all.length, 7, 'every /api call, in order')
    t.same(
      all.map((r: { id: number }) => r.id),
      [1, 2, 3, 4, 5, 6, 7],
      'newest last',
    )
    t.same(all[0], {
      id: 1,
      at: '2025-04-01T08:00:00',
      method: 'POST',
      path: '/sites/create',
      route: '/sites/create',
      query: {},
      status: 200,
      user: 'alice',
      duration_ms: all[0].duration_ms,
      body: site('journaled'),
    })
    t.ok(all[0].duration_ms >= 0)
    t.match(all[1], {
      route: '/sites/{site_name}',
      path: '/sites/journaled',
      status: 400,
      user: 'bob',
      error_code: 'ResourceNotExist',
    })
    t.match(all[2], { status: 401, error_code: 'Unauthorized', route: '/sites/{site_name}' })
    t.notOk('user' in all[2], 'no user for failed authentication')
    t.match(all[3], { route: '/sites/created', query: { from: '2025-04-01' } })
    t.match(all[4], { status: 404, error_code: 'NotFound', path: '/nothing/here' })
    t.notOk('route' in all[4], 'no route for an unknown path')
    t.match(all[5], { status: 405, method: 'PUT' })
    t.match(all[6], { status: 400, route: '/sites/create' })
    t.notOk('body' in all[6], 'a body over 64 KiB is left out')
    const text = JSON.stringify(all)
    // Error messages may name the Basic scheme; no header value is ever kept.
    for (const secret of ['alice-pw', 'bob-pw', alice.slice(6), bob.slice(6), 'authorization', 'bm9ib2R5'])
      t.notOk(text.includes(secret), `never ${secret}`)

    const list = async (query: object) =>
      (await http.get('/__admin/requests').query(query).expect(200)).body.requests.map((r: { id: number }) => r.id)
    t.same(await list({ method: 'get' }), [2, 3, 4, 5], 'method, any case')
    t.same(await list({ route: '/sites/{site_name}' }), [2, 3], 'route template')
    t.same(await list({ status: '400' }), [2, 7])
    t.same(await list({ user: 'alice' }), [1, 4, 7], 'calls no endpoint took (404, 405) have no user')
    t.same(await list({ user: 'alice', limit: '2' }), [4, 7], 'limit keeps the newest')
    // Refused after authentication: still the caller's calls.
    await http
      .post('/api/sites/create')
      .set('authorization', alice)
      .set('content-type', 'text/plain')
      .send('{}')
      .expect(415)
    await http
      .post('/api/sites/create')
      .set('authorization', alice)
      .set('origin', 'https://evil.example')
      .send({})
      .expect(403)
    const refused = (await http.get('/__admin/requests').query({ status: '415' }).expect(200)).body.requests
    t.match(refused, [{ status: 415, user: 'alice', error_code: 'UnsupportedMediaType' }], 'a 415 names its caller')
    const forbidden = (await http.get('/__admin/requests').query({ status: '403' }).expect(200)).body.requests
    t.match(forbidden, [{ status: 403, user: 'alice', error_code: 'AccessForbidden' }], 'a 403 names its caller')
    for (const [query, message] of [
      [{ status: 'x' }, /status must be/],
      [{ limit: '0' }, /limit must be/],
      [{ color: 'red' }, /unknown query parameter color/],
    ] as const)
      t.match((await http.get('/__admin/requests').query(query).expect(400)).body.message, message)
    await http.delete('/__admin/requests').expect(204)
    t.same((await http.get('/__admin/requests')).body, { requests: [] }, 'cleared')
  })

  t.test(`${kind.name}: faults`, async (t) => {
    const { http, alice, bob } = await adminServer(t, kind)
    const add = async (fault: object) => (await http.post('/__admin/faults').send(fault).expect(201)).body.id as string

    const id = await add({
      method: 'post',
      route: '/sites/create',
      error: { status: 503, error_code: 'Maintenance', message: 'down for a bit' },
      times: 2,
    })
    t.match(id, /^\d+$/)
    t.equal(
      (await http.post('/api/sites/create').send(site('nope')).expect(401)).body.error_code,
      'Unauthorized',
      'authentication comes first',
    )
    const faulted = await http.post('/api/sites/create').set('authorization', alice).send(site('faulted')).expect(503)
    t.same(faulted.body, { error_code: 'Maintenance', message: 'down for a bit' })
    t.equal(
      (await http.get('/api/sites/faulted').set('authorization', alice)).body.error_code,
      'ResourceNotExist',
      'the faulted write changed nothing',
    )
    t.same((await http.get('/__admin/faults')).body, {
      faults: [
        {
          id,
          method: 'POST',
          route: '/sites/create',
          error: { status: 503, error_code: 'Maintenance', message: 'down for a bit' },
          times: 1,
        },
      ],
    })
    await http.post('/api/sites/create').set('authorization', alice).send(site('faulted')).expect(503)
    t.same((await http.get('/__admin/faults')).body, { faults: [] }, 'gone after its times')
    await http.post('/api/sites/create').set('authorization', alice).send(site('faulted')).expect(200)
    const journal = (await http.get('/__admin/requests').query({ status: '503' })).body.requests
    t.equal(journal.length, 2, 'faulted calls are journaled')
    t.equal(journal[0].error_code, 'Maintenance')

    await add({ route: '/sites/{site_name}', site_name: 'faulted', error: { status: 418, error_code: 'Teapot' } })
    await add({ route: '/sites/{site_name}', error: { status: 500, error_code: 'Younger' } })
    t.equal(
      (await http.get('/api/sites/faulted').set('authorization', alice)).status,
      418,
      'the oldest matching fault wins',
    )
    t.equal((await http.get('/api/sites/other').set('authorization', alice)).status, 500, 'site_name narrows the first')
    t.equal(
      (await http.post('/api/sites/unpublish/faulted').set('authorization', alice)).status,
      204,
      'another route is untouched',
    )
    await http.delete('/__admin/faults').expect(204)

    const never = await add({ route: '/agents', probability: 0, error: { status: 500, error_code: 'Never' }, times: 1 })
    await add({ route: '/agents', probability: 1, latency_ms: 150, times: 1 })
    const started = Date.now()
    await http.get('/api/agents').set('authorization', bob).expect(200)
    t.ok(Date.now() - started >= 140, 'latency before an otherwise normal answer')
    t.same(
      (await http.get('/__admin/faults')).body.faults.map((f: { id: string; times: number }) => [f.id, f.times]),
      [[never, 1]],
      'a probability miss does not count',
    )
    await http.delete(`/__admin/faults/${never}`).expect(204)
    t.equal((await http.delete(`/__admin/faults/${never}`).expect(404)).body.error_code, 'NotFound')

    await add({ method: 'GET', route: '/sites/{site_name}', drop: true, times: 1 })
    const dropped = await http
      .get('/api/sites/faulted')
      .set('authorization', alice)
      .then(
        () => undefined,
        (error: Error) => error,
      )
    t.ok(dropped, `the connection was dropped (${dropped?.message})`)
    t.equal((await http.get('/api/sites/faulted').set('authorization', alice)).status, 200, 'then answers again')
    const last = (await http.get('/__admin/requests').query({ route: '/sites/{site_name}', limit: '2' })).body.requests
    t.same(
      last.map((r: { status: number }) => r.status),
      [0, 200],
      'the dropped call is journaled with status 0',
    )
    t.match(
      (await http.get('/__admin/requests').query({ status: '0' }).expect(400)).body.message,
      /status/,
      'status 0 is not a filter value',
    )

    for (const [fault, message] of [
      [{ error: { status: 500, error_code: 'X' }, color: 'red' }, /unknown field color/],
      [{ error: { status: 500, error_code: 'X', extra: 1 } }, /unknown field error.extra/],
      [{ route: '/nope', drop: true }, /route \/nope is not a path of the API/],
      [{ route: '/sites/:site_name', drop: true }, /not a path of the API/],
      [{ method: 'GET' }, /needs latency_ms, error or drop/],
      [{ error: { status: 200, error_code: 'X' } }, /error.status/],
      [{ error: { status: 500 } }, /error.error_code is required/],
      [{ probability: 2, drop: true }, /probability/],
      [{ drop: false }, /drop must be true/],
      [{ times: 0, drop: true }, /times/],
      [{ drop: true, error: { status: 500, error_code: 'X' } }, /exclude each other/],
    ] as const) {
      const res = await http.post('/__admin/faults').send(fault).expect(400)
      t.equal(res.body.error_code, 'InvalidInput')
      t.match(res.body.message, message, res.body.message)
    }
  })
}
