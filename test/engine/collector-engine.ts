/**
 * The collector on an engine made by createEngine, which it records into
 * without a promise per beacon (lib/engine/recording/beacon-recorder.ts): the same
 * events and the same errors as engine.recordVisit / recordActivity, one
 * store batch per turn, a delayed build on the first beacon, and a collector
 * whose pending count always comes back, whatever fails.
 */
import express from 'express'
import request from 'supertest'
import t, { type Test } from 'tap'
import { analyticsCollector, type CollectorOptions } from '../../lib/collector/index.js'
import { type ServiceError, createEngine } from '../../lib/index.js'
import { FakeClock, siteBody } from '../helpers/api.js'
import { CountingStore } from '../helpers/counting-store.js'

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1'

async function setup(t: Test, options: Partial<CollectorOptions> = {}) {
  const store = new CountingStore()
  const built: string[] = []
  const engine = createEngine({
    store,
    now: new FakeClock('2025-03-10T12:00:00').now,
    builder: async (site) => void built.push(site.site_name),
  })
  t.teardown(() => engine.close())
  await engine.addMasterAccount({ user: 'alice', password: 'alice-password-1', partner: true })
  const api = engine.as('alice')
  await api.createSite(siteBody('shop'))
  const errors: unknown[] = []
  const app = express()
  app.use(
    '/collect',
    analyticsCollector(engine, {
      siteName: (req) => req.path.slice(1),
      beaconsPerMinute: 0,
      onError: (error) => errors.push(error),
      ...options,
    }),
  )
  const beacon = (path: string, headers: Record<string, string> = {}) =>
    request(app).post(`/collect/${path}`).set(headers).expect(204)
  const traffic = async (site = 'shop') =>
    (await api.siteAnalytics(site, { from: '2025-03-10', to: '2025-03-10' })) as unknown as Record<string, number>
  return { store, engine, api, errors, built, beacon, traffic }
}

// First in this file: the process has not parsed a User-Agent yet, so ua-parser-js is still to load.
t.test('a flush right after the first recordings of the process waits for the User-Agent parser to load', async (t) => {
  const { engine, traffic } = await setup(t)
  const visit = engine.recordVisit({ site_name: 'shop', visitor_id: 'first', user_agent: IPHONE })
  await engine.flushRecordings()
  t.equal(engine.recordingStats().recorded, 1, 'recorded by the time the flush settles')
  await visit
  t.match(await traffic(), { VISITS: 1 })
})

t.test('visits and activities are recorded as engine.recordVisit records them', async (t) => {
  const { engine, api, beacon, traffic, errors } = await setup(t, {
    geo: () => ({ country: 'JP', region: '13' }),
  })
  await beacon('shop?pv=3', { 'user-agent': IPHONE })
  await beacon('shop', { 'user-agent': IPHONE })
  await beacon('shop?e=form_submit', { 'user-agent': IPHONE })
  await engine.flushRecordings()
  t.strictSame(errors, [])
  t.match(await traffic(), { VISITS: 2, PAGE_VIEWS: 4, UNIQUE_VISITORS: 2 })
  const bySystem = await api.siteAnalytics('shop', {
    from: '2025-03-10',
    to: '2025-03-10',
    result: 'activities',
    dimension: 'system',
  })
  t.match(bySystem, [{ dimension: { browser: 'Mobile Safari 17', os: 'iOS' }, data: { FORM_SUBMITS: 1 } }])
  const byGeo = await api.siteAnalytics('shop', { from: '2025-03-10', to: '2025-03-10', dimension: 'geo' })
  t.match(byGeo, [{ dimension: { country: 'JP', region: '13' }, data: { VISITS: 2 } }], 'the geo resolver')
})

t.test('an async geo resolver, and one that rejects', async (t) => {
  let fail = false
  const { engine, beacon, traffic, errors } = await setup(t, {
    geo: async () => {
      if (fail) throw new Error('geo down')
      return { country: 'DE' }
    },
  })
  await beacon('shop')
  fail = true
  await beacon('shop')
  await engine.flushRecordings()
  await new Promise((resolve) => setImmediate(resolve))
  t.match(await traffic(), { VISITS: 1 })
  t.match(errors, [{ message: 'geo down' }])
})

t.test('errors reach onError as engine.recordVisit rejects with them', async (t) => {
  const { store, engine, beacon, errors } = await setup(t)
  await beacon('nosuchsite')
  await beacon('shop?pv=0')
  await beacon('shop?e=bogus')
  await engine.flushRecordings()
  t.match(
    errors.map((e) => (e as ServiceError).error_code ?? (e as Error).message),
    ['ResourceNotExist', 'InvalidInput', /unknown event "bogus"/],
  )
  errors.length = 0
  store.failing = true
  await beacon('shop')
  await engine.flushRecordings().catch(() => {})
  t.match(errors, [{ error_code: 'ServiceUnavailable' }], 'a store outage')
  t.match(engine.recordingStats(), { failed: 1, pending: 0 })
})

t.test('beacons of one turn are one store batch', async (t) => {
  const { store, engine, beacon } = await setup(t)
  let open: () => void = () => {}
  store.gate = new Promise((resolve) => (open = resolve))
  // The first batch waits at the gate; the next two take the second slot and then queue together.
  await Promise.all(Array.from({ length: 12 }, (_, i) => beacon(`shop?pv=${i + 1}`)))
  open()
  store.gate = undefined
  await engine.flushRecordings()
  t.equal(
    store.batches.reduce((n, batch) => n + batch.length, 0),
    12,
    'every beacon recorded',
  )
  t.ok(store.batches.length < 12, `fewer batches than beacons (${store.batches.length})`)
})

t.test('the first beacon of a create_now=false site builds it, once', async (t) => {
  const { api, engine, beacon, built, traffic, errors } = await setup(t)
  await api.createSite({ ...siteBody('lazy'), create_now: 'false' })
  t.notOk(built.includes('lazy'), 'not built at creation')
  await beacon('lazy')
  await beacon('lazy')
  await engine.flushRecordings()
  for (let i = 0; i < 20 && !built.includes('lazy'); i++) await new Promise((resolve) => setTimeout(resolve, 5))
  t.equal(built.filter((site) => site === 'lazy').length, 1, 'built once')
  t.strictSame(errors, [])
  t.match(await traffic('lazy'), { VISITS: 2 })
})

t.test('an onError that throws: a process warning, and the other beacons and the pending bound unharmed', async (t) => {
  const warnings: Error[] = []
  const onWarning = (warning: Error) => warnings.push(warning)
  process.on('warning', onWarning)
  t.teardown(() => void process.off('warning', onWarning))
  const { engine, beacon, traffic } = await setup(t, {
    maxPendingRecordings: 2,
    onError: () => {
      throw new Error('logger broke')
    },
  })
  await Promise.all([beacon('nosuchsite'), beacon('shop')])
  await engine.flushRecordings()
  await new Promise((resolve) => setImmediate(resolve))
  t.match(warnings, [{ message: /onError threw.*logger broke/ }])
  for (let i = 0; i < 3; i++) {
    await beacon('shop')
    await engine.flushRecordings()
  }
  t.match(await traffic(), { VISITS: 4 }, 'nothing dropped: the failed beacons were counted settled')
  t.equal(engine.recordingStats().dropped, 0)
})
