/**
 * PostgresStore next to MemoryStore (and RedisStore when REDIS_URL is set):
 *
 * 1. `GET /sites/{site_name}` over HTTP, one server process per store,
 *    autocannon, alternating rounds (goal: PostgreSQL >= 0.5 x memory);
 * 2. creating sites through the engine (goal: >= 2,000/s);
 * 3. the 90-day traffic breakdown of one site and most-traffic over
 *    10,000 sites x 30 days, on every store;
 * 4. PostgreSQL round trips per store call and per API call (queries sent,
 *    counted on pg's Client).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test [REDIS_URL=redis://127.0.0.1:6379] npx tsx benchmark/postgres.ts
 *
 * Needs `npm run build` (the HTTP servers run the built package). Writes only
 * in random `mobisite_bench_<hex>` schemas / `mobisite-bench:<hex>:` prefixes,
 * dropped at the end.
 */
import type { ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { createEngine, startServer } from '../lib/index.js'
import type { SiteRecord, Store, VisitEvent } from '../lib/store/contract/index.js'
import { MemoryStore } from '../lib/store/memory/store.js'
import { PostgresStore } from '../lib/store/postgres/store.js'
import { RedisStore } from '../lib/store/redis/store.js'
import { rps } from './lib/autocannon.js'
import { callsPerSecond } from './lib/calls-per-second.js'
import { deleteRedisPrefixes } from './lib/cleanup.js'
import { figure } from './lib/report.js'
import { spawnServer } from './lib/spawn-server.js'

const DATABASE_URL = process.env.DATABASE_URL
const REDIS_URL = process.env.REDIS_URL
const DURATION = Number(process.env.BENCH_DURATION ?? 3)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const CREATES = Number(process.env.BENCH_CREATES ?? 3000)
const SITES = Number(process.env.BENCH_SITES ?? 10_000)
const DAYS = 30
const CONCURRENCY = 32
const DAY_MS = 86_400_000
const T0 = Date.UTC(2024, 0, 1)
const day = (i: number) => new Date(T0 + i * DAY_MS).toISOString().slice(0, 10)
const AUTH = { authorization: `Basic ${Buffer.from('bench:bench-password').toString('base64')}` }

if (!DATABASE_URL) {
  console.log('DATABASE_URL not set: PostgresStore benchmark skipped')
  process.exit(0)
}
const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 2 })
const schemas: string[] = []
const prefixes: string[] = []
const newSchema = () => {
  const s = `mobisite_bench_${randomBytes(6).toString('hex')}`
  schemas.push(s)
  return s
}
const postgres = (): PostgresStore => new PostgresStore({ connectionString: DATABASE_URL, schema: newSchema() })
const redis = (): RedisStore => {
  const prefix = `mobisite-bench:${randomBytes(6).toString('hex')}:`
  prefixes.push(prefix)
  return new RedisStore({ url: REDIS_URL, prefix })
}

/** Queries sent by every pg Client of this process: one per round trip (the store never pipelines). */
let queries = 0
const clientQuery = pg.Client.prototype.query
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  queries++
  return (clientQuery as (...a: unknown[]) => unknown).apply(this, args)
} as typeof clientQuery

/** Calls per second of `op(i)` for i < n, `CONCURRENCY` in flight unless told. */
const run = (n: number, op: (i: number) => Promise<unknown>, concurrency = CONCURRENCY): Promise<number> =>
  callsPerSecond(n, op, concurrency)

// ------------------------------------------------------------ 1. API GET

async function serve(kind: 'memory' | 'postgres'): Promise<{ url: string; child: ChildProcess }> {
  const script = fileURLToPath(new URL('./postgres-server.mjs', import.meta.url))
  const args = kind === 'postgres' ? [kind, DATABASE_URL!, newSchema()] : [kind]
  const { child, origin } = await spawnServer(script, args, kind)
  return { url: `${origin}/api/sites/benchsite`, child }
}

const cannon = (url: string, duration: number): Promise<number> =>
  rps({ url, connections: 10, duration, headers: AUTH }, url)

