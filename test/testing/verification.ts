/**
 * Verification, as WireMock's users do it: `GET /__admin/requests/count`
 * with the journal's filters, and `GET /__admin/requests/unmatched`, the
 * calls that matched no route or failed validation, each with the nearest
 * route and why. Over HTTP and in process.
 */
import t from 'tap'
import { checkedRequest } from '../helpers/openapi-check.js'
import { STORES, adminServer } from '../helpers/testing.js'

const site = (site_name: string) => ({ site_data: { site_name, original_site_url: `https://${site_name}.example` } })

t.test('requests/count counts what the journal filters would list', async (t) => {
  const { server, alice, bob } = await adminServer(t, STORES[0]!)
  const admin = checkedRequest(server.url, '')
  const api = checkedRequest(server.url)
  await api.post('/api/sites/create').set('authorization', alice).send(site('counted')).expect(200)
  await api.get('/api/sites/counted').set('authorization', alice).expect(200)
  await api.get('/api/sites/counted').set('authorization', alice).expect(200)
  await api.get('/api/sites/counted').set('authorization', bob).expect(400)
  const count = async (query: object) => (await admin.get('/__admin/requests/count').query(query).expect(200)).body
  t.same(await count({}), { count: 4 })
  t.same(await count({ route: '/sites/{site_name}' }), { count: 3 })
  t.same(await count({ route: '/sites/{site_name}', user: 'alice', status: '200', method: 'get' }), { count: 2 })
  t.same(await count({ status: '400' }), { count: 1 })
  t.same(await count({ user: 'nobody' }), { count: 0 })
  for (const query of [{ limit: '1' }, { status: 'abc' }, { colour: 'red' }]) {
    const res = await admin.get('/__admin/requests/count').query(query).expect(400)
    t.equal(res.body.error_code, 'InvalidInput', JSON.stringify(query))
  }
  t.same(server.controls.countRequests({ route: '/sites/{site_name}', status: 200 }), { count: 2 }, 'in process')
  t.throws(() => server.controls.countRequests({ limit: 3 }), /unknown query parameter limit/)
})

t.test('requests/unmatched: the near misses, with the nearest route and why', async (t) => {
  const { server, http, alice } = await adminServer(t, STORES[0]!)
  const admin = checkedRequest(server.url, '')
  await http.get('/api/site/abcd').set('authorization', alice).expect(404)
  await http.put('/api/sites/abcd').set('authorization', alice).expect(405)
  await http
    .post('/api/sites/create')
    .set('authorization', alice)
    .send({ site_data: { original_site_url: 'https://x.example', colour: 'red' } })
    .expect(400)
  await http
    .post('/api/sites/create')
    .set('authorization', alice)
    .set('content-type', 'text/plain')
    .send('x')
    .expect(415)
  await http.get('/api/sites/%E0%A4%A').set('authorization', alice).expect(400)
  await http.get('/api/analytics/sites/withmostraffic').set('authorization', alice).expect(404)
  await http.post('/api/accounts/grant-access/bob/site/abcd').set('authorization', alice).expect(404)
  // Not misses: a call that went through, and one the engine refused for what it asked.
  await http.post('/api/sites/create').set('authorization', alice).send(site('direct-hit')).expect(200)
  await http.get('/api/sites/missing').set('authorization', alice).expect(400)

  const { unmatched } = (await admin.get('/__admin/requests/unmatched').expect(200)).body
  t.same(
    unmatched.map((m: { request: { method: string; path: string } }) => `${m.request.method} ${m.request.path}`),
    [
      'GET /site/abcd',
      'PUT /sites/abcd',
      'POST /sites/create',
      'POST /sites/create',
      'GET /sites/%E0%A4%A',
      'GET /analytics/sites/withmostraffic',
      'POST /accounts/grant-access/bob/site/abcd',
    ],
    'oldest first, only the misses',
  )
  t.same(unmatched[0].nearest, { method: 'GET', route: '/sites/{site_name}' })
  t.match(
    unmatched[0].reason,
    /no route at GET \/site\/abcd; nearest is GET \/sites\/\{site_name\}: "site" where the route has "sites"/,
  )
  t.same(unmatched[1].nearest, { method: 'GET', route: '/sites/{site_name}' })
  t.match(unmatched[1].reason, /\/sites\/\{site_name\} does not take PUT; it takes GET, DELETE/)
  t.same(unmatched[2].nearest, { method: 'POST', route: '/sites/create' })
  t.equal(unmatched[2].reason, 'InvalidInput: unknown field site_data.colour')
  t.match(unmatched[3], { nearest: { route: '/sites/create' }, reason: /^UnsupportedMediaType: / })
  t.match(unmatched[4], { nearest: { route: '/sites/{site_name}' }, reason: /malformed percent-encoding/ })
  t.same(unmatched[5].nearest, { method: 'GET', route: '/analytics/sites/withmosttraffic' }, 'a typo')
  t.same(
    unmatched[6].nearest,
    { method: 'POST', route: '/accounts/grant-access/{account_name}/sites/{site_name}' },
    'a parameter matches any segment',
  )
  t.match(unmatched[6].reason, /"site" where the route has "sites"/)
  t.match(unmatched[0].request, { status: 404, error_code: 'NotFound', error_message: /no endpoint/ })
  t.same(server.controls.unmatchedRequests(), { unmatched }, 'in process, the same')
  await admin.delete('/__admin/requests').expect(204)
  t.same(server.controls.unmatchedRequests(), { unmatched: [] }, 'the journal cleared, none left')
})
