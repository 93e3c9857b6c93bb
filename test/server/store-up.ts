/**
 * Issue 37, metrics: `mobisite_store_up` is 1 while the store answers and 0
 * while it does not, read at each scrape, and a store that hangs cannot make
 * a scrape hang (the readiness bound, 1 s, applies). A memory store made to
 * fail or hang, then a Redis outage (an own redis-server, killed and started
 * again).
 */
import t from 'tap'
import { createEngine } from '../../lib/engine/index.js'
import { startServer } from '../../lib/server/index.js'
import { READY_TIMEOUT_MS } from '../../lib/server/observability.js'
import { MemoryStore } from '../../lib/store/memory/store.js'
import { parseExposition, scrape } from '../helpers/prom-text.js'
import { freePort, OwnRedis, ownRedisOrSkip } from '../helpers/redis.js'

type Mode = 'up' | 'failing' | 'hanging'

/** A MemoryStore whose every call fails or never answers while `mode` says so. */
function faultyStore(): { store: MemoryStore; mode: { now: Mode } } {
  const mode = { now: 'up' as Mode }
  const store = new Proxy(new MemoryStore(), {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        if (mode.now === 'failing') return Promise.reject(new Error('store down (test)'))
        if (mode.now === 'hanging') return new Promise(() => {})
        return (value as (...a: unknown[]) => unknown).apply(target, args)
      }
    },
  })
  return { store, mode }
}

/** The value of `mobisite_store_up` in one scrape, and how long the scrape took. */
async function storeUp(url: string): Promise<{ value: number | undefined; ms: number }> {
  const started = Date.now()
  const family = parseExposition(await scrape(url)).get('mobisite_store_up')
  return { value: family?.type === 'gauge' ? family.samples[0]?.value : undefined, ms: Date.now() - started }
}

t.test(
  'mobisite_store_up follows a memory store: 1, 0 while failing, 0 within the bound while hanging, 1',
  async (t) => {
    const { store, mode } = faultyStore()
    const server = await startServer({ engine: createEngine({ store }), metrics: true })
    t.teardown(() => server.close())
    t.equal((await storeUp(server.url)).value, 1, 'up')
    mode.now = 'failing'
    t.equal((await storeUp(server.url)).value, 0, 'failing')
    t.equal((await fetch(`${server.url}/readyz`)).status, 503, 'readiness agrees')
    mode.now = 'hanging'
    const hanging = await storeUp(server.url)
    t.equal(hanging.value, 0, 'hanging')
    t.ok(hanging.ms < READY_TIMEOUT_MS + 1_000, `the scrape answered in ${hanging.ms} ms, not never`)
    mode.now = 'up'
    t.equal((await storeUp(server.url)).value, 1, 'up again')
  },
)

t.test('mobisite_store_up through a Redis outage: 1, 0 while down, 1 once back', async (t) => {
  if (!ownRedisOrSkip(t, 'mobisite_store_up through a Redis outage')) return
  const { RedisStore } = await import('../../lib/redis.js')
  const redis = new OwnRedis(await freePort())
  await redis.start()
  const engine = createEngine({ store: new RedisStore({ url: redis.url, prefix: 'metrics-store-up:' }) })
  const server = await startServer({ engine, metrics: true })
  t.teardown(async () => {
    await server.close()
    await engine.close().catch(() => undefined)
    await redis.stop()
  })
  t.equal((await storeUp(server.url)).value, 1, 'up while Redis answers')
  await redis.stop()
  const down = await storeUp(server.url)
  t.equal(down.value, 0, 'down')
  t.ok(down.ms < READY_TIMEOUT_MS + 1_000, `the scrape answered in ${down.ms} ms`)
  await redis.start()
  let up = await storeUp(server.url)
  for (let i = 0; i < 100 && up.value !== 1; i++) {
    await new Promise((r) => setTimeout(r, 100))
    up = await storeUp(server.url)
  }
  t.equal(up.value, 1, 'up again once Redis is back')
})
