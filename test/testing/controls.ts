/**
 * The test-double controls in process: createControls for an engine without
 * a server (one object per engine), the same operations and errors as over
 * HTTP, the clock and builder layered over an engine's own, apiHooks wired
 * into an app's own apiRouter, a bounded journal, and randomSeed.
 */
import express from 'express'
import request from 'supertest'
import t, { type Test } from 'tap'
import { ServiceError, analyticsCollector, apiRouter, createEngine, startServer } from '../../lib/index.js'
import { createControls } from '../../lib/testing/index.js'
import { FakeClock, RecordingBuilder } from '../helpers/api.js'
import { ALICE, STORES, basic } from '../helpers/testing.js'

const site = (site_name: string, extra: object = {}) => ({
  site_data: { site_name, original_site_url: `https://${site_name}.example` },
  ...extra,
})

async function rejectsWith(
  t: Test,
  work: Promise<unknown> | (() => unknown),
  code: string,
  message: RegExp,
): Promise<void> {
  const error = await (typeof work === 'function' ? Promise.resolve().then(work) : work).then(
    () => undefined,
    (e: unknown) => e,
  )
  t.ok(error instanceof ServiceError, `a ServiceError (${String(error)})`)
  t.equal((error as ServiceError).error_code, code)
  t.match((error as ServiceError).message, message)
}

for (const kind of STORES) {
  t.test(`${kind.name}: controls without a server`, async (t) => {
    const clock = new FakeClock('2024-02-03T04:05:06')
    const builder = new RecordingBuilder()
    const engine = createEngine({ store: kind.make(t), now: clock.now, builder: builder.build })
    t.teardown(() => engine.close())
    await engine.addMasterAccount(ALICE)
    const controls = createControls(engine)
    t.equal(createControls(engine), controls, 'one controls object per engine')
    const api = engine.as('alice')

    t.same(controls.clock(), { now: '2024-02-03T04:05:06', frozen: false }, 'real time is the engine’s own now')
    clock.advance(60)
    t.same(
      controls.advanceClock({ seconds: 30 }),
      { now: '2024-02-03T04:06:36', frozen: false },
      'advance layers over it',
    )
    t.same(controls.setClock({ now: '2030-01-01T00:00:00' }), { now: '2030-01-01T00:00:00', frozen: true })
    t.same(
      controls.setClock({ now: new Date(Date.UTC(2030, 0, 2)) }).now,
      '2030-01-02T00:00:00',
      'a Date works in process',
    )
    t.equal(engine.now().toISOString(), '2030-01-02T00:00:00.000Z', 'the engine reads the control')
    t.same(controls.resetClock(), { now: '2024-02-03T04:06:06', frozen: false }, 'back to the engine’s own clock')

    await api.createSite(site('ownbuilder'))
    t.same(builder.calls, ['ownbuilder'], 'without an override the engine’s own builder runs')
    controls.setBuilder({ outcome: 'FAILED_CONTENT_TOO_BIG', times: 2 })
    t.same(controls.builder(), { outcome: 'FAILED_CONTENT_TOO_BIG', times: 2 })
    await rejectsWith(t, api.createSite(site('fails1')), 'InvalidInput', /FAILED_CONTENT_TOO_BIG/)
    await api.createSite(site('fails2', { create_now: 'async' }))
    await controls.settleBuilds()
    t.equal((await api.getSite('fails2')).creation_status, 'FAILED_CONTENT_TOO_BIG')
    t.equal(controls.builder(), undefined, 'after its times the default is back')
    await api.createSite(site('fine'))
    t.same(builder.calls, ['ownbuilder', 'fine'], 'the override never called the engine’s builder')

    await rejectsWith(t, () => controls.setClock({ now: '2024-02-30' }), 'InvalidInput', /now is not a real date/)
    await rejectsWith(t, () => controls.advanceClock({}), 'InvalidInput', /seconds is required/)
    await rejectsWith(t, () => controls.setBuilder({ outcome: 'ok', times: 0 }), 'InvalidInput', /times/)
    await rejectsWith(t, () => controls.addFault({ route: '/x', drop: true }), 'InvalidInput', /not a path of the API/)
    await rejectsWith(t, () => controls.deleteFault('99'), 'NotFound', /no fault with id 99/)
    await rejectsWith(t, () => controls.requests({ limit: 0 }), 'InvalidInput', /limit/)
    await rejectsWith(
      t,
      controls.seed({ sites: [{ owner: 'alice' }] }),
      'InvalidInput',
      /sites\[0\]: site_name is required/,
    )
    await rejectsWith(
      t,
      controls.recordVisits([
        { site_name: 'fine', visitor_id: 'a' },
        { site_name: 'nope', visitor_id: 'b' },
      ]),
      'InvalidInput',
      /\[1\]: site nope does not exist/,
    )

    controls.setClock({ now: '2024-03-01T12:00:00' })
    await controls.recordVisits([
      { site_name: 'fine', visitor_id: 'a', at: new Date(Date.UTC(2024, 1, 29)) },
      { site_name: 'fine', visitor_id: 'b' },
    ])
    await controls.recordActivities({ site_name: 'fine', kind: 'click_to_email' })
    t.same(await api.siteAnalytics('fine', { from: '2024-02-01', to: '2024-03-01' }), {
      UNIQUE_VISITORS: 2,
      VISITS: 2,
      PAGE_VIEWS: 2,
    })
    t.same(await controls.billing('alice'), { charges: [], subscriptions: [] })
    t.same((await controls.health()).status, 'ok')

    const snap = await controls.snapshot()
    t.same(
      snap.sites?.map((s) => s.site_name),
      ['fails2', 'fine', 'ownbuilder'],
    )
    await controls.reset()
    t.same(controls.clock().frozen, false, 'reset: real time')
    await rejectsWith(t, api.getSite('fine'), 'ResourceNotExist', /fine/)
    t.ok(await engine.authenticate('alice', ALICE.password), 'the start-up master stays')
    await controls.seed(snap)
    t.equal((await api.getSite('fine')).site_name, 'fine', 'seeded back')
  })
}

