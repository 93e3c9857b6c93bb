/**
 * Where mobileRedirect gets its agents (engine live, remote service), the
 * last-good fallback, and redirect confirmation on the engine.
 */
import express from 'express'
import request from 'supertest'
import t, { type Test } from 'tap'
import { createEngine } from '../../lib/engine/index.js'
import { DEFAULT_AGENTS } from '../../lib/agents/default.js'
import { AgentsSourceError } from '../../lib/agents/matcher.js'
import type { AgentsEngine } from '../../lib/redirect/providers.js'
import { fetchAgents } from '../../lib/redirect/remote.js'
import { listen, notPhones, phones, redirectApp } from '../helpers/redirect-app.js'

const IPHONE = phones['iPhone Safari'] as string
const IPAD = notPhones['iPad Safari'] as string
const DESKTOP = notPhones['Ubuntu Firefox'] as string
const MOBILE = 'https://m.example.com'

/** Lets pending promise callbacks run (a bounded number of turns, no timers). */
async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve))
}

/** A stand-in engine whose agents and confirmRedirect the test controls. */
function fakeEngine() {
  const calls: Array<{ site_name: string; at: Date | undefined }> = []
  const engine = {
    agents: '.*iPhone.*',
    getAgentsError: undefined as Error | undefined,
    confirm: (): Promise<void> => Promise.resolve(),
    getAgents(): string {
      if (engine.getAgentsError) throw engine.getAgentsError
      return engine.agents
    },
    confirmRedirect(site_name: string, at?: Date): Promise<void> {
      calls.push({ site_name, at })
      return engine.confirm()
    },
  }
  return { engine: engine as typeof engine & AgentsEngine, calls }
}

t.test(
  'engine (live): the verdict follows getAgents(); a bad source keeps the last good and is reported once',
  async (t) => {
    const { engine } = fakeEngine()
    const errors: Error[] = []
    const { app, mw } = redirectApp({ mobileUrl: MOBILE, engine, onError: (e) => errors.push(e) })
    t.equal((await request(app).get('/').set('User-Agent', IPHONE)).status, 302)
    t.equal((await request(app).get('/').set('User-Agent', IPAD)).status, 200)
    engine.agents = '.*iPad.*'
    t.equal(
      (await request(app).get('/').set('User-Agent', IPAD)).status,
      302,
      'the new source applies to the next request',
    )
    t.equal((await request(app).get('/').set('User-Agent', IPHONE)).status, 200)
    engine.agents = '.*iPhone.*|.*(Android.*'
    for (let i = 0; i < 3; i++)
      t.equal((await request(app).get('/').set('User-Agent', IPAD)).status, 302, 'still the last good source')
    t.equal(errors.length, 1, 'reported once, not on every request')
    t.ok(errors[0] instanceof AgentsSourceError)
    t.equal((errors[0] as AgentsSourceError).reason, 'invalid')
    engine.agents = '.*(a|aa)*b.*'
    t.equal((await request(app).get('/').set('User-Agent', IPAD)).status, 302)
    t.equal((errors[1] as AgentsSourceError).reason, 'not-linear', 'a source outside the linear form is refused too')
    engine.getAgentsError = new Error('engine broken')
    t.equal(
      (await request(app).get('/').set('User-Agent', IPAD)).status,
      302,
      'a throwing getAgents keeps the last good',
    )
    await request(app).get('/').set('User-Agent', IPAD)
    t.match(
      errors.slice(2).map((e) => e.message),
      ['engine broken'],
    )
    engine.getAgentsError = undefined
    engine.agents = '.*iPhone.*'
    t.equal((await request(app).get('/').set('User-Agent', IPHONE)).status, 302, 'recovers when the engine does')
    t.equal(mw.matcher.source, '.*iPhone.*')
  },
)

t.test('engine: an invalid first source falls back to DEFAULT_AGENTS', async (t) => {
  const { engine } = fakeEngine()
  engine.agents = '('
  const errors: Error[] = []
  const { mw } = redirectApp({ mobileUrl: MOBILE, engine, onError: (e) => errors.push(e) })
  t.equal(mw.matcher.source, DEFAULT_AGENTS)
  t.equal(errors.length, 1)
})

