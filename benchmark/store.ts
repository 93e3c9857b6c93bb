/**
 * RedisStore next to MemoryStore: operations per second and Redis round trips
 * per operation, first for store calls, then for HTTP API calls through
 * startServer. Round trips are counted by wrapping the RedisStore client's
 * sendCommand (each store call is one command: a Lua script or a plain read).
 *
 *   REDIS_URL=redis://127.0.0.1:6379 npx tsx benchmark/store.ts
 *
 * Writes only under a random `mobisite-bench:<hex>:` prefix and deletes it at the end.
 */
import { randomBytes } from 'node:crypto'
import { createEngine, startServer } from '../lib/index.js'
import type { SiteRecord, Store } from '../lib/store/contract/index.js'
import { MemoryStore } from '../lib/store/memory/store.js'
import { RedisStore } from '../lib/store/redis/store.js'
import { callsPerSecond } from './lib/calls-per-second.js'
import { deleteRedisPrefixes } from './lib/cleanup.js'
import { figure } from './lib/report.js'

if (!process.env.REDIS_URL) {
  console.log('REDIS_URL not set: RedisStore benchmark skipped')
  process.exit(0)
}
const URL_ = process.env.REDIS_URL
const STORE_OPS = Number(process.env.BENCH_STORE_OPS ?? 4000)
const HTTP_OPS = Number(process.env.BENCH_HTTP_OPS ?? 1000)
const CONCURRENCY = 32
const DAY = 86_400_000
const T0 = Date.UTC(2024, 0, 1)
const days = Array.from({ length: 30 }, (_, i) => new Date(T0 + i * DAY).toISOString().slice(0, 10))
const prefixes: string[] = []

/** Counts the commands a RedisStore sends (one per round trip: a call never sends before its previous reply). */
function counter(store: Store): { reset(): void; readonly count: number } {
  let count = 0
  if (store instanceof RedisStore) {
    const client = store.client as unknown as { sendCommand: (...a: unknown[]) => unknown }
    const send = client.sendCommand.bind(client)
    client.sendCommand = (...a: unknown[]) => {
      count++
      return send(...a)
    }
  }
  return {
    reset: () => void (count = 0),
    get count() {
      return count
    },
  }
}

/** Ops per second of `op(i)` for i < n with `CONCURRENCY` calls in flight. */
const run = (n: number, op: (i: number) => Promise<unknown>): Promise<number> => callsPerSecond(n, op, CONCURRENCY)

interface Row {
  name: string
  memory: number
  redis: number
  trips: number
}

function site(i: number, owner = 'bench'): SiteRecord {
  const url = `https://www.example.com/${i}`
  return {
    site_name: `site-${i}`,
    owner,
    original_site_url: url,
    auto_sync_cache_ttl: 'SHORT',
    initial: { original_site_url: url, auto_sync_cache_ttl: 'SHORT' },
    created_at: T0 + i,
    modified_at: T0 + i,
    build: 'built',
  }
}

/** The store-level operations, each run `STORE_OPS` times. */
const storeOps: [string, (s: Store, i: number) => Promise<unknown>][] = [
  ['createSite', (s, i) => s.createSite(site(i))],
  ['getSite', (s, i) => s.getSite(`site-${i}`)],
  [
    'updateSite',
    (s, i) => s.updateSite('bench', `site-${i}`, { site_domain: 'm.example.com', modified_at: T0 + DAY + i }),
  ],
  ['publishSite (first: charge)', (s, i) => s.publishSite('bench', `site-${i}`, T0 + 2 * DAY + i, true)],
  ['listSites (50 of them)', (s, i) => s.listSites('bench', 'created', T0 + (i % 100) * 10, T0 + (i % 100) * 10 + 49)],
  ['incrementWithinLimit', (s) => s.incrementWithinLimit('daily', 1e9, T0 + 365 * DAY)],
  [
    'recordVisit',
    (s, i) =>
      s.recordVisit({
        site_name: `site-${i % 50}`,
        day: days[i % 30]!,
        visitor_id: `v${i % 997}`,
        page_views: 2,
        browser: `Chrome ${100 + (i % 5)}`,
        os: i % 2 ? 'Android' : 'iOS',
        country: 'US',
        region: ['CA', 'NY', 'TX'][i % 3]!,
      }),
  ],
  ['siteTraffic (30 days)', (s, i) => s.siteTraffic(`site-${i % 50}`, days[0]!, days[29]!)],
  ['siteTraffic (30 days, system)', (s, i) => s.siteTraffic(`site-${i % 50}`, days[0]!, days[29]!, 'system')],
  ['mostTraffic (30 days, 50 sites)', (s) => s.mostTraffic('bench', days[0]!, days[29]!, 10)],
  ['deleteSite (with analytics)', (s, i) => s.deleteSite('bench', `site-${i}`)],
]

async function storeBench(make: () => Store): Promise<Map<string, { ops: number; trips: number }>> {
  const store = make()
  const c = counter(store)
  await store.getSite('warm-up') // connects and loads the first script
  const out = new Map<string, { ops: number; trips: number }>()
  for (const [name, op] of storeOps) {
    await op(store, STORE_OPS) // loads this operation's script outside the measurement
    c.reset()
    const ops = await run(STORE_OPS, (i) => op(store, i))
    out.set(name, { ops, trips: c.count / STORE_OPS })
  }
  await store.close()
  return out
}

