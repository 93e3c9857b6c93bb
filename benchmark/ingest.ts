/**
 * The collector keeping up (issue 26 items 2-3), in one run:
 *
 * 1. Beacons per second of the standalone collector (`POST /collect/{site}`)
 *    on MemoryStore, RedisStore and PostgresStore against a bare Express 204
 *    handler: one server process per variant (ingest-server.mjs), autocannon
 *    in interleaved rounds, ratios as medians of per-round ratios.
 * 2. After a full-speed run of RECORD_SECONDS (10 s), the share of accepted
 *    beacons recorded when the run ends and 3 s later, and the most pending.
 * 3. Analytics bytes per site-day for 50 sites × 10 days × 40 visits, 10
 *    countries × 5 regions, 3 user agents: Redis `MEMORY USAGE` of every key
 *    written, PostgreSQL `pg_total_relation_size` of the analytics tables.
 *
 *   npm run build && npx tsx benchmark/ingest.ts   (REDIS_URL, DATABASE_URL for those stores;
 *   BENCH_DURATION s per round, BENCH_ROUNDS, RECORD_SECONDS; INGEST_ONLY=bytes for part 3 alone)
 */
import { Redis } from 'ioredis'
import pg from 'pg'
import { createEngine } from '../lib/index.js'
import type { Store } from '../lib/store/contract/index.js'
import { PostgresStore } from '../lib/store/postgres/store.js'
import { RedisStore } from '../lib/store/redis/store.js'
import { rps } from './lib/autocannon.js'
import { askIngest, drainIngest, type IngestServer, type IngestStats, startIngest } from './lib/beacon-flood.js'
import { figure } from './lib/report.js'

const DURATION = Number(process.env.BENCH_DURATION ?? 2)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
const RECORD_SECONDS = Number(process.env.RECORD_SECONDS ?? 10)
const CONNECTIONS = 50
const { REDIS_URL, DATABASE_URL } = process.env
/** `bytes`: part 3 only (no HTTP servers, no load). */
const ONLY = process.env.INGEST_ONLY

type Stats = IngestStats
type Server = IngestServer
const start = startIngest
const ask = askIngest
const drain = drainIngest