t.test('confirmRedirect: called on redirects only, not awaited, at most once per site per second', async (t) => {
  const { engine, calls } = fakeEngine()
  let now = 1_000_000
  const opts = { mobileUrl: MOBILE, engine, siteName: 'examplecom', now: () => now }
  const { app } = redirectApp(opts)
  await request(app).get('/').set('User-Agent', DESKTOP)
  await request(app).get('/?no_redirect=1').set('User-Agent', IPHONE)
  await request(app).get('/').set('User-Agent', IPHONE).set('Host', 'm.example.com')
  t.equal(calls.length, 0, 'no call without a redirect')
  for (let i = 0; i < 5; i++) {
    t.equal((await request(app).get('/').set('User-Agent', IPHONE)).status, 302)
    now += 100
  }
  t.equal(calls.length, 1, 'five redirects within 0.5 s: one call')
  t.same(calls[0], { site_name: 'examplecom', at: undefined }, 'the engine stamps its own clock')
  now += 600
  await request(app).get('/').set('User-Agent', IPHONE)
  t.equal(calls.length, 2, 'one second later: another call')
  const second = redirectApp(opts).app
  await request(second).get('/').set('User-Agent', IPHONE)
  t.equal(calls.length, 2, 'a second middleware on the same engine and site shares the limit')
  const otherSite = redirectApp({ ...opts, siteName: 'othersite' }).app
  await request(otherSite).get('/').set('User-Agent', IPHONE)
  t.same(
    calls.map((c) => c.site_name),
    ['examplecom', 'examplecom', 'othersite'],
    'the limit is per site',
  )
})

t.test('siteName, and its deprecated spelling site_name, name the site whose redirects are confirmed', async (t) => {
  for (const [label, options] of [
    ['siteName', { siteName: 'newspelling' }],
    ['site_name (deprecated)', { site_name: 'oldspelling' }],
    ['both: siteName wins', { siteName: 'newspelling', site_name: 'oldspelling' }],
  ] as const) {
    const { engine, calls } = fakeEngine()
    const { app } = redirectApp({ mobileUrl: MOBILE, engine, ...options })
    t.equal((await request(app).get('/').set('User-Agent', IPHONE)).status, 302, label)
    t.same(
      calls.map((c) => c.site_name),
      ['siteName' in options ? 'newspelling' : 'oldspelling'],
      `${label}: confirmed`,
    )
  }
  const { engine, calls } = fakeEngine()
  await request(redirectApp({ mobileUrl: MOBILE, engine }).app)
    .get('/')
    .set('User-Agent', IPHONE)
  t.same(calls, [], 'neither: nothing confirmed')
})

t.test('confirmRedirect: a hanging, rejecting or throwing engine never delays or breaks the redirect', async (t) => {
  const { engine } = fakeEngine()
  const errors: Error[] = []
  let now = 0
  const { app } = redirectApp({
    mobileUrl: MOBILE,
    engine,
    siteName: 'examplecom',
    now: () => now,
    onError: (e) => errors.push(e),
  })
  engine.confirm = () => new Promise<void>(() => undefined)
  t.equal((await request(app).get('/').set('User-Agent', IPHONE)).status, 302, 'a promise that never settles')
  now += 1000
  engine.confirm = () => Promise.reject(new Error('store down'))
  t.equal((await request(app).get('/').set('User-Agent', IPHONE)).status, 302)
  now += 1000
  engine.confirm = () => {
    throw new Error('sync throw')
  }
  t.equal((await request(app).get('/').set('User-Agent', IPHONE)).status, 302)
  await settle()
  t.same(errors.map((e) => e.message).sort(), ['store down', 'sync throw'])
})

