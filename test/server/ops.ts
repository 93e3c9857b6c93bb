/**
 * The operating options in process: startServer's probes and metrics,
 * readiness during a store outage (an own redis-server, killed), the
 * `registry` options of apiRouter and mobileRedirect, the `logger` option
 * of apiRouter, and that embedded use logs nothing without one.
 */
import express from 'express'
import { Registry } from 'prom-client'
import request from 'supertest'
import t from 'tap'
import { createEngine } from '../../lib/engine/index.js'
import { apiRouter } from '../../lib/http/router.js'
import { instrumentsFor } from '../../lib/http/metrics.js'
import { mobileRedirect } from '../../lib/redirect/middleware.js'
import { startServer } from '../../lib/server/index.js'
import { capturedLogger } from '../helpers/log-lines.js'
import { phones, notPhones } from '../helpers/redirect-app.js'
import { freePort, OwnRedis, ownRedisOrSkip } from '../helpers/redis.js'

const auth = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

t.test('startServer: /healthz and /readyz always; /metrics only with metrics', async (t) => {
  const plain = await startServer()
  t.teardown(() => plain.close())
  t.equal((await fetch(`${plain.url}/healthz`)).status, 200)
  t.same(await (await fetch(`${plain.url}/readyz`)).json(), { status: 'ready' })
  t.equal((await fetch(`${plain.url}/metrics`)).status, 404, 'no metrics unless asked')
  t.equal(plain.registry, undefined)

  const measured = await startServer({ metrics: true })
  t.teardown(() => measured.close())
  await measured.engine.addMasterAccount({ user: 'u', password: 'p' })
  await fetch(`${measured.url}/api/sites/some-site`, { headers: { authorization: auth('u', 'p') } })
  await fetch(`${measured.url}/no/such/path/here`)
  const text = await (await fetch(`${measured.url}/metrics`)).text()
  t.match(text, /nodejs_heap_size_total_bytes/, 'default metrics')
  t.match(
    text,
    /http_request_duration_seconds_count\{method="GET",route="\/api\/sites\/\{site_name\}",status_code="400"\} 1/,
  )
  t.match(text, /route="\(unmatched\)",status_code="404"/, 'an unknown path gets one fixed label')
  t.notMatch(text, /some-site|no\/such/, 'never a raw path')
})

t.test('readiness follows the store: 503 with a reason while Redis is down, 200 again after', async (t) => {
  if (!ownRedisOrSkip(t, 'readiness through a Redis outage')) return
  const { RedisStore } = await import('../../lib/redis.js')
  const redis = new OwnRedis(await freePort())
  await redis.start()
  const store = new RedisStore({ url: redis.url, prefix: 'ops-ready:' })
  const engine = createEngine({ store })
  const server = await startServer({ engine })
  t.teardown(async () => {
    await server.close()
    await engine.close().catch(() => undefined)
    await redis.stop()
  })
  t.equal((await fetch(`${server.url}/readyz`)).status, 200, 'ready while Redis answers')
  await redis.stop()
  const started = Date.now()
  const down = await fetch(`${server.url}/readyz`)
  t.ok(Date.now() - started < 2_000, 'answered within the 1 s probe bound')
  t.equal(down.status, 503)
  t.match(await down.json(), { status: 'not_ready', reason: /store/ })
  t.equal((await fetch(`${server.url}/healthz`)).status, 200, 'liveness stays 200: a restart would not help')
  await redis.start()
  let ready = 0
  for (let i = 0; i < 100 && ready !== 200; i++) {
    ready = (await fetch(`${server.url}/readyz`)).status
    if (ready !== 200) await new Promise((r) => setTimeout(r, 100))
  }
  t.equal(ready, 200, 'ready again once Redis is back')
})

t.test('shutdown(): readiness 503 at once, then closed', async (t) => {
  const server = await startServer()
  const stopping = server.shutdown({ delay: 300, timeout: 1_000 })
  const res = await fetch(`${server.url}/readyz`)
  t.equal(res.status, 503)
  t.equal(res.headers.get('connection'), 'close', 'answers close their connection while draining')
  await stopping
  await t.rejects(fetch(`${server.url}/healthz`), 'no longer listening')
})

t.test(
  'apiRouter: logs nothing by default; with logger, one access line without secrets; with registry, metrics',
  async (t) => {
    const engine = createEngine()
    await engine.addMasterAccount({ user: 'u', password: 'secret-pw' })
    const writes: string[] = []
    const original = process.stdout.write.bind(process.stdout)
    const app1 = express().use('/api', apiRouter(engine))
    process.stdout.write = ((chunk: string) => {
      writes.push(String(chunk))
      return true
    }) as typeof process.stdout.write
    try {
      await request(app1).get('/api/sites/x').set('authorization', auth('u', 'secret-pw'))
    } finally {
      process.stdout.write = original
    }
    t.same(writes, [], 'embedded without a logger: nothing written')

    const { logger, lines, text } = capturedLogger()
    const registry = new Registry()
    const app2 = express().use('/v1', apiRouter(engine, { logger, registry }))
    const res = await request(app2)
      .get('/v1/sites/x?token=query-secret')
      .set('authorization', auth('u', 'secret-pw'))
      .set('cookie', 'sid=cookie-secret')
    t.equal(res.status, 400)
    t.match(res.headers['x-request-id'], /^[0-9a-f]{16}-[0-9a-z]+$/)
    t.equal(lines.length, 1, 'one line')
    const next = (await request(app2).get('/v1/sites/x')).headers['x-request-id'] as string
    t.not(next, res.headers['x-request-id'], 'every answer its own id')
    t.equal(next.split('-')[0], (res.headers['x-request-id'] as string).split('-')[0], 'one prefix per process')
    t.match(lines[0], { route: '/v1/sites/{site_name}', user: 'u', req: { method: 'GET', path: '/v1/sites/x' } })
    for (const secret of ['secret-pw', 'query-secret', 'cookie-secret', auth('u', 'secret-pw').slice(6)])
      t.notMatch(text[0], secret, 'no secret logged')
    // prom-client loads on first use; observations made before it resolves are applied once it has.
    const counted =
      /http_request_duration_seconds_count\{method="GET",route="\/v1\/sites\/\{site_name\}",status_code="400"\} 1/
    let metrics = await registry.metrics()
    for (let i = 0; i < 100 && !counted.test(metrics); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      metrics = await registry.metrics()
    }
    t.match(metrics, counted)
  },
)

