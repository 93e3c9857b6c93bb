/**
 * The engine's recording path: every recording of one event-loop turn goes
 * to the store as one `recordEvents` batch (in-process callers and the
 * collector alike), each caller still gets its own outcome, the counters of
 * `engine.recordingStats()`, flushing, the cardinality cap through the API
 * (`maxDimensionValues`, "(other)"), and retention counted from the engine
 * clock (`analyticsRetentionDays`).
 */
import t, { type Test } from 'tap'
import { type Engine, type ServiceError, createEngine } from '../../lib/index.js'
import { MemoryStore } from '../../lib/store/memory/store.js'
import { FakeClock, rejectsWith, siteBody } from '../helpers/api.js'
import { CountingStore } from '../helpers/counting-store.js'

async function engineWith(t: Test, options: Parameters<typeof createEngine>[0] = {}) {
  const store = new CountingStore()
  const clock = new FakeClock('2025-03-10T12:00:00')
  const engine = createEngine({ store, now: clock.now, ...options })
  t.teardown(() => engine.close())
  await engine.addMasterAccount({ user: 'alice', password: 'alice-password-1', partner: true })
  const api = engine.as('alice')
  await api.createSite(siteBody('ingest'))
  return { store, clock, engine, api }
}

const visit = (engine: Engine, visitor_id: string, extra: Record<string, unknown> = {}) =>
  engine.recordVisit({ site_name: 'ingest', visitor_id, ...extra })

t.test('recordings of one turn are one store batch; each caller gets its own outcome', async (t) => {
  const { store, engine, api } = await engineWith(t)
  const before = store.batches.length
  const settled = await Promise.allSettled([
    visit(engine, 'v1'),
    engine.recordActivity({ site_name: 'ingest', kind: 'click_to_call' }),
    engine.recordVisit({ site_name: 'nosuch', visitor_id: 'v1' }),
    visit(engine, 'v2', { page_views: 4 }),
  ])
  t.equal(store.batches.length - before, 1, 'one recordEvents call for the four')
  t.equal(store.batches.at(-1)!.length, 4, 'holding every event, in order')
  t.strictSame(
    settled.map((s) => s.status),
    ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
    'a missing site still rejects its own caller only',
  )
  t.equal(((settled[2] as PromiseRejectedResult).reason as ServiceError).error_code, 'ResourceNotExist')
  t.strictSame(
    await api.siteAnalytics('ingest', { from: '2025-03-10', to: '2025-03-10' }),
    { UNIQUE_VISITORS: 2, VISITS: 2, PAGE_VIEWS: 5 },
    'recorded',
  )
  const stats = engine.recordingStats()
  t.match(stats, { accepted: 4, recorded: 4, failed: 0, pending: 0, batches: 1 }, 'counters')
  // Another turn is another batch.
  await visit(engine, 'v3')
  t.equal(store.batches.length - before, 2, 'the next turn sends its own batch')
})

t.test('while two batches wait for a slow store, later recordings go together in the next one', async (t) => {
  const { store, engine, api } = await engineWith(t)
  let open = () => {}
  store.gate = new Promise<void>((resolve) => {
    open = resolve
  })
  const before = store.batches.length
  const turn = () => new Promise((resolve) => setImmediate(resolve))
  const all: Promise<unknown>[] = []
  // Ten turns of recordings: the first two are sent at once, the other eight wait.
  for (let i = 0; i < 10; i++) {
    all.push(visit(engine, `slow-${i}`))
    await turn()
  }
  t.equal(store.batches.length - before, 2, 'two batches in flight, no more')
  t.equal(engine.recordingStats().pending, 10, 'all ten pending')
  store.gate = undefined
  open()
  await Promise.all(all)
  t.strictSame(
    store.batches.slice(before).map((b) => b.length),
    [1, 1, 8],
    'the eight that waited went as one batch (group commit)',
  )
  t.match(await api.siteAnalytics('ingest', { from: '2025-03-10', to: '2025-03-10' }), { VISITS: 10 })
  t.match(engine.recordingStats(), { pending: 0, recorded: 10 })
})