t.test('a real engine: live agents and last_confirmed_redirected_date', async (t) => {
  const clock = Date.parse('2025-03-10T12:00:00Z')
  const engine = createEngine({ now: () => new Date(clock) })
  t.teardown(() => engine.close())
  await engine.addMasterAccount({ user: 'alice', password: 'pw' })
  const { site_name } = await engine.as('alice').createSite({ site_data: { original_site_url: 'https://example.com' } })
  t.equal((await engine.as('alice').getSite(site_name)).last_confirmed_redirected_date, undefined)
  const { app } = redirectApp({ mobileUrl: MOBILE, engine, siteName: site_name })
  t.equal((await request(app).get('/').set('User-Agent', IPHONE)).status, 302)
  let site = await engine.as('alice').getSite(site_name)
  for (let i = 0; i < 50 && site.last_confirmed_redirected_date === undefined; i++) {
    await settle()
    site = await engine.as('alice').getSite(site_name)
  }
  t.equal(site.last_confirmed_redirected_date, '2025-03-10T12:00:00')
  engine.setAgents('.*iPad.*')
  t.equal((await request(app).get('/').set('User-Agent', IPAD)).status, 302, 'engine.setAgents applies live')
  t.equal((await request(app).get('/').set('User-Agent', IPHONE)).status, 200)
})

/** A mobisite-like service answering GET /api/agents with Basic auth, in modes the test picks. */
async function agentsService(t: Test) {
  const state = { mode: 'ok' as 'ok' | '500' | 'hang' | 'not-json' | 'number' | 'huge', source: '.*iPad.*', hits: 0 }
  const app = express()
  app.get('/api/agents', (req, res) => {
    state.hits++
    const expected = `Basic ${Buffer.from('alice:p:w', 'utf8').toString('base64')}`
    if (req.headers.authorization !== expected) {
      res
        .status(401)
        .set('WWW-Authenticate', 'Basic realm="mobisite"')
        .json({ error_code: 'Unauthorized', message: 'no' })
      return
    }
    if (state.mode === 'hang') return
    if (state.mode === '500') res.status(500).json({ error_code: 'InternalError', message: 'boom' })
    else if (state.mode === 'not-json') res.type('text').send('.*iPhone.*')
    else if (state.mode === 'number') res.json(42)
    else if (state.mode === 'huge') res.json('x'.repeat(2 << 20))
    else res.json(state.source)
  })
  const server = await listen(app)
  t.teardown(server.close)
  return { state, baseUrl: `http://127.0.0.1:${server.port}/api` }
}

t.test('remote: fetches GET /agents with Basic auth; failures keep the last good matcher and say why', async (t) => {
  const { state, baseUrl } = await agentsService(t)
  const errors: Error[] = []
  const { app, mw } = redirectApp({
    mobileUrl: MOBILE,
    remote: { baseUrl: `${baseUrl}/`, user: 'alice', password: 'p:w', timeout: 300, refreshInterval: 3_600_000 },
    onError: (e) => errors.push(e),
  })
  t.teardown(() => mw.close())
  await mw.refresh()
  t.equal(mw.matcher.source, '.*iPad.*', 'the served source is in use')
  t.equal((await request(app).get('/').set('User-Agent', IPAD)).status, 302)
  t.equal(errors.length, 0)
  const reasons: string[] = []
  for (const mode of ['500', 'hang', 'not-json', 'number', 'huge'] as const) {
    state.mode = mode
    await mw.refresh()
    t.equal(mw.matcher.source, '.*iPad.*', `${mode}: still the last good source`)
    const err = errors.at(-1) as AgentsSourceError
    t.equal(err.reason, 'fetch', mode)
    reasons.push(err.message.replace(/^GET \S+: /, ''))
  }
  t.match(reasons, ['HTTP 500', 'timed out', 'the body is not JSON', /JSON number/, /exceeds|bytes/])
  state.mode = 'ok'
  state.source = '.*iPhone.*|.*(iPad.*'
  await mw.refresh()
  t.equal((errors.at(-1) as AgentsSourceError).reason, 'invalid', 'a served source that does not compile')
  t.equal(mw.matcher.source, '.*iPad.*')
  state.source = '.*iPhone.*'
  await mw.refresh()
  t.equal(mw.matcher.source, '.*iPhone.*', 'recovers on the next good fetch')
  t.equal((await request(app).get('/').set('User-Agent', IPAD)).status, 200)
})

