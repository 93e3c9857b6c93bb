/**
 * The test-double controls without an admin token answer only loopback
 * `Host` and `Origin` (DESIGN "Abuse resistance", issue 23): a page on
 * x.evil that rebinds its name to 127.0.0.1 sends `Host: x.evil:PORT`, and
 * must neither seed a master nor read the password hashes.
 */
import request from 'supertest'
import t from 'tap'
import { startServer } from '../../lib/index.js'

const seed = { masters: [{ user: 'intruder', password: 'intruder-pw', partner: true }] }

t.test('without a token, a non-loopback Host or Origin is 403 AccessForbidden', async (t) => {
  const server = await startServer({ admin: true })
  t.teardown(() => server.close().then(() => server.engine.close()))
  const { port } = new URL(server.url)
  const evil = `x.evil:${port}`

  const seeded = await request(server.url).post('/__admin/seed').set('Host', evil).send(seed)
  t.equal(seeded.status, 403, 'DNS rebinding: POST /__admin/seed')
  t.match(seeded.body, { error_code: 'AccessForbidden' })
  t.equal(await server.engine.hasMasterAccount('intruder'), false, 'no master was added')
  const read = await request(server.url).get('/__admin/snapshot').set('Host', evil)
  t.equal(read.status, 403, 'DNS rebinding: GET /__admin/snapshot')
  t.notMatch(JSON.stringify(read.body), /password|scrypt/, 'no hash in the answer')
  for (const host of ['example.com', `127.0.0.1.evil:${port}`, `localhost.evil:${port}`, `[::2]:${port}`, '']) {
    const res = await request(server.url).get('/__admin/snapshot').set('Host', host)
    t.equal(res.status, 403, `Host ${JSON.stringify(host)}`)
  }
  const cross = await request(server.url).get('/__admin/snapshot').set('Origin', 'http://x.evil')
  t.equal(cross.status, 403, 'a loopback Host with a foreign Origin')
  const nullOrigin = await request(server.url).get('/__admin/snapshot').set('Origin', 'null')
  t.equal(nullOrigin.status, 403, 'Origin: null')

  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`, '127.1.2.3']) {
    const res = await request(server.url).get('/__admin/snapshot').set('Host', host)
    t.equal(res.status, 200, `Host ${host}`)
  }
  const local = await request(server.url)
    .post('/__admin/seed')
    .set('Origin', `http://localhost:${port}`)
    .set('Host', `localhost:${port}`)
    .send(seed)
  t.ok(local.status < 300, `a loopback page may seed (${local.status})`)
  t.equal(await server.engine.hasMasterAccount('intruder'), true)
})

t.test('with a token, the token decides, whatever the Host', async (t) => {
  const server = await startServer({ admin: true, adminToken: 'tok' })
  t.teardown(() => server.close().then(() => server.engine.close()))
  const res = await request(server.url)
    .get('/__admin/snapshot')
    .set('Host', 'x.evil')
    .set('Authorization', 'Bearer tok')
  t.equal(res.status, 200)
  const none = await request(server.url).get('/__admin/snapshot').set('Host', 'x.evil')
  t.equal(none.status, 401)
})
