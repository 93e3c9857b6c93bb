import express, { type Request } from 'express'
import request from 'supertest'
import t from 'tap'
import { analyticsCollector, cdnGeo, type CollectorEngine, type CollectorOptions } from '../../lib/collector/index.js'
import type { ActivityInput, VisitInput } from '../../lib/engine/types.js'
import { awayFromMinuteTurn } from '../helpers/real-minute.js'

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1'

/** A stand-in engine that keeps what it is asked to record. */
function fakeEngine(fail?: Error) {
  const visits: VisitInput[] = []
  const activities: ActivityInput[] = []
  const engine: CollectorEngine = {
    async recordVisit(visit) {
      if (fail) throw fail
      visits.push(visit)
    },
    async recordActivity(activity) {
      if (fail) throw fail
      activities.push(activity)
    },
  }
  return { engine, visits, activities }
}

/** Lets the collector's after-response work run to the end. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve))
}

function app(engine: CollectorEngine, options: Partial<CollectorOptions> = {}) {
  const errors: unknown[] = []
  const server = express()
  server.set('trust proxy', true)
  server.use('/collect', analyticsCollector(engine, { siteName: 'mysite', onError: (e) => errors.push(e), ...options }))
  return { server, errors }
}

function cookieOf(res: request.Response): string {
  const header = res.headers['set-cookie'] as unknown as string[]
  t.equal(header.length, 1, 'one Set-Cookie')
  return header[0]!
}

t.test('a first visit: 204, a new visitor cookie, the visit recorded', async (t) => {
  const { engine, visits } = fakeEngine()
  const { server, errors } = app(engine, { geo: cdnGeo({ provider: 'cloudflare' }) })
  const res = await request(server)
    .get('/collect?pv=3')
    .set('User-Agent', IPHONE)
    .set('CF-IPCountry', 'jp')
    .set('CF-Region-Code', '13')
  t.equal(res.status, 204)
  t.equal(res.text, '')
  t.equal(res.headers['cache-control'], 'no-store')
  const cookie = cookieOf(res)
  const id = /^msvid=([^;]+);/.exec(cookie)?.[1]
  t.match(cookie, /; Max-Age=31536000; Path=\/; HttpOnly; SameSite=Lax$/, 'a year, first-party, not Secure over http')
  await settle()
  t.strictSame(visits, [
    { site_name: 'mysite', visitor_id: id, user_agent: IPHONE, country: 'JP', region: '13', page_views: 3 },
  ])
  t.strictSame(errors, [])
})

t.test('a returning visitor keeps its id; a malformed cookie is replaced', async (t) => {
  const { engine, visits } = fakeEngine()
  const { server } = app(engine)
  const known = 'abcdef12-3456-7890-abcd-ef1234567890'
  const res = await request(server).post('/collect').set('Cookie', `other=1; msvid=${known}; x=y`)
  t.equal(res.status, 204, 'sendBeacon POSTs work too')
  t.match(cookieOf(res), new RegExp(`^msvid=${known};`), 'the cookie is refreshed with the same id')
  const bad = await request(server).get('/collect').set('Cookie', 'msvid=<script>')
  const fresh = /^msvid=([^;]+);/.exec(cookieOf(bad))?.[1]
  t.not(fresh, '<script>')
  await settle()
  t.strictSame(
    visits.map((v) => v.visitor_id),
    [known, fresh],
  )
  t.strictSame(
    visits.map((v) => [v.page_views, v.country, v.region]),
    [
      [1, undefined, undefined],
      [1, undefined, undefined],
    ],
    'no geo headers: unknown',
  )
})

t.test('activities', async (t) => {
  const { engine, visits, activities } = fakeEngine()
  const { server, errors } = app(engine, { geo: cdnGeo({ provider: 'cloudfront' }) })
  for (const kind of ['click_to_call', 'click_to_map', 'click_to_email', 'form_submit']) {
    t.equal((await request(server).get(`/collect?e=${kind}`).set('CloudFront-Viewer-Country', 'FR')).status, 204)
  }
  t.equal((await request(server).get('/collect?e=click_to_fax')).status, 204, 'an unknown event still answers 204')
  await settle()
  t.strictSame(
    activities.map((a) => [a.kind, a.country]),
    [
      ['click_to_call', 'FR'],
      ['click_to_map', 'FR'],
      ['click_to_email', 'FR'],
      ['form_submit', 'FR'],
    ],
  )
  t.strictSame(visits, [])
  t.equal(errors.length, 1)
  t.match(String(errors[0]), /unknown event "click_to_fax"/)
})

t.test('failures never reach the page', async (t) => {
  const boom = new Error('store down')
  const failing = fakeEngine(boom)
  const a = app(failing.engine)
  t.equal((await request(a.server).get('/collect')).status, 204, 'engine failure')
  const b = app(fakeEngine().engine, {
    geo: () => {
      throw new Error('geo broke')
    },
  })
  t.equal((await request(b.server).get('/collect')).status, 204, 'resolver failure')
  const c = app(fakeEngine().engine, {
    siteName: () => {
      throw new Error('no site')
    },
  })
  t.equal((await request(c.server).get('/collect')).status, 204, 'site resolver failure')
  await settle()
  t.strictSame(a.errors, [boom])
  t.match(String(b.errors[0]), /geo broke/)
  t.match(String(c.errors[0]), /no site/)
  const silent = express().use(analyticsCollector(failing.engine, { siteName: 's' }))
  t.equal((await request(silent).get('/')).status, 204, 'without onError, failures are swallowed')
})

t.test('siteName, and its deprecated spelling site_name, name the site; one of them is required', async (t) => {
  for (const [label, options, expected] of [
    ['siteName', { siteName: 'newspelling' }, 'newspelling'],
    ['site_name (deprecated)', { site_name: 'oldspelling' }, 'oldspelling'],
    ['site_name as a function (deprecated)', { site_name: () => 'byfunction' }, 'byfunction'],
    ['both: siteName wins', { siteName: 'newspelling', site_name: 'oldspelling' }, 'newspelling'],
  ] as const) {
    const { engine, visits } = fakeEngine()
    const server = express().use(analyticsCollector(engine, options))
    t.equal((await request(server).get('/')).status, 204, label)
    await settle()
    t.same(
      visits.map((v) => v.site_name),
      [expected],
      `${label}: recorded for ${expected}`,
    )
  }
  t.throws(() => analyticsCollector(fakeEngine().engine, {}), { name: 'TypeError', message: /`siteName` is required/ })
})

t.test('site by request; undefined skips recording', async (t) => {
  const { engine, visits } = fakeEngine()
  const { server } = app(engine, {
    siteName: (req: Request) => (req.hostname === 'm.shop.example' ? 'shop' : undefined),
  })
  await request(server).get('/collect').set('Host', 'm.shop.example')
  await request(server).get('/collect').set('Host', 'elsewhere.example')
  await settle()
  t.strictSame(
    visits.map((v) => v.site_name),
    ['shop'],
  )
})

t.test('custom async geo resolver and cookie options', async (t) => {
  const { engine, visits } = fakeEngine()
  const { server } = app(engine, {
    geo: async (req) => ({ country: req.get('x-test-country'), region: 'Somewhere' }),
    cookie: { name: 'vid', maxAgeDays: 30, domain: 'shop.example', path: '/m', sameSite: 'Strict' },
  })
  const res = await request(server).get('/collect').set('X-Test-Country', 'BR').set('X-Forwarded-Proto', 'https')
  t.match(
    cookieOf(res),
    /^vid=[^;]+; Max-Age=2592000; Path=\/m; HttpOnly; SameSite=Strict; Domain=shop\.example; Secure$/,
  )
  const forced = app(engine, { cookie: { secure: true } })
  t.match(cookieOf(await request(forced.server).get('/collect')), /; Secure$/, 'secure: true over http')
  await settle()
  t.strictSame(
    visits.map((v) => [v.country, v.region]),
    [
      ['BR', 'Somewhere'],
      [undefined, undefined],
    ],
  )
})

t.test('passThrough records and lets the page render', async (t) => {
  const { engine, visits } = fakeEngine(undefined)
  const server = express()
  server.use(analyticsCollector(engine, { siteName: 'mysite', passThrough: true }))
  server.get('/page', (_req, res) => res.send('hello'))
  const res = await request(server).get('/page?e=click_to_call&pv=9')
  t.equal(res.status, 200)
  t.equal(res.text, 'hello')
  t.match(cookieOf(res), /^msvid=/)
  await settle()
  t.equal(visits.length, 1, 'always a visit in this mode')
  t.equal(visits[0]?.page_views, 1, "query parameters are the page's, not ours")
})

t.test('cdnGeo({ provider }) reads that CDN only, and only valid codes', async (t) => {
  const req = (headers: Record<string, string>) => ({ headers }) as unknown as Request
  const cf = cdnGeo({ provider: 'cloudflare' })
  t.strictSame(cf(req({ 'cf-ipcountry': 'us', 'cf-region-code': 'CA' })), { country: 'US', region: 'CA' })
  t.strictSame(cf(req({ 'cf-ipcountry': 'US', 'cf-region': 'California' })), { country: 'US' }, 'names are not codes')
  t.equal(cf(req({ 'cloudfront-viewer-country': 'DE' })), undefined, "another CDN's header is not read")
  t.strictSame(
    cdnGeo({ provider: 'cloudfront' })(
      req({ 'cloudfront-viewer-country': 'DE', 'cloudfront-viewer-country-region': 'BE' }),
    ),
    {
      country: 'DE',
      region: 'BE',
    },
  )
  t.strictSame(
    cdnGeo({ provider: 'vercel' })(req({ 'x-vercel-ip-country': 'gb', 'x-vercel-ip-country-region': 'ENG' })),
    {
      country: 'GB',
      region: 'ENG',
    },
  )
  const gae = cdnGeo({ provider: 'appengine' })
  t.strictSame(gae(req({ 'x-appengine-country': 'AU', 'x-appengine-region': 'nsw' })), { country: 'AU', region: 'nsw' })
  t.strictSame(gae(req({ 'x-appengine-country': 'NZ' })), { country: 'NZ' }, 'no region header')
  for (const bad of ['XX', 'T1', 'ZZ', 'USA', '1', '', 'é1', '(other)'])
    t.equal(cf(req({ 'cf-ipcountry': bad })), undefined, `"${bad}" is not a country`)
  for (const bad of ['ABCD', 'x'.repeat(101), 'C A', '(other)', 'Île'])
    t.strictSame(
      cf(req({ 'cf-ipcountry': 'US', 'cf-region-code': bad })),
      { country: 'US' },
      `"${bad}" is not a region`,
    )
  t.throws(() => cdnGeo({ provider: 'akamai' as never }), TypeError, 'an unknown provider is refused')
  // The deprecated bare form still reads the first CDN present, now validated too.
  t.strictSame(cdnGeo(req({ 'x-vercel-ip-country': 'fr', 'x-vercel-ip-country-region': 'IDF' })), {
    country: 'FR',
    region: 'IDF',
  })
  t.equal(cdnGeo(req({})), undefined, 'no CDN')
})

t.test('by default no geo header is read', async (t) => {
  const { engine, visits } = fakeEngine()
  const { server } = app(engine)
  await request(server).get('/collect').set('CF-IPCountry', 'JP').set('CF-Region-Code', '13')
  await settle()
  t.strictSame(
    visits.map((v) => [v.country, v.region]),
    [[undefined, undefined]],
    'a forged header is ignored',
  )
})

t.test('beaconsPerMinute: per client IP and site, the rest answered 204 and dropped', async (t) => {
  const { engine, visits } = fakeEngine()
  await awayFromMinuteTurn()
  const { server } = app(engine, { beaconsPerMinute: 3 })
  const from = (ip: string) => request(server).get('/collect').set('X-Forwarded-For', ip)
  for (let i = 0; i < 5; i++) t.equal((await from('203.0.113.1')).status, 204)
  t.equal((await from('203.0.113.2')).status, 204, 'another client has its own budget')
  await settle()
  t.equal(visits.length, 4, 'three from the first client, one from the second')
  const unlimited = fakeEngine()
  const open = app(unlimited.engine, { beaconsPerMinute: 0 })
  for (let i = 0; i < 700; i++) await request(open.server).get('/collect')
  await settle()
  t.equal(unlimited.visits.length, 700, '0: no limit')
  t.equal((await request(app(engine).server).get('/collect')).status, 204)
  t.throws(() => analyticsCollector(engine, { siteName: 's', beaconsPerMinute: -1 }), TypeError)
  t.throws(() => analyticsCollector(engine, { siteName: 's', maxPendingRecordings: 0 }), TypeError)
})

t.test('maxPendingRecordings: past it beacons are answered 204, dropped and counted', async (t) => {
  const release: (() => void)[] = []
  const visits: VisitInput[] = []
  const slow: CollectorEngine = {
    recordVisit: (visit) =>
      new Promise<void>((resolve) => {
        visits.push(visit)
        release.push(resolve)
      }),
    recordActivity: async () => {},
  }
  const { server } = app(slow, { maxPendingRecordings: 2 })
  for (let i = 0; i < 4; i++) t.equal((await request(server).get('/collect')).status, 204)
  await settle()
  t.equal(visits.length, 2, 'two pending, two dropped')
  for (const done of release.splice(0)) done()
  await settle()
  await request(server).get('/collect')
  await settle()
  t.equal(visits.length, 3, 'room again once recorded')
})

t.test('dropped beacons are logged through `logger`: at once, then at most once per interval', async (t) => {
  const { engine } = fakeEngine()
  const lines: { fields: Record<string, unknown>; message: string }[] = []
  const logger = { warn: (fields: Record<string, unknown>, message: string) => void lines.push({ fields, message }) }
  const { server } = app(engine, { beaconsPerMinute: 1, logger, dropLogIntervalMs: 200 })
  for (let i = 0; i < 4; i++) t.equal((await request(server).get('/collect')).status, 204)
  t.equal(lines.length, 1, 'three drops, one line so far: the first drop')
  t.match(lines[0], { fields: { dropped_rate: 1, dropped_queue: 0, interval_ms: 200 }, message: /dropped 1 beacon/ })
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.equal(lines.length, 2, 'the drops since are written when the interval ends')
  t.match(lines[1]!.fields, { dropped_rate: 2, dropped_queue: 0 })
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.equal(lines.length, 2, 'no drops, no line')

  const release: (() => void)[] = []
  const slow: CollectorEngine = {
    recordVisit: () => new Promise<void>((resolve) => release.push(resolve)),
    recordActivity: async () => {},
  }
  const queued: typeof lines = []
  const full = app(slow, {
    maxPendingRecordings: 1,
    logger: { warn: (fields, message) => void queued.push({ fields, message }) },
  })
  for (let i = 0; i < 3; i++) await request(full.server).get('/collect')
  await settle()
  t.match(queued, [{ fields: { dropped_queue: 1, dropped_rate: 0 } }], 'the queue bound is logged too')
  for (const done of release.splice(0)) done()

  const silent = fakeEngine()
  const quiet = app(silent.engine, { beaconsPerMinute: 1 })
  const writes: unknown[] = []
  const original = { stdout: process.stdout.write, stderr: process.stderr.write, warn: console.warn }
  process.stdout.write = ((chunk: unknown) => writes.push(chunk) > 0) as typeof process.stdout.write
  process.stderr.write = ((chunk: unknown) => writes.push(chunk) > 0) as typeof process.stderr.write
  console.warn = (...args: unknown[]) => void writes.push(args)
  try {
    for (let i = 0; i < 3; i++) await request(quiet.server).get('/collect')
  } finally {
    process.stdout.write = original.stdout
    process.stderr.write = original.stderr
    console.warn = original.warn
  }
  t.same(writes, [], 'embedded without a logger: nothing written')
  t.throws(() => analyticsCollector(engine, { siteName: 's', logger, dropLogIntervalMs: 0 }), TypeError)
})

t.test(
  'e=redirect confirms a redirect, with no visitor cookie; an engine without confirmRedirect is reported',
  async (t) => {
    const { engine, visits } = fakeEngine()
    const confirmed: string[] = []
    const withConfirm: CollectorEngine = {
      ...engine,
      confirmRedirect: async (site_name) => void confirmed.push(site_name),
    }
    const { server } = app(withConfirm)
    const res = await request(server).post('/collect?e=redirect')
    t.equal(res.status, 204)
    t.equal(res.headers['set-cookie'], undefined, 'a confirmation is not a visitor')
    await settle()
    t.same(confirmed, ['mysite'])
    t.same(visits, [], 'and records no visit')
    const without = app(engine)
    t.equal((await request(without.server).get('/collect?e=redirect')).status, 204)
    await settle()
    t.match(without.errors, [{ message: /cannot confirm redirects/ }])
  },
)