async function apiGet(): Promise<void> {
  const servers = [await serve('memory'), await serve('postgres')]
  try {
    const best = [0, 0]
    for (const s of servers) await cannon(s.url, 1)
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, s] of servers.entries()) best[i] = Math.max(best[i]!, await cannon(s.url, DURATION))
    }
    const ratio = best[1]! / best[0]!
    console.log(
      `\n## GET /sites/{site_name} over HTTP (autocannon, 10 connections, best of ${ROUNDS} x ${DURATION} s)\n`,
    )
    console.log(`| store | req/s | / MemoryStore |\n|---|---:|---:|`)
    console.log(`| MemoryStore | ${Math.round(best[0]!)} | 1.000 |`)
    console.log(`| PostgresStore | ${Math.round(best[1]!)} | ${ratio.toFixed(3)} |`)
    figure({
      group: 'PostgreSQL',
      name: 'GET /sites/{site_name} over HTTP, PostgresStore',
      value: Math.round(best[1]!),
      unit: 'req/s',
      anchor: 'same server on MemoryStore',
      anchorValue: Math.round(best[0]!),
      ratio: Number(ratio.toFixed(3)),
      target: '>= 0.5',
    })
  } finally {
    for (const s of servers) s.child.disconnect()
  }
}

// ------------------------------------------------------ 2. engine creates

async function engineCreates(): Promise<void> {
  const rows: [string, number][] = []
  const makers: [string, () => Store][] = [
    ['MemoryStore', () => new MemoryStore()],
    ['PostgresStore (pool of 10, the default)', postgres],
    [
      'PostgresStore (pool of 32)',
      () => new PostgresStore({ connectionString: DATABASE_URL, schema: newSchema(), max: 32 }),
    ],
  ]
  if (REDIS_URL) makers.push(['RedisStore', redis])
  for (const [name, make] of makers) {
    const engine = createEngine({ store: make() })
    await engine.addMasterAccount({ user: 'bench', password: 'bench-password' })
    // An authenticated caller, as the API holds after its credential check: every create is then one store call.
    const api = engine.as((await engine.authenticate('bench', 'bench-password'))!)
    await api.createSite({ site_data: { site_name: 'warm-up', original_site_url: 'https://a.example/' } })
    const rate = await run(
      CREATES,
      (i) => api.createSite({ site_data: { site_name: `create-${i}`, original_site_url: 'https://a.example/' } }),
      64,
    )
    rows.push([name, rate])
    await engine.close()
  }
  console.log(
    `\n## Creating sites through the engine (${CREATES} creates, 64 in flight; each commit waits for the WAL flush)\n`,
  )
  console.log('| store | sites/s | / MemoryStore |\n|---|---:|---:|')
  for (const [name, rate] of rows) console.log(`| ${name} | ${Math.round(rate)} | ${(rate / rows[0]![1]).toFixed(3)} |`)
  for (const [name, rate] of rows.filter(([n]) => n.startsWith('PostgresStore'))) {
    figure({
      group: 'PostgreSQL',
      name: `sites created through the engine, ${name}`,
      value: Math.round(rate),
      unit: 'sites/s',
      anchor: 'MemoryStore',
      anchorValue: Math.round(rows[0]![1]),
      ratio: Number((rate / rows[0]![1]).toFixed(3)),
      target: '>= 2000 sites/s',
    })
  }
}

// ------------------------------------------------------------ 3. analytics

/** Site i is visited on day d when (i + d) % (1 + i % 5) = 0: 6 to 30 visits a month, ranked unevenly. */
function* monthVisits(): Generator<VisitEvent> {
  for (let d = 0; d < DAYS; d++) {
    for (let i = 0; i < SITES; i++) {
      if ((i + d) % (1 + (i % 5)) !== 0) continue
      yield {
        site_name: `s${i}`,
        day: day(60 + d),
        visitor_id: `v${(i * 31 + d) % 97}`,
        page_views: 2,
        browser: `Chrome ${100 + (i % 3)}`,
        os: i % 2 ? 'Android' : 'iOS',
        country: 'US',
        region: ['CA', 'NY', 'TX'][i % 3]!,
      }
    }
  }
}

