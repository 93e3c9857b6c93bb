/**
 * timedStore (lib/server/observability.ts) times every store call into
 * `mobisite_store_call_duration_seconds{operation}` and changes nothing
 * else: the same values and errors, synchronous answers stay synchronous,
 * private fields work, and an asynchronous call is timed until it settles.
 */
import { Registry } from 'prom-client'
import t from 'tap'
import { instrumentsFor } from '../../lib/http/metrics.js'
import { timedStore } from '../../lib/server/observability.js'

/** The sample's own name (`…_count`, `…_sum`, `…_bucket`): prom-client's type leaves it out. */
const nameOf = (v: object): string => (v as { metricName?: string }).metricName ?? ''

class FakeStore {
  #sites = new Map([['a', { site_name: 'a' }]])
  async getSite(name: string) {
    return this.#sites.get(name)
  }
  async failing(): Promise<never> {
    throw new Error('store down')
  }
  async slow(ms: number): Promise<string> {
    await new Promise((resolve) => setTimeout(resolve, ms))
    return 'late'
  }
  size(): number {
    return this.#sites.size
  }
  get count(): number {
    return this.#sites.size
  }
  label = 'fake'
}

/** Count and sum of each operation's observations. */
async function observed(registry: Registry): Promise<Record<string, { count: number; sum: number }>> {
  const family = await registry.getSingleMetric('mobisite_store_call_duration_seconds')?.get()
  const out: Record<string, { count: number; sum: number }> = {}
  for (const v of family?.values ?? []) {
    const op = String(v.labels.operation)
    out[op] ??= { count: 0, sum: 0 }
    if (nameOf(v).endsWith('_count')) out[op].count = v.value
    if (nameOf(v).endsWith('_sum')) out[op].sum = v.value
  }
  return out
}

t.test('answers, errors and timing pass through unchanged', async (t) => {
  const registry = new Registry()
  const instruments = instrumentsFor(registry)
  await instruments.ready
  const store = timedStore(new FakeStore(), instruments)

  t.same(await store.getSite('a'), { site_name: 'a' }, 'the value, read through a private field')
  t.equal(await store.getSite('b'), undefined)
  await t.rejects(store.failing(), { message: 'store down' }, 'the same error reaches the caller')
  const size = store.size()
  t.equal(size, 1, 'a synchronous method answers synchronously')
  t.equal(await store.slow(40), 'late')

  const seen = await observed(registry)
  t.equal(seen.getSite?.count, 2, 'each call observed once')
  t.equal(seen.failing?.count, 1, 'a rejected call is observed too')
  t.equal(seen.size?.count, 1)
  t.ok((seen.slow?.sum ?? 0) >= 0.035, `an asynchronous call is timed until it settles (${seen.slow?.sum} s)`)
})

t.test('a rejection the caller handles is not also an unhandled one', async (t) => {
  const registry = new Registry()
  const instruments = instrumentsFor(registry)
  await instruments.ready
  const store = timedStore(new FakeStore(), instruments)
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown) => unhandled.push(reason)
  process.on('unhandledRejection', onUnhandled)
  t.teardown(() => process.off('unhandledRejection', onUnhandled))
  await store.failing().catch(() => undefined)
  await new Promise((resolve) => setTimeout(resolve, 20))
  t.same(unhandled, [])
})

t.test('getters, fields and methods the store gains later reach the store itself', async (t) => {
  const registry = new Registry()
  const instruments = instrumentsFor(registry)
  await instruments.ready
  const inner = new FakeStore()
  const store = timedStore(inner, instruments)

  t.ok(store instanceof FakeStore, 'still an instance of its class')
  t.equal(store.count, 1, 'a getter reading a private field runs on the store')
  t.equal(store.label, 'fake', 'a field')
  store.label = 'renamed'
  t.equal(inner.label, 'renamed', 'a write lands on the store')
  ;(inner as FakeStore & { later?: () => number }).later = () => 7
  t.equal((store as FakeStore & { later: () => number }).later(), 7, 'a method added after wrapping answers')
  t.equal(store.getSite, store.getSite, 'a method is the same function on every read')

  const seen = await observed(registry)
  t.equal(seen.later?.count, 1, 'and is timed')
  t.equal(seen.count, undefined, 'a getter is not an operation')
})
