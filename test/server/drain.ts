/**
 * startServer's shutdown() as a client sees it, over raw sockets: every
 * answer from then on carries `Connection: close` (those in flight, the
 * admin controls' and the probes' included); a request written on a
 * kept-alive socket as the drain starts is answered, never reset; the
 * listener stays open through the delay and until the answers in flight are
 * out, and the connections it accepted are never dropped; idle kept-alive
 * sockets end at their keep-alive timeout, and the shutdown timeout cuts the rest.
 */
import t from 'tap'
import { createEngine } from '../../lib/engine/index.js'
import { startServer } from '../../lib/server/index.js'
import { closedBy, exchange, openSocket, refused } from '../helpers/raw-http.js'
import { ALICE, basic } from '../helpers/testing.js'

const AUTH = { authorization: basic(ALICE.user, ALICE.password) }

/** A server with the admin controls and alice, whose `GET /api/sites/{name}` waits `latencyMs`. */
async function slowServer(latencyMs: number, timeouts = {}) {
  const engine = createEngine()
  await engine.addMasterAccount(ALICE)
  const server = await startServer({ engine, admin: true, timeouts })
  server.controls.addFault({ method: 'GET', route: '/sites/{site_name}', latency_ms: latencyMs })
  return server
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

t.test('after shutdown() every answer carries Connection: close, those in flight included', async (t) => {
  const server = await slowServer(1_000)
  t.teardown(() => server.close())
  const inFlight = await openSocket(server.url)
  const slow = exchange(inFlight, '/api/sites/none', AUTH)
  await sleep(300)
  const stopping = server.shutdown({ delay: 1_500, timeout: 10_000 })
  for (const path of ['/readyz', '/__admin/health', '/api/sites/none']) {
    const answer = await exchange(await openSocket(server.url), path, path.startsWith('/api') ? AUTH : {})
    t.match(answer, { headers: { connection: 'close' } }, `${path}, asked during the delay`)
  }
  const answer = await slow
  t.match(answer, { status: 400, headers: { connection: 'close' } }, 'the answer in flight at shutdown()')
  t.equal(await closedBy(inFlight), 'closed', 'and its connection is closed after it, without a reset')
  await stopping
})

t.test('a request written on a kept-alive socket as shutdown() starts is answered, not reset', async (t) => {
  const server = await startServer()
  t.teardown(() => server.close())
  const socket = await openSocket(server.url)
  t.match(await exchange(socket, '/healthz'), { status: 200, headers: { connection: 'keep-alive' } }, 'kept alive')
  // Written before the server can have read it: to the server the socket is idle when the drain starts.
  const again = exchange(socket, '/healthz')
  const stopping = server.shutdown()
  t.match(await again, { status: 200, headers: { connection: 'close' } }, 'answered, with Connection: close')
  t.equal(await closedBy(socket), 'closed', 'then closed by the server')
  await stopping
})

t.test('the listener closes after the delay and after the answers in flight; accepted connections stay', async (t) => {
  const server = await slowServer(2_000)
  t.teardown(() => server.close())
  const inFlight = await openSocket(server.url)
  const slow = exchange(inFlight, '/api/sites/none', AUTH)
  // Accepted but silent when the listener closes: to Node, an idle connection.
  const silent = await openSocket(server.url)
  await sleep(200)
  const started = Date.now()
  const stopping = server.shutdown({ delay: 300, timeout: 10_000 })
  await sleep(900)
  t.ok(server.server.listening, 'still listening past the delay while an answer is in flight')
  const late = await exchange(await openSocket(server.url), '/healthz')
  t.match(late, { status: 200, headers: { connection: 'close' } }, 'and a new connection is served')
  t.match(await slow, { status: 400, headers: { connection: 'close' } }, 'the slow answer, closing its connection')
  while (server.server.listening && Date.now() - started < 8_000) await sleep(20)
  t.notOk(server.server.listening, 'the listener closed once the answer was out')
  t.ok(await refused(server.url), 'new connections are refused from then on')
  t.match(
    await exchange(silent, '/healthz'),
    { status: 200, headers: { connection: 'close' } },
    'a connection accepted before then still gets its answer',
  )
  await stopping
})

t.test('idle kept-alive sockets end at their keep-alive timeout; the shutdown timeout cuts the rest', async (t) => {
  const server = await slowServer(4_000, { keepAlive: 500 })
  t.teardown(() => server.close())
  const idle = await openSocket(server.url)
  t.match(await exchange(idle, '/healthz'), { status: 200, headers: { connection: 'keep-alive' } }, 'kept alive')
  const hung = await openSocket(server.url)
  const hungAnswer = exchange(hung, '/api/sites/none', AUTH)
  await sleep(200)
  const started = Date.now()
  const idleClosed = closedBy(idle).then((how) => [how, Date.now() - started] as const)
  await server.shutdown({ delay: 0, timeout: 2_500 })
  const stoppedAfter = Date.now() - started
  const [how, idleAfter] = await idleClosed
  t.equal(how, 'closed', 'the idle socket was closed in order')
  t.ok(idleAfter < 2_500, `by its keep-alive timeout (${idleAfter} ms), before the cut`)
  t.match(await hungAnswer, { error: /closed|reset/ }, 'the request still running at the timeout is cut')
  t.ok(stoppedAfter >= 2_000 && stoppedAfter < 8_000, `shutdown() resolved after the cut (${stoppedAfter} ms)`)
  t.notOk(server.server.listening, 'no longer listening')
  await server.close()
})

t.test('close() still ends idle kept-alive sockets at once', async (t) => {
  const server = await startServer()
  const socket = await openSocket(server.url)
  t.match(await exchange(socket, '/healthz'), { status: 200, headers: { connection: 'keep-alive' } }, 'kept alive')
  const started = Date.now()
  await server.close()
  t.ok(Date.now() - started < 2_000, 'resolved without waiting for the keep-alive timeout')
  t.equal(await closedBy(socket), 'closed', 'the idle socket is closed')
})