t.test('mobileRedirect registry: decisions counted', async (t) => {
  const registry = new Registry()
  const app = express()
    .use(mobileRedirect({ mobileUrl: 'https://m.example.com', registry }))
    .get('*splat', (_req, res) => {
      res.send('desktop')
    })
  const IPHONE = phones['iPhone Safari'] as string
  await request(app).get('/a').set('user-agent', IPHONE)
  await request(app).get('/a').set('user-agent', IPHONE).set('accept', 'application/json')
  await request(app).get('/a?no_redirect=1').set('user-agent', IPHONE)
  await request(app)
    .get('/a')
    .set('user-agent', notPhones['Ubuntu Firefox'] as string)
  // prom-client loads on first use; observations made before it resolves are applied once it has.
  let text = await registry.metrics()
  for (let i = 0; i < 100 && !text.includes('decision="desktop"'); i++) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    text = await registry.metrics()
  }
  for (const decision of ['redirected', 'not_navigation', 'opted_out', 'desktop'])
    t.match(text, `mobisite_redirect_decisions_total{decision="${decision}"} 1`, decision)
})

t.test('the collector hook: counters and the pending gauge the collector feeds', async (t) => {
  const registry = new Registry()
  const instruments = instrumentsFor(registry)
  t.equal(instrumentsFor(registry), instruments, 'one set per registry')
  instruments.collectorEvents('accepted', 3)
  instruments.collectorEvents('recorded', 2)
  instruments.collectorEvents('dropped')
  instruments.pendingRecordings(1)
  await instruments.ready
  const text = await registry.metrics()
  t.match(text, 'mobisite_collector_events_total{event="accepted"} 3')
  t.match(text, 'mobisite_collector_events_total{event="recorded"} 2')
  t.match(text, 'mobisite_collector_events_total{event="dropped"} 1')
  t.match(text, 'mobisite_pending_recordings 1')
})

t.test(
  'startServer access log: API calls at info with the request id; beacons and probes at debug, counted in metrics',
  async (t) => {
    const beaconsAndApi = async (level: string) => {
      const { logger, lines } = capturedLogger(level)
      const server = await startServer({ logger, metrics: true })
      t.teardown(() => server.close())
      await server.engine.addMasterAccount({ user: 'u', password: 'p' })
      await server.engine
        .as('u')
        .createSite({ site_data: { site_name: 'logged1', original_site_url: 'https://a.example/' } })
      const api = await fetch(`${server.url}/api/sites/logged1`, { headers: { authorization: auth('u', 'p') } })
      for (let i = 0; i < 3; i++)
        t.equal((await fetch(`${server.url}/collect/logged1`, { method: 'POST' })).status, 204)
      await fetch(`${server.url}/healthz`)
      // The line is written once the answer has closed, just after the client has it.
      await new Promise((resolve) => setTimeout(resolve, 50))
      return { lines, api, metrics: await (await fetch(`${server.url}/metrics`)).text() }
    }
    const info = await beaconsAndApi('info')
    const id = info.api.headers.get('x-request-id')
    t.strictSame(
      info.lines.map((line) => line.route),
      ['/api/sites/{site_name}'],
      'at info: the API call only, no beacon and no probe',
    )
    t.match(info.lines[0], { level: 30, reqId: id, req: { id, method: 'GET', path: '/api/sites/logged1' }, user: 'u' })
    t.match(info.metrics, /http_request_duration_seconds_count\{method="POST",route="\/collect",status_code="204"\} 3/)
    const debug = await beaconsAndApi('debug')
    t.strictSame(
      debug.lines
        .filter((line) => line.reqId !== undefined && line.route !== '/metrics')
        .map((line) => [line.route, line.level]),
      [
        ['/api/sites/{site_name}', 30],
        ['/collect', 20],
        ['/collect', 20],
        ['/collect', 20],
        ['/healthz', 20],
      ],
      'at debug: each beacon and the probe, at debug level',
    )
  },
)

t.test('startServer with a silent logger and no metrics observes nothing: no request id, no listener', async (t) => {
  const { logger, lines } = capturedLogger('silent')
  const server = await startServer({ logger })
  t.teardown(() => server.close())
  const answer = await fetch(`${server.url}/api/sites/x`)
  t.equal(answer.status, 401)
  t.equal(answer.headers.get('x-request-id'), null)
  const audible = await startServer({ logger: capturedLogger('info').logger })
  t.teardown(() => audible.close())
  t.match((await fetch(`${audible.url}/api/sites/x`)).headers.get('x-request-id'), /^[0-9a-f]{16}-[0-9a-z]+$/)
  t.strictSame(lines, [])
})
