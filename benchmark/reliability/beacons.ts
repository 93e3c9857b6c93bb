/**
 * Issue 23's beacon attacks for `npm run reliability`, on the shared flood
 * code (benchmark/lib/beacon-flood.ts, also behind benchmark/ingest-flood.ts):
 *
 * 1. A random-value flood of `seconds` on MemoryStore (in this process:
 *    heap after GC) twice: random visitor ids as in the issue, and visitor
 *    ids from a pool of 1,000 so only the values the cap bounds are random.
 * 2. The same flood on RedisStore over a redis-server of the run's own
 *    (keys, used_memory), then the analytics reads by geo and system with
 *    SLOWLOG recording every command: the longest one.
 * 3. The standalone collector on PostgresStore (DATABASE_URL) under full
 *    beacon load (autocannon, 50 connections) for `backlogSeconds`: the most
 *    recordings pending, sampled every 100 ms; before = the bound lifted.
 */
import pg from 'pg'
import {
  askIngest,
  DIMENSION_CAP,
  drainIngest,
  type IngestStats,
  type MemoryFlood,
  memoryFlood,
  type RedisFlood,
  redisFlood,
  startIngest,
} from '../lib/beacon-flood.js'
import { autocannon } from '../lib/autocannon.js'
import { sleep } from './common.js'
import type { OwnRedis } from './redis.js'

/** The collector's default bound of pending recordings. */
export const MAX_PENDING = 10_000
/** Heap the values of one capped site-day may take: 2 dimensions × 1,001 values × 4 KB. */
export const CAP_HEAP_BYTES = 2 * (DIMENSION_CAP + 1) * 4096
/** Redis keys one capped site-day may take: 2 × 1,001 value sketches and a few fixed keys. */
export const CAP_KEYS = 2 * (DIMENSION_CAP + 1) + 20

/** The PostgreSQL backlog of one run. */
export interface Backlog {
  accepted: number
  mostPending: number
  pendingAtEnd: number
  dropped: number
  /** Seconds after the load until nothing was pending (capped at 60; -1: still pending). */
  drainedAfter: number
}

/** Figures of the beacon attacks. */
export interface BeaconFigures {
  seconds: number
  backlogSeconds: number
  memory: MemoryFlood
  memoryPooled: MemoryFlood
  redis: RedisFlood
  backlog?: { before: Backlog; after: Backlog }
}

async function backlogRun(seconds: number, bounded: boolean): Promise<Backlog> {
  const server = await startIngest('PostgresStore', 'postgres', bounded ? undefined : 1_000_000_000)
  const schema = `bench_ingest_${server.child.pid}`
  try {
    const stats = async () => (await askIngest<IngestStats>(server, 'stats')).recording!
    const before = await stats()
    let mostPending = 0
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        mostPending = Math.max(mostPending, (await stats()).pending)
        await sleep(100)
      }
    })()
    await autocannon({ url: `${server.origin}/collect/benchsite`, method: 'POST', connections: 50, duration: seconds })
    sampling = false
    await sampler
    const end = await stats()
    mostPending = Math.max(mostPending, end.pending)
    const loadEnded = Date.now()
    await drainIngest(server, 60_000)
    const later = await stats()
    return {
      accepted: end.accepted - before.accepted,
      mostPending,
      pendingAtEnd: end.pending,
      dropped: later.dropped - before.dropped,
      drainedAfter: later.pending === 0 ? (Date.now() - loadEnded) / 1000 : -1,
    }
  } finally {
    // No graceful close: an unbounded backlog would first be recorded, for minutes.
    const exited = new Promise((resolve) => server.child.once('exit', resolve))
    server.child.kill('SIGKILL')
    await exited
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await admin.connect()
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    await admin.end()
  }
}

/** Runs the beacon attacks; the PostgreSQL backlog only when DATABASE_URL is set. */
export async function beaconPhase(
  Redis: typeof OwnRedis,
  seconds: number,
  backlogSeconds: number,
): Promise<BeaconFigures> {
  const memory = await memoryFlood(seconds)
  const memoryPooled = await memoryFlood(seconds, 1000)
  const own = await Redis.create()
  await own.start(false)
  let redis: RedisFlood
  try {
    redis = await redisFlood(own.url, seconds)
  } finally {
    await own.wipe()
  }
  const backlog = process.env.DATABASE_URL
    ? { after: await backlogRun(backlogSeconds, true), before: await backlogRun(backlogSeconds, false) }
    : undefined
  return { seconds, backlogSeconds, memory, memoryPooled, redis, ...(backlog ? { backlog } : {}) }
}

const mb = (bytes: number): string => (bytes / 1e6).toFixed(1)
const backlogText = (b: Backlog): string =>
  `${b.accepted} beacons answered, at most **${b.mostPending}** pending (${b.pendingAtEnd} when the load stopped), ${b.dropped} dropped and counted, ${b.drainedAfter < 0 ? 'still pending 60 s later' : `all recorded ${b.drainedAfter.toFixed(1)} s after`}`

/** The Markdown section of the beacon attacks. */
export function beaconSection(f: BeaconFigures): string {
  const { memory: m, memoryPooled: p, redis: r } = f
  return `
## Beacon floods and the recording backlog (issue 23)

A random-value flood: ${f.seconds} s of visits to one site through \`engine.recordVisit\`,
500 at a time, each with a new country, region and User-Agent (and visitor id),
with the default cap of ${DIMENSION_CAP} values per dimension per site-day. "Before"
is what issue 23 measured on main.

| attack | before (issue 23) | after |
|---|---|---|
| MemoryStore heap, random visitor ids | 21 MB kept by visitor ids; 4.3 ms per event at 100k values | +${mb(m.heapBytes)} MB after ${m.events} visits (${(m.heapBytes / m.events) | 0} B per visit: exact up to 10,000 distinct visitors per site-day, then a sketch); rows: geo ${m.rows.geo}, system ${m.rows.system} |
| MemoryStore heap, 1,000 visitor ids (values only) | grew with every value | +${mb(p.heapBytes)} MB after ${p.events} visits (cap's worth: ${mb(CAP_HEAP_BYTES)} MB); rows: geo ${p.rows.geo}, system ${p.rows.system} |
| Redis keys | 372k keys (181 MB) for 186k beacons, never expiring | ${r.keys} keys (used_memory ${mb(r.usedMemory)} MB) after ${r.events} visits (cap's worth: ${CAP_KEYS}) |
| longest Redis command of an analytics read after it | 2.9–5.5 s (one script) | ${(r.longestMicros / 1000).toFixed(2)} ms (${r.longestCommand}; ${r.commands} commands, ${r.readMs.toFixed(0)} ms in all), SLOWLOG of the run's own redis-server |
${
  f.backlog
    ? `| PostgreSQL backlog, ${f.backlogSeconds} s of full beacon load | 14.7 s of backlog held in memory after 10 s, growing | before (bound lifted, this build): ${backlogText(f.backlog.before)}; after (\`maxPendingRecordings\` ${MAX_PENDING}): ${backlogText(f.backlog.after)} |`
    : '| PostgreSQL backlog | | not run (DATABASE_URL not set) |'
}

The backlog runs the standalone collector (\`collectRoute\`, \`beaconsPerMinute\` 0 since
autocannon is one client) on PostgresStore in a child process, 50 connections for
${f.backlogSeconds} s, pending recordings sampled every 100 ms. Heap figures are after a full GC
${m.gcExposed ? '' : '(**not** available in this run: node without --expose-gc, garbage included) '}in the run's own process.
`
}