t.test('apiHooks in an app of one’s own; a bounded journal', async (t) => {
  const engine = createEngine()
  t.teardown(() => engine.close())
  await engine.addMasterAccount(ALICE)
  const controls = createControls(engine, { journalSize: 3 })
  const app = express()
  app.use('/v1', apiRouter(engine, { hooks: controls.apiHooks }))
  const http = request(app)
  const auth = basic(ALICE.user, ALICE.password)
  for (const name of ['aaaa', 'bbbb', 'cccc', 'dddd', 'eeee'])
    await http.get(`/v1/sites/${name}`).set('authorization', auth).expect(400)
  t.same(
    controls.requests().requests.map((r) => [r.id, r.path]),
    [
      [3, '/sites/cccc'],
      [4, '/sites/dddd'],
      [5, '/sites/eeee'],
    ],
    'the oldest go first',
  )
  const { id } = controls.addFault({
    method: 'get',
    route: '/sites/{site_name}',
    site_name: 'ffff',
    error: { status: 409, error_code: 'Busy' },
    times: 1,
  })
  t.same(controls.faults().faults, [
    {
      id,
      method: 'GET',
      route: '/sites/{site_name}',
      site_name: 'ffff',
      error: { status: 409, error_code: 'Busy' },
      times: 1,
    },
  ])
  const res = await http.get('/v1/sites/ffff').set('authorization', auth).expect(409)
  t.same(res.body, { error_code: 'Busy', message: 'injected fault on GET /sites/{site_name}' })
  controls.clearRequests()
  t.same(controls.requests(), { requests: [] })
})

t.test('randomSeed: generated site names and visitor ids repeat from run to run', async (t) => {
  async function run(seed: string | number | undefined): Promise<string[]> {
    const engine = createEngine(seed === undefined ? {} : { randomSeed: seed })
    await engine.addMasterAccount(ALICE)
    const names: string[] = []
    for (let i = 0; i < 3; i++)
      names.push(
        (await engine.as('alice').createSite({ site_data: { original_site_url: 'https://www.same.example' } }))
          .site_name,
      )
    const app = express()
    app.use('/c', analyticsCollector(engine, { siteName: names[0]! }))
    for (let i = 0; i < 2; i++)
      names.push(/msvid=([^;]+)/.exec(String((await request(app).get('/c')).headers['set-cookie']))![1]!)
    await engine.close()
    return names
  }
  const first = await run('suite-42')
  t.equal(first[0], 'sameexample')
  t.match(first[1], /^sameexample-[a-z0-9]{4}$/)
  t.same(await run('suite-42'), first, 'the same seed, the same names and visitor ids')
  t.not((await run('other'))[1], first[1], 'another seed, other names')
  t.not((await run(undefined))[1], first[1], 'no seed: random')
  const server = await startServer({ engine: createEngine({ randomSeed: 7 }) })
  t.teardown(() => server.close())
  t.ok(server.controls, 'startServer without admin still offers controls in process')
})