/** The busy site: 90 days, 40 visits a day, 400 visitors, several browsers and regions. */
function* busyVisits(): Generator<VisitEvent> {
  for (let d = 0; d < 90; d++) {
    for (let k = 0; k < 40; k++) {
      yield {
        site_name: 'busy',
        day: day(d),
        visitor_id: `b${(d * 13 + k * 7) % 400}`,
        page_views: 1 + (k % 3),
        browser: ['Chrome 120', 'Mobile Safari 17', 'Samsung Internet 23', 'Firefox 121'][k % 4]!,
        os: k % 4 === 1 ? 'iOS' : 'Android',
        country: ['US', 'JP', 'FR'][k % 3]!,
        region: `R${k % 5}`,
      }
    }
  }
}

/** A built site as the store keeps it, created at T0 (what seeding and the round trips write directly). */
const siteRecord = (site_name: string, owner: string): SiteRecord => ({
  site_name,
  owner,
  original_site_url: 'https://a.example/',
  auto_sync_cache_ttl: 'SHORT',
  initial: { original_site_url: 'https://a.example/', auto_sync_cache_ttl: 'SHORT' },
  created_at: T0,
  modified_at: T0,
  build: 'built',
})

async function seed(store: Store): Promise<number> {
  const names = Array.from({ length: SITES }, (_, i) => `s${i}`)
  await run(SITES, (i) => store.createSite(siteRecord(names[i]!, 'ranker')), 64)
  await store.createSite(siteRecord('busy', 'owner-busy'))
  const events = [...monthVisits(), ...busyVisits()]
  const start = Date.now()
  await run(events.length, (i) => store.recordVisit(events[i]!), 64)
  return events.length / ((Date.now() - start) / 1000)
}

async function analytics(): Promise<void> {
  const makers: [string, () => Store][] = [
    ['MemoryStore', () => new MemoryStore()],
    ['PostgresStore', postgres],
  ]
  if (REDIS_URL) makers.push(['RedisStore', redis])
  const results: { name: string; ingest: number; breakdown: number; most: number; check: string }[] = []
  for (const [name, make] of makers) {
    const store = make()
    const ingest = await seed(store)
    const breakdown = await run(200, () => store.siteTraffic('busy', day(0), day(89), 'system'), 4)
    const most = await run(40, () => store.mostTraffic('ranker', day(60), day(89), 10), 4)
    const top = await store.mostTraffic('ranker', day(60), day(89), 10)
    const sys = await store.siteTraffic('busy', day(0), day(89), 'system')
    results.push({
      name,
      ingest,
      breakdown,
      most,
      check: JSON.stringify([top.map((r) => [r.site_name, r.data.visits]), sys.map((r) => r.data.visits)]),
    })
    await store.close()
  }
  const memory = results[0]!
  console.log(
    `\n## Analytics: the 90-day traffic breakdown (by system) of one site; most-traffic over ${SITES.toLocaleString('en-US')} sites x ${DAYS} days\n`,
  )
  console.log(
    '| store | recordVisit/s (seeding) | 90-day breakdown calls/s | / memory | most-traffic calls/s | / memory | same answers as memory |',
  )
  console.log('|---|---:|---:|---:|---:|---:|---|')
  for (const r of results) {
    console.log(
      `| ${r.name} | ${Math.round(r.ingest)} | ${Math.round(r.breakdown)} | ${(r.breakdown / memory.breakdown).toFixed(3)} | ${r.most.toFixed(1)} | ${(r.most / memory.most).toFixed(3)} | ${r.check === memory.check ? 'yes' : 'NO'} |`,
    )
    if (r === memory) continue
    figure({
      group: 'PostgreSQL',
      name: `90-day traffic breakdown (system) of one site, ${r.name}`,
      value: Math.round(r.breakdown),
      unit: 'calls/s',
      anchor: 'MemoryStore',
      anchorValue: Math.round(memory.breakdown),
      ratio: Number((r.breakdown / memory.breakdown).toFixed(3)),
    })
    figure({
      group: 'PostgreSQL',
      name: `most-traffic over ${SITES} sites x ${DAYS} days, ${r.name}`,
      value: Number(r.most.toFixed(1)),
      unit: 'calls/s',
      anchor: 'MemoryStore',
      anchorValue: Number(memory.most.toFixed(1)),
      ratio: Number((r.most / memory.most).toFixed(3)),
    })
  }
  if (results.some((r) => r.check !== memory.check)) throw new Error('the stores disagree on the analytics answers')
}