async function load(server: Server, duration: number): Promise<number> {
  return rps(
    { url: `${server.origin}/collect/benchsite`, method: 'POST', connections: CONNECTIONS, duration },
    server.label,
  )
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const GOALS: Record<string, string> = { MemoryStore: '>= 0.90', RedisStore: '>= 0.75', PostgresStore: '>= 0.70' }

// ------------------------------------------------------------ 1 and 2: HTTP
const variants: [string, string][] = [['MemoryStore', 'memory']]
if (REDIS_URL) variants.push(['RedisStore', 'redis'])
else console.log('REDIS_URL not set: RedisStore skipped')
if (DATABASE_URL) variants.push(['PostgresStore', 'postgres'])
else console.log('DATABASE_URL not set: PostgresStore skipped')

/** Parts 1 and 2: one server process per variant, autocannon against each. */
async function http(): Promise<void> {
  const bare = await start('bare Express', 'bare')
  const servers = [bare, ...(await Promise.all(variants.map(([label, mode]) => start(label, mode))))]
  try {
    for (const server of servers) await load(server, 1)
    const samples = new Map(servers.map((s) => [s.label, [] as number[]]))
    for (let round = 0; round < ROUNDS; round++) {
      for (const server of servers) {
        samples.get(server.label)!.push(await load(server, DURATION))
        // Let the previous variant's recordings drain, so it does not slow the next one.
        for (const s of servers) if (s !== server) await drain(s, 30_000)
      }
    }
    const bareList = samples.get(bare.label)!
    const note = `medians of ${ROUNDS} interleaved ${DURATION} s autocannon runs, ${CONNECTIONS} connections; ratio = median of per-round ratios`
    console.log(`POST /collect/{site}, ${note}\n`)
    console.log('| variant | beacons/s | / bare Express |')
    console.log('|---|---:|---:|')
    for (const [label, list] of samples) {
      const ratio = median(list.map((rps, i) => rps / bareList[i]!))
      console.log(`| ${label} | ${Math.round(median(list))} | ${ratio.toFixed(3)} |`)
      if (label === bare.label) continue
      figure({
        group: 'ingest',
        name: `POST /collect/{site_name}, ${label}`,
        value: Math.round(median(list)),
        unit: 'beacons/s',
        anchor: 'bare Express 204',
        anchorValue: Math.round(median(bareList)),
        ratio: Number(ratio.toFixed(3)),
        target: GOALS[label],
        note,
      })
    }

    console.log(`\nRecorded after a ${RECORD_SECONDS} s full-speed run:\n`)
    console.log('| store | accepted | recorded at the end | within 3 s | dropped | most pending seen |')
    console.log('|---|---:|---:|---:|---:|---:|')
    for (const server of servers.slice(1)) {
      await drain(server, 30_000)
      const before = (await ask<Stats>(server, 'stats')).recording!
      let mostPending = 0
      const watch = setInterval(async () => {
        const now = (await ask<Stats>(server, 'stats')).recording!
        mostPending = Math.max(mostPending, now.pending)
      }, 200)
      await load(server, RECORD_SECONDS)
      clearInterval(watch)
      const end = (await ask<Stats>(server, 'stats')).recording!
      await sleep(3000)
      const later = (await ask<Stats>(server, 'stats')).recording!
      const accepted = end.accepted - before.accepted
      const atEnd = (end.recorded - before.recorded) / accepted
      const within3 = (later.recorded - before.recorded) / accepted
      const dropped = later.dropped - before.dropped
      console.log(
        `| ${server.label} | ${accepted} | ${(atEnd * 100).toFixed(1)} % | ${(within3 * 100).toFixed(1)} % | ${dropped} | ${mostPending} |`,
      )
      figure({
        group: 'ingest',
        name: `recorded within 3 s after a ${RECORD_SECONDS} s full-speed run, ${server.label}`,
        value: Number((within3 * 100).toFixed(1)),
        unit: '%',
        target: '>= 90',
        targetOf: 'value',
        note: `${accepted} beacons accepted, ${(atEnd * 100).toFixed(1)} % recorded when the run ended, ${dropped} dropped (maxPendingRecordings 10,000), at most ${mostPending} pending`,
      })
    }
  } finally {
    for (const server of servers) {
      if (server !== bare) await ask(server, 'close')
      server.child.disconnect()
    }
    if (DATABASE_URL) {
      const admin = new pg.Client({ connectionString: DATABASE_URL })
      await admin.connect()
      for (const server of servers) await admin.query(`DROP SCHEMA IF EXISTS bench_ingest_${server.child.pid} CASCADE`)
      await admin.end()
    }
  }
}
if (ONLY !== 'bytes') await http()

// ------------------------------------------------------- 3: bytes per site-day
/** The shape: 50 sites × 10 days × 40 visits, 10 countries × 5 regions, 3 user agents. */
async function fill(store: Store): Promise<void> {
  const engine = createEngine({ store, now: () => new Date('2025-03-10T12:00:00Z') })
  await engine.addMasterAccount({ user: 'bench', password: 'bench-password' })
  const api = engine.as('bench')
  const agents = [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  ]
  const countries = ['US', 'JP', 'DE', 'FR', 'GB', 'BR', 'IN', 'CA', 'AU', 'ES']
  for (let s = 0; s < 50; s++) {
    await api.createSite({ site_data: { site_name: `day${s}`, original_site_url: 'https://www.example.com/' } })
    const visits = []
    for (let d = 0; d < 10; d++) {
      for (let v = 0; v < 40; v++) {
        visits.push(
          engine.recordVisit({
            site_name: `day${s}`,
            at: new Date(Date.UTC(2025, 2, 1 + d, 12)),
            visitor_id: `visitor-${s}-${d}-${v % 30}`,
            user_agent: agents[v % 3],
            country: countries[v % 10],
            region: `R${v % 5}`,
          }),
        )
      }
    }
    await Promise.all(visits)
  }
  await engine.flushRecordings()
}

const SITE_DAYS = 500
/** The analytics keys of RedisStore's tagged key layout (lib/store/redis/keys.ts), after the prefix. */
const ANALYTICS = /^\{s:[^}]*\}:(aowner$|days$|day:|dayu:|du:)|^\{o:[^}]*\}:(odays$|rank:)/
if (REDIS_URL) {
  const prefix = `mobisite-bench-siteday:${process.pid}:`
  const admin = new Redis(REDIS_URL)
  const store = new RedisStore({ url: REDIS_URL, prefix })
  const keysBefore = new Set<string>()
  for await (const batch of admin.scanStream({ match: `${prefix}*`, count: 1000 }))
    for (const k of batch) keysBefore.add(k)
  await fill(store)
  let bytes = 0
  let keys = 0
  for await (const batch of admin.scanStream({ match: `${prefix}*`, count: 1000 })) {
    for (const key of batch as string[]) {
      if (keysBefore.has(key) || !ANALYTICS.test(key.slice(prefix.length))) continue
      bytes += Number((await admin.memory('USAGE', key)) ?? 0)
      keys += 1
    }
  }
  console.log(`\nRedis: ${bytes} B and ${keys} keys for ${SITE_DAYS} site-days`)
  figure({
    group: 'ingest',
    name: 'analytics bytes per site-day, RedisStore (MEMORY USAGE)',
    value: Math.round(bytes / SITE_DAYS),
    unit: 'B',
    target: '<= 2000',
    targetOf: 'value',
    note: `${(keys / SITE_DAYS).toFixed(1)} keys per site-day; 50 sites × 10 days × 40 visits, 10 countries × 5 regions, 3 user agents`,
  })
  await store.clearState()
  await store.close()
  admin.disconnect()
}
if (DATABASE_URL) {
  const schema = `bench_siteday_${process.pid}`
  const store = new PostgresStore({ connectionString: DATABASE_URL, schema })
  await fill(store)
  const admin = new pg.Client({ connectionString: DATABASE_URL })
  await admin.connect()
  const tables = ['site_days', 'visitor_overflow', 'dim_values']
  for (const table of tables) await admin.query(`VACUUM ANALYZE ${schema}.${table}`)
  let bytes = 0
  let rows = 0
  for (const table of tables) {
    const r = await admin.query(
      `SELECT pg_total_relation_size('${schema}.${table}') AS b, (SELECT count(*) FROM ${schema}.${table}) AS n`,
    )
    bytes += Number(r.rows[0].b)
    rows += Number(r.rows[0].n)
  }
  console.log(`PostgreSQL: ${bytes} B and ${rows} rows for ${SITE_DAYS} site-days`)
  figure({
    group: 'ingest',
    name: 'analytics bytes per site-day, PostgresStore (pg_total_relation_size)',
    value: Math.round(bytes / SITE_DAYS),
    unit: 'B',
    target: '<= 5000',
    targetOf: 'value',
    note: `${(rows / SITE_DAYS).toFixed(1)} rows per site-day (tables ${tables.join(', ')}, indexes included)`,
  })
  await store.close()
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  await admin.end()
}