t.test('a batch that fails rejects each of its callers with ServiceUnavailable', async (t) => {
  const { store, engine } = await engineWith(t)
  store.failing = true
  const settled = await Promise.allSettled([visit(engine, 'a'), visit(engine, 'b')])
  for (const s of settled) {
    t.equal(s.status, 'rejected')
    t.equal(((s as PromiseRejectedResult).reason as ServiceError).error_code, 'ServiceUnavailable')
  }
  t.match(engine.recordingStats(), { accepted: 2, failed: 2, pending: 0 })
  store.failing = false
  await rejectsWith(t, visit(engine, ''), 'InvalidInput', 'validation still happens before queuing')
})

t.test('flushRecordings and close send what is queued', async (t) => {
  const { engine, api } = await engineWith(t)
  const queued = [visit(engine, 'a'), visit(engine, 'b')]
  t.equal(engine.recordingStats().pending, 2, 'pending until the turn ends')
  await engine.flushRecordings()
  t.equal(engine.recordingStats().pending, 0, 'flushed')
  await Promise.all(queued)
  t.match(await api.siteAnalytics('ingest', { from: '2025-03-10', to: '2025-03-10' }), { VISITS: 2 })

  const store = new MemoryStore()
  const other = createEngine({ store, now: () => new Date('2025-03-10T12:00:00Z') })
  await other.addMasterAccount({ user: 'alice', password: 'alice-password-1' })
  await other.as('alice').createSite(siteBody('drained'))
  const last = other.recordVisit({ site_name: 'drained', visitor_id: 'x' })
  await other.close()
  await last
  t.equal(other.recordingStats().recorded, 1, 'close() drains the queue before closing the store')
})

t.test('maxDimensionValues: later values are "(other)" in the API', async (t) => {
  const { engine, api } = await engineWith(t, { maxDimensionValues: 2 })
  for (const country of ['FR', 'DE', 'JP', 'BR']) await visit(engine, `v-${country}`, { country })
  const rows = await api.siteAnalytics('ingest', { from: '2025-03-10', to: '2025-03-10', dimension: 'geo' })
  t.strictSame(
    (rows as { dimension: { country: string; region: string }; data: { VISITS: number } }[]).map((r) => [
      r.dimension.country,
      r.dimension.region,
      r.data.VISITS,
    ]),
    [
      ['(other)', '(other)', 2],
      ['DE', 'Unknown', 1],
      ['FR', 'Unknown', 1],
    ],
    'two values kept, the rest folded',
  )
  t.throws(() => createEngine({ maxDimensionValues: 0 }), TypeError, 'the option is checked')
  t.throws(() => createEngine({ analyticsRetentionDays: 1.5 }), TypeError)
})

t.test('analyticsRetentionDays: days before the window read as empty, counted from the engine clock', async (t) => {
  const { engine, api, clock } = await engineWith(t, { analyticsRetentionDays: 3 })
  await visit(engine, 'a')
  const period = { from: '2025-03-01', to: '2025-03-31' }
  t.match(await api.siteAnalytics('ingest', period), { VISITS: 1 }, 'kept today')
  clock.set('2025-03-12T12:00:00')
  t.match(await api.siteAnalytics('ingest', period), { VISITS: 1 }, 'still inside three days')
  clock.set('2025-03-13T00:00:00')
  t.match(await api.siteAnalytics('ingest', period), { VISITS: 0 }, 'gone on the fourth day')
  t.strictSame(await api.sitesWithMostTraffic(period), [], 'and from the ranking')
  await visit(engine, 'b', { at: new Date('2025-03-01T00:00:00Z') })
  await visit(engine, 'c')
  t.match(await api.siteAnalytics('ingest', period), { VISITS: 1 }, 'an event older than the window is not kept')
})