// ---------------------------------------------------------- 4. round trips

async function roundTrips(): Promise<void> {
  const store = postgres()
  const engine = createEngine({ store })
  const server = await startServer({ engine })
  await engine.addMasterAccount({ user: 'bench', password: 'bench-password', partner: true })
  const base = `${server.url}/api`
  const http = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(base + path, {
      method,
      headers: { ...AUTH, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    await res.arrayBuffer()
    if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status}`)
  }
  const visit = {
    site_name: 'rtsite',
    day: day(0),
    visitor_id: 'v',
    page_views: 1,
    browser: 'b',
    os: 'o',
    country: 'c',
    region: 'r',
  }
  const site = siteRecord('rt2', 'bench')
  await http('GET', '/sites/created') // authenticates once, migrates: the credential cache then holds the caller
  const calls: [string, () => Promise<unknown>][] = [
    ['store: createSite', () => store.createSite(site)],
    ['store: getSite', () => store.getSite('rt2')],
    ['store: getSites (50 names)', () => store.getSites(Array.from({ length: 50 }, (_, i) => `n${i}`))],
    ['store: updateSite', () => store.updateSite('bench', 'rt2', { site_domain: 'm.example.com' })],
    ['store: publishSite (first: charge)', () => store.publishSite('bench', 'rt2', T0, true)],
    ['store: listSites', () => store.listSites('bench', 'created', 0, T0)],
    ['store: incrementWithinLimit', () => store.incrementWithinLimit('k', 300, T0 + DAY_MS)],
    ['store: grantAccess', () => store.grantAccess('bench', 'nobody', 'rt2')],
    ['store: deleteSite (with analytics)', () => store.deleteSite('bench', 'rt2')],
    [
      'API: POST /sites/create',
      () =>
        http('POST', '/sites/create', { site_data: { site_name: 'rtsite', original_site_url: 'https://a.example/' } }),
    ],
    ['API: GET /sites/{site_name}', () => http('GET', '/sites/rtsite')],
    [
      'API: POST /sites/update/{site_name}',
      () => http('POST', '/sites/update/rtsite', { site_domain: 'm.example.com' }),
    ],
    ['API: POST /sites/publish/{site_name}', () => http('POST', '/sites/publish/rtsite')],
    ['API: GET /sites/created', () => http('GET', '/sites/created')],
    ['API: POST /sites/get-many', () => http('POST', '/sites/get-many', [{ site_name: 'rtsite' }])],
    ['store: recordVisit', () => store.recordVisit(visit)],
    ['API: GET /analytics/site/{site_name}', () => http('GET', '/analytics/site/rtsite')],
    [
      'API: GET /analytics/site/{site_name}?dimension=system',
      () => http('GET', '/analytics/site/rtsite?dimension=system'),
    ],
    ['API: GET /analytics/sites/withmosttraffic', () => http('GET', '/analytics/sites/withmosttraffic')],
    ['API: DELETE /sites/{site_name}', () => http('DELETE', '/sites/rtsite')],
  ]
  console.log('\n## PostgreSQL round trips per call (queries sent)\n')
  console.log('| call | round trips |\n|---|---:|')
  for (const [name, call] of calls) {
    queries = 0
    await call()
    console.log(`| ${name} | ${queries} |`)
    figure({ group: 'PostgreSQL', name: `round trips: ${name}`, value: queries, unit: 'round trips' })
  }
  await server.close()
  await engine.close()
}

/** BENCH_ONLY=api,creates,trips,analytics runs a subset (default: all four). */
const only = new Set((process.env.BENCH_ONLY ?? 'api,creates,trips,analytics').split(','))
try {
  if (only.has('api')) await apiGet()
  if (only.has('creates')) await engineCreates()
  if (only.has('trips')) await roundTrips()
  if (only.has('analytics')) await analytics()
} finally {
  for (const s of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`)
  await admin.end()
  if (REDIS_URL && prefixes.length) await deleteRedisPrefixes(REDIS_URL, prefixes)
}
