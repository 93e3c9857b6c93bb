/**
 * GET and HEAD requests that carry a body, on every route (docs/api.md,
 * "Requests"): a declared body (Content-Length or chunked) is read and, when
 * it is not empty, refused with 400 InvalidInput, the public OpenAPI
 * document included; bytes sent after a request without a declared length
 * (as Duda's client sends its options) are no body: the request in hand is
 * answered, then the connection closes. Both hold on startServer and on an
 * Express app of one's own that mounts apiRouter or adminRouter (found by
 * test/http/http-fuzz.ts: HEAD /api/openapi.json with `{}` and no length was 400).
 */
import { once } from 'node:events'
import { type Server, createServer } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import express from 'express'
import request from 'supertest'
import t, { type Test } from 'tap'
import { apiRouter, createEngine, startServer } from 'mobisite'
import { adminRouter } from 'mobisite/testing'

const ALICE = { user: 'alice', password: 'alice-pw', partner: true }
const basic = `Basic ${Buffer.from(`${ALICE.user}:${ALICE.password}`).toString('base64')}`

/** startServer, and a plain Express app of one's own with both routers, each on an ephemeral port. */
async function servers(t: Test): Promise<{ name: string; port: number }[]> {
  const engine = createEngine()
  await engine.addMasterAccount(ALICE)
  const standalone = await startServer({ engine, admin: true })
  t.teardown(() => standalone.close())
  const app = express().use('/api', apiRouter(engine)).use('/__admin', adminRouter(engine))
  const own: Server = createServer(app).listen(0, '127.0.0.1')
  await once(own, 'listening')
  t.teardown(() => new Promise<void>((resolve) => own.close(() => resolve())))
  return [
    { name: 'startServer', port: (standalone.server.address() as AddressInfo).port },
    { name: 'an app of its own', port: (own.address() as AddressInfo).port },
  ]
}

/** Writes `text` on a new connection and resolves with everything the server sent until it closed. */
function rawExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text))
    let data = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => (data += chunk))
    socket.on('end', () => resolve(data))
    socket.on('error', reject)
    socket.setTimeout(10_000, () => reject(new Error(`no close within 10 s; got ${JSON.stringify(data)}`)))
  })
}

t.test(
  'bytes after a GET or HEAD without a length: the request in hand is answered, then the connection closes',
  async (t) => {
    for (const { name, port } of await servers(t)) {
      for (const [request, status, body] of [
        ['HEAD /api/openapi.json', 200, ''],
        ['GET /api/agents', 200, /^"/],
        ['GET /api/sites/nosuchsite', 400, /ResourceNotExist/],
        ['GET /__admin/clock', 200, /"frozen":false/],
      ] as const) {
        const raw = await rawExchange(
          port,
          `${request} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${basic}\r\nContent-Type: application/json\r\n\r\n{}`,
        )
        const [head = '', answer = ''] = raw.split('\r\n\r\n')
        t.match(head, new RegExp(`^HTTP/1\\.1 ${status} `), `${name}: ${request}: ${status}`)
        t.match(head, /\r\nConnection: close/i, `${name}: ${request}: Connection: close`)
        t.match(answer, body, `${name}: ${request}: the answer to the request in hand`)
        t.equal(raw.match(/HTTP\/1\.1 /g)?.length, 1, `${name}: ${request}: the leftover bytes were never a request`)
      }
    }
  },
)

t.test('a declared body on a GET or HEAD is refused on every route, the public document included', async (t) => {
  for (const { name, port } of await servers(t)) {
    const http = request(`http://127.0.0.1:${port}`)
    for (const path of ['/api/openapi.json', '/api/agents', '/api/sites/created', '/__admin/clock']) {
      const refused = await http.get(path).set('authorization', basic).send({ from: '2020-01-01' })
      t.equal(refused.status, 400, `${name}: GET ${path} with a body: 400`)
      t.match(refused.body, { error_code: 'InvalidInput', message: /from/ }, `${name}: GET ${path}: names the field`)
      // superagent sends no HEAD body; written by hand, with its length.
      const head = await rawExchange(
        port,
        `HEAD ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${basic}\r\nContent-Type: application/json\r\nContent-Length: 3\r\nConnection: close\r\n\r\n[1]`,
      )
      t.match(head, /^HTTP\/1\.1 400 /, `${name}: HEAD ${path} with a body: 400`)
      const empty = await http.get(path).set('authorization', basic).send({})
      t.equal(empty.status, 200, `${name}: GET ${path} with {}: an empty object is no body`)
    }
  }
})

t.test('GET /api/openapi.json with a large body still gets its whole answer', async (t) => {
  const engine = createEngine()
  const server = await startServer({ engine })
  t.teardown(() => server.close())
  // Deep and large enough (about 280 KB) that the client is still sending when an answer could go out.
  const body = `[${'{"site_name":'.repeat(20_000)}1${'}'.repeat(20_000)}]`
  const outcomes = await Promise.all(
    Array.from({ length: 10 }, () =>
      request(server.url)
        .get('/api/openapi.json')
        .set('content-type', 'application/json')
        .serialize((raw: string) => raw)
        .send(body)
        .then(
          (res) => `${res.status} ${res.body?.error_code}`,
          (error: Error & { code?: string }) => `${error.code} ${error.message}`,
        ),
    ),
  )
  t.strictSame(outcomes, Array(10).fill('400 InvalidInput'), 'every call got its whole answer, none was reset')
})

t.test('garbage after a request whose answer is pending costs one listener, however many chunks', async (t) => {
  const engine = createEngine()
  await engine.addMasterAccount(ALICE)
  const server = await startServer({ engine, admin: true })
  t.teardown(() => server.close())
  server.controls.addFault({ route: '/sites/{site_name}', latency_ms: 300 })
  const warnings: string[] = []
  const onWarning = (warning: Error) => warnings.push(warning.name)
  process.on('warning', onWarning)
  t.teardown(() => process.off('warning', onWarning))
  const { port } = server.server.address() as AddressInfo
  const raw = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', async () => {
      socket.write(`GET /api/sites/slow HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${basic}\r\n\r\n`)
      for (let i = 0; i < 40 && socket.writable; i++) {
        socket.write(`garbage ${i}\r\n`)
        await new Promise((r) => setTimeout(r, 2))
      }
    })
    let data = ''
    socket.on('data', (chunk) => (data += chunk))
    socket.on('close', () => resolve(data))
    socket.on('error', reject)
  })
  t.match(raw, /^HTTP\/1\.1 400 .*ResourceNotExist/s, 'the request in hand got its answer')
  t.equal(raw.match(/HTTP\/1\.1 /g)?.length, 1, 'and nothing else')
  t.same(warnings, [], 'no MaxListenersExceededWarning')
})