t.test('remote: DEFAULT_AGENTS until the first success; wrong credentials are reported', async (t) => {
  const { baseUrl } = await agentsService(t)
  const errors: Error[] = []
  const { mw } = redirectApp({
    mobileUrl: MOBILE,
    remote: { baseUrl, user: 'alice', password: 'wrong' },
    onError: (e) => errors.push(e),
  })
  t.teardown(() => mw.close())
  t.equal(mw.matcher.source, DEFAULT_AGENTS)
  await mw.refresh()
  t.equal(mw.matcher.source, DEFAULT_AGENTS)
  t.match(errors[0]?.message, /HTTP 401/)
})

t.test('remote: refreshes on its interval, without overlapping fetches', async (t) => {
  const { state, baseUrl } = await agentsService(t)
  const { mw } = redirectApp({
    mobileUrl: MOBILE,
    remote: { baseUrl, user: 'alice', password: 'p:w', refreshInterval: 20 },
  })
  t.teardown(() => mw.close())
  const a = mw.refresh()
  const b = mw.refresh()
  t.equal(a, b, 'a refresh in flight is shared')
  await a
  for (let i = 0; i < 500 && state.hits < 4; i++) await new Promise((resolve) => setTimeout(resolve, 10))
  t.ok(state.hits >= 4, `the timer fetched again (${state.hits} fetches)`)
  mw.close()
  await mw.refresh()
  const after = state.hits
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(state.hits, after, 'close() stops the timer')
})

t.test('remote: a refused source is compiled and reported once, until it changes', async (t) => {
  const { state, baseUrl } = await agentsService(t)
  const errors: Error[] = []
  const { app, mw } = redirectApp({
    mobileUrl: MOBILE,
    remote: { baseUrl, user: 'alice', password: 'p:w', refreshInterval: 3_600_000 },
    onError: (e) => errors.push(e),
  })
  t.teardown(() => mw.close())
  await mw.refresh()
  state.source = '.*iPhone.*|.*Android.*Mobile.*|(\\d+\\.?)+z'
  await mw.refresh()
  t.equal(errors.length, 1)
  t.equal((errors[0] as AgentsSourceError).reason, 'not-linear', "issue 23's slow source is refused")
  t.equal((await request(app).get('/').set('User-Agent', IPAD)).status, 302, 'the last good source still decides')
  for (let i = 0; i < 5; i++) await mw.refresh()
  t.equal(errors.length, 1, 'served five more times: reported once')
  t.equal(mw.matcher.source, '.*iPad.*', 'the last good source stays')
  state.source = '.*(Android.*'
  await mw.refresh()
  t.equal(errors.length, 2, 'a different refused source is reported')
  state.source = '.*iPhone.*'
  await mw.refresh()
  t.equal(mw.matcher.source, '.*iPhone.*')
  state.source = '.*(Android.*'
  await mw.refresh()
  t.equal(errors.length, 3, 'refused again after a good one in between: it changed, so it is judged again')
})

t.test('remote: failed fetches back off; a success restores the interval', async (t) => {
  const { state, baseUrl } = await agentsService(t)
  state.mode = '500'
  const { mw } = redirectApp({
    mobileUrl: MOBILE,
    remote: { baseUrl, user: 'alice', password: 'p:w', refreshInterval: 30 },
    onError: () => {},
  })
  t.teardown(() => mw.close())
  await new Promise((resolve) => setTimeout(resolve, 700))
  // Without back-off about 23 fetches; doubling waits (30, 60, 120, 240 ms ...) allow at most 6.
  t.ok(state.hits <= 7, `${state.hits} fetches in 0.7 s while failing`)
  t.ok(state.hits >= 2, 'but it does retry')
  state.mode = 'ok'
  const before = state.hits
  for (let i = 0; i < 400 && state.hits < before + 6; i++) await new Promise((resolve) => setTimeout(resolve, 10))
  t.ok(state.hits >= before + 6, 'after a success, fetches come at the interval again')
  t.equal(mw.matcher.source, '.*iPad.*')
})

t.test('fetchAgents: unreachable service', async (t) => {
  const err = await fetchAgents({ baseUrl: 'http://127.0.0.1:1', user: 'a', password: 'b', timeout: 2000 }).catch(
    (e: unknown) => e,
  )
  t.ok(err instanceof AgentsSourceError)
  t.equal((err as AgentsSourceError).reason, 'fetch')
})
