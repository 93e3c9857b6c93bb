/**
 * Remote confirmations over real HTTP between two servers: a desktop site
 * (mobileRedirect in remote mode with site_name) and a mobisite service
 * (startServer). The first redirect confirms at once, then at most once per
 * site per minute per process, fire-and-forget, never in the request path.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import request from 'supertest'
import t, { type Test } from 'tap'
import type { MobileRedirectOptions } from '../../lib/redirect/middleware.js'
import type { RemoteAgentsOptions } from '../../lib/redirect/remote.js'
import { phones, redirectApp } from '../helpers/redirect-app.js'
import { serverWithSite } from '../helpers/site-server.js'

const IPHONE = phones['iPhone Safari'] as string
const MOBILE = 'https://m.example.com'
type Tap = Test

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function service(t: Tap) {
  const { engine, server, site_name, clock } = await serverWithSite(t, '2025-06-01T10:00:00Z')
  const confirmed = async () => (await engine.as('alice').getSite(site_name)).last_confirmed_redirected_date
  const until = async (expected: string | undefined) => {
    for (let i = 0; i < 200 && (await confirmed()) !== expected; i++) await sleep(10)
    return confirmed()
  }
  const baseUrl = `${server.url}/api`
  /** redirectApp's `remote`: this service, as alice, with `extra`. */
  const remote = (extra: Partial<RemoteAgentsOptions> = {}): RemoteAgentsOptions => ({
    baseUrl,
    user: 'alice',
    password: 'pw',
    ...extra,
  })
  return { engine, server, site_name, clock, confirmed, until, baseUrl, remote }
}

/** A collector stand-in that records hits and answers as told (or never). */
async function fakeCollector(t: Tap, answer: 'ok' | '500' | 'hang') {
  const hits: Array<{ method: string; url: string }> = []
  const server = http.createServer((req, res) => {
    hits.push({ method: req.method ?? '', url: req.url ?? '' })
    if (answer === 'hang') return
    res.statusCode = answer === 'ok' ? 204 : 500
    res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  return { hits, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

/** redirectApp to {@link MOBILE} with `options`, its middleware closed at teardown. */
function appFor(t: Tap, options: Omit<MobileRedirectOptions, 'mobileUrl'>) {
  const made = redirectApp({ mobileUrl: MOBILE, ...options })
  t.teardown(() => made.mw.close())
  return made
}

t.test('the first redirect confirms at once through the service collector; then at most once a minute', async (t) => {
  const s = await service(t)
  const now = { ms: 5_000_000 }
  const errors: Error[] = []
  const { app } = appFor(t, {
    site_name: s.site_name,
    remote: s.remote({ refreshInterval: 3_600_000 }),
    now: () => now.ms,
    onError: (e) => errors.push(e),
  })
  t.equal((await request(app).get('/p').set('User-Agent', IPHONE)).status, 302)
  t.equal(await s.until('2025-06-01T10:00:00'), '2025-06-01T10:00:00', 'confirmed at once')
  s.clock.now += 3_600_000
  now.ms += 59_000
  for (let i = 0; i < 5; i++) t.equal((await request(app).get('/p').set('User-Agent', IPHONE)).status, 302)
  const second = appFor(t, {
    siteName: s.site_name,
    remote: s.remote(),
    now: () => now.ms,
  })
  await request(second.app).get('/p').set('User-Agent', IPHONE)
  await sleep(150)
  t.equal(
    await s.confirmed(),
    '2025-06-01T10:00:00',
    'within the minute: no confirmation, from any middleware of this process',
  )
  now.ms += 1_000
  await request(app).get('/p').set('User-Agent', IPHONE)
  t.equal(await s.until('2025-06-01T11:00:00'), '2025-06-01T11:00:00', 'a minute later: confirmed again')
  t.same(errors, [])
})

t.test('no confirmation without a redirect', async (t) => {
  const collector = await fakeCollector(t, 'ok')
  const s = await service(t)
  const { app } = appFor(t, {
    siteName: 'noredirects',
    remote: s.remote({ collectUrl: `${collector.url}/c` }),
  })
  await request(app).get('/p').set('User-Agent', 'curl/8.0')
  await request(app).get('/p?no_redirect=1').set('User-Agent', IPHONE)
  await request(app).get('/img').set('User-Agent', IPHONE).set('Sec-Fetch-Dest', 'image')
  await sleep(100)
  t.same(collector.hits, [])
})

t.test('remote.collectUrl overrides the address; a POST without a body', async (t) => {
  const collector = await fakeCollector(t, 'ok')
  const s = await service(t)
  const { app } = appFor(t, {
    siteName: 'elsewhere',
    remote: s.remote({
      collectUrl: `${collector.url}/beacon/elsewhere?e=redirect&k=1`,
    }),
  })
  await request(app).get('/p').set('User-Agent', IPHONE)
  for (let i = 0; i < 100 && collector.hits.length === 0; i++) await sleep(10)
  t.same(collector.hits, [{ method: 'POST', url: '/beacon/elsewhere?e=redirect&k=1' }])
  t.throws(
    () =>
      redirectApp({
        mobileUrl: MOBILE,
        siteName: 'x',
        remote: { baseUrl: s.baseUrl, user: 'a', password: 'b', collectUrl: 'ftp://x/y' },
      }),
    TypeError,
  )
})

t.test('a hanging or failing collector never delays a redirect; failures go to onError', async (t) => {
  const hanging = await fakeCollector(t, 'hang')
  const failing = await fakeCollector(t, '500')
  const s = await service(t)
  const errors: Error[] = []
  for (const [name, collector] of [
    ['hangsite', hanging],
    ['failsite', failing],
  ] as const) {
    const { app } = appFor(t, {
      site_name: name, // the deprecated spelling, still accepted
      remote: s.remote({
        timeout: 3000,
        collectUrl: `${collector.url}/c/${name}`,
      }),
      onError: (e) => errors.push(e),
    })
    const started = performance.now()
    const res = await request(app).get('/p').set('User-Agent', IPHONE)
    t.equal(res.status, 302, name)
    t.ok(
      performance.now() - started < 2500,
      `${name}: the redirect did not wait for the collector (which takes 3 s to give up)`,
    )
  }
  for (let i = 0; i < 500 && errors.length < 2; i++) await sleep(10)
  t.equal(errors.length, 2)
  t.ok(
    errors.some((e) => /^POST http:\/\/127\.0\.0\.1:\d+\/c\/failsite: HTTP 500$/.test(e.message)),
    'the failing collector is reported',
  )
  t.ok(
    errors.some((e) => /^POST http:\/\/127\.0\.0\.1:\d+\/c\/hangsite: .*(timeout|timed out)/i.test(e.message)),
    'the hanging one too, once it times out',
  )
})
