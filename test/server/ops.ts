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
    t.match(res.headers['x-request-id'], /^[0-9a-f-]{36}$/)
    t.equal(lines.length, 1, 'one line')
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