/** API calls over HTTP; analytics use one master per 250 calls (the 300-a-day limit). */
async function httpBench(make: () => Store): Promise<Map<string, { ops: number; trips: number }>> {
  const store = make()
  const c = counter(store)
  const engine = createEngine({ store })
  const server = await startServer({ engine })
  const api = `${server.url}/api`
  const users = Array.from({ length: Math.ceil(HTTP_OPS / 250) + 1 }, (_, i) => `user${i}`)
  for (const user of users) await engine.addMasterAccount({ user, password: 'pw', partner: true })
  const auth = (user: string) => `Basic ${Buffer.from(`${user}:pw`).toString('base64')}`
  const call = async (method: string, path: string, body?: unknown, user = 'user0') => {
    const res = await fetch(api + path, {
      method,
      headers: { authorization: auth(user), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    await res.arrayBuffer()
    if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status}`)
  }
  for (const user of users) {
    await call(
      'POST',
      '/sites/create',
      { site_data: { site_name: `top-${user}`, original_site_url: 'https://a.example/' } },
      user,
    )
    for (let d = 0; d < 30; d++) {
      await engine.recordVisit({ site_name: `top-${user}`, visitor_id: `v${d}`, at: new Date(Date.now() - d * DAY) })
    }
  }
  const ops: [string, (i: number) => Promise<unknown>][] = [
    [
      'POST /sites/create',
      (i) =>
        call('POST', '/sites/create', {
          site_data: { site_name: `api-${i}`, original_site_url: 'https://a.example/' },
        }),
    ],
    ['GET /sites/{name}', (i) => call('GET', `/sites/api-${i}`)],
    ['POST /sites/update/{name}', (i) => call('POST', `/sites/update/api-${i}`, { site_domain: 'm.example.com' })],
    ['POST /sites/publish/{name}', (i) => call('POST', `/sites/publish/api-${i}`)],
    ['GET /sites/modified (1,000 sites)', () => call('GET', '/sites/modified')],
    [
      'GET /analytics/site/{name}',
      (i) => call('GET', `/analytics/site/top-${users[Math.floor(i / 250)]}`, undefined, users[Math.floor(i / 250)]),
    ],
    [
      'GET /analytics/sites/withmosttraffic',
      (i) => call('GET', '/analytics/sites/withmosttraffic', undefined, users[Math.floor(i / 250)]),
    ],
    ['DELETE /sites/{name}', (i) => call('DELETE', `/sites/api-${i}`)],
  ]
  const out = new Map<string, { ops: number; trips: number }>()
  for (const [name, op] of ops) {
    c.reset()
    const rate = await run(HTTP_OPS, op)
    out.set(name, { ops: rate, trips: c.count / HTTP_OPS })
  }
  await server.close()
  await engine.close()
  return out
}

function table(
  title: string,
  memory: Map<string, { ops: number }>,
  redis: Map<string, { ops: number; trips: number }>,
): void {
  const rows: Row[] = [...memory].map(([name, m]) => ({
    name,
    memory: m.ops,
    redis: redis.get(name)!.ops,
    trips: redis.get(name)!.trips,
  }))
  const w = Math.max(...rows.map((r) => r.name.length), title.length)
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
  console.log(
    `\n| ${title.padEnd(w)} | MemoryStore ops/s | RedisStore ops/s | Redis / Memory | Redis round trips per call |`,
  )
  console.log(
    `|${'-'.repeat(w + 2)}|------------------:|-----------------:|---------------:|---------------------------:|`,
  )
  for (const r of rows) {
    figure({
      group: 'store',
      name: `${title}: ${r.name}, RedisStore`,
      value: Math.round(r.redis),
      unit: 'ops/s',
      anchor: 'MemoryStore',
      anchorValue: Math.round(r.memory),
      ratio: Number((r.redis / r.memory).toFixed(3)),
      note: `${r.trips.toFixed(2)} Redis round trips per call; ${CONCURRENCY} in flight`,
    })
    console.log(
      `| ${r.name.padEnd(w)} | ${fmt(r.memory).padStart(17)} | ${fmt(r.redis).padStart(16)} | ${(r.redis / r.memory).toFixed(3).padStart(14)} | ${r.trips.toFixed(2).padStart(26)} |`,
    )
  }
}

const redisStore = (): Store => {
  const prefix = `mobisite-bench:${randomBytes(6).toString('hex')}:`
  prefixes.push(prefix)
  return new RedisStore({ url: URL_, prefix })
}

try {
  console.log(
    `RedisStore at ${URL_}; ${STORE_OPS} store calls and ${HTTP_OPS} HTTP calls per row, ${CONCURRENCY} in flight`,
  )
  table('Store call', await storeBench(() => new MemoryStore()), await storeBench(redisStore))
  table('HTTP API call (startServer)', await httpBench(() => new MemoryStore()), await httpBench(redisStore))
} finally {
  await deleteRedisPrefixes(URL_, prefixes)
}
