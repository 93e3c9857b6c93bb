/**
 * Issue 23's beacon attacks, shared by benchmark/ingest-flood.ts,
 * benchmark/ingest.ts and `npm run reliability` (benchmark/reliability/beacons.ts):
 *
 * - a random-value flood through engine.recordVisit (each visit a new
 *   country, region, User-Agent and, unless a pool is given, visitor id) on
 *   MemoryStore (heap growth) and on RedisStore (keys, used_memory, and the
 *   longest command of an analytics read after it, from SLOWLOG: the caller
 *   must own that redis-server, since SLOWLOG settings are changed);
 * - the standalone collector as a child process (ingest-server.mjs) with
 *   helpers to ask its recording stats.
 */
import type { ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import { createEngine, type Engine } from '../../lib/index.js'
import type { Store } from '../../lib/store/contract/index.js'
import { MemoryStore } from '../../lib/store/memory/store.js'
import { RedisStore } from '../../lib/store/redis/store.js'
import { spawnServer } from './spawn-server.js'

/** The flood's day, fixed so every visit lands in one site-day. */
export const FLOOD_DAY = '2025-03-10'

/** The engine's default cap of values per dimension per site-day. */
export const DIMENSION_CAP = 1000

/**
 * `seconds` of random-value visits to one site, 500 at a time. With
 * `visitorPool`, visitor ids come from that many fixed ids, so only the
 * dimension values are random (what the cap bounds).
 */
export async function flood(
  store: Store,
  seconds: number,
  visitorPool?: number,
): Promise<{ events: number; engine: Engine }> {
  const engine = createEngine({ store, now: () => new Date(`${FLOOD_DAY}T12:00:00Z`) })
  await engine.addMasterAccount({ user: 'flood', password: 'flood-password' })
  await engine.as('flood').createSite({ site_data: { site_name: 'target', original_site_url: 'https://x.example/' } })
  const end = Date.now() + seconds * 1000
  let events = 0
  while (Date.now() < end) {
    const batch = []
    for (let i = 0; i < 500; i++) {
      const r = randomBytes(8).toString('hex')
      batch.push(
        engine.recordVisit({
          site_name: 'target',
          visitor_id: visitorPool ? `visitor-${(events + i) % visitorPool}` : r,
          country: r.slice(0, 6),
          region: r.slice(6, 12),
          user_agent: `Flood/${r}`,
        }),
      )
    }
    await Promise.all(batch)
    events += batch.length
  }
  await engine.flushRecordings()
  return { events, engine }
}

/** Rows of each dimension of the flooded day: at most the cap plus `(other)`. */
async function rowsOf(engine: Engine): Promise<{ geo: number; system: number }> {
  const api = engine.as('flood')
  const count = async (dimension: 'geo' | 'system') =>
    ((await api.siteAnalytics('target', { from: FLOOD_DAY, to: FLOOD_DAY, dimension })) as unknown[]).length
  return { geo: await count('geo'), system: await count('system') }
}

/** Figures of a MemoryStore flood. */
export interface MemoryFlood {
  events: number
  /** Heap growth after GC (with --expose-gc; otherwise garbage included). */
  heapBytes: number
  gcExposed: boolean
  rows: { geo: number; system: number }
}

/** A flood on a fresh MemoryStore in this process, measuring the heap before and after. */
export async function memoryFlood(seconds: number, visitorPool?: number): Promise<MemoryFlood> {
  global.gc?.()
  const before = process.memoryUsage().heapUsed
  const { events, engine } = await flood(new MemoryStore(), seconds, visitorPool)
  global.gc?.()
  const heapBytes = process.memoryUsage().heapUsed - before
  const rows = await rowsOf(engine)
  await engine.close()
  return { events, heapBytes, gcExposed: global.gc !== undefined, rows }
}

/** Figures of a RedisStore flood. */
export interface RedisFlood {
  events: number
  keys: number
  usedMemory: number
  /** The longest command of the analytics reads after the flood (SLOWLOG), µs, and its name. */
  longestMicros: number
  longestCommand: string
  commands: number
  readMs: number
  rows: { geo: number; system: number }
}

/** A flood on RedisStore at `url`, a redis-server the caller owns (its SLOWLOG settings are changed). */
export async function redisFlood(url: string, seconds: number): Promise<RedisFlood> {
  const admin = new Redis(url)
  try {
    const keysBefore = await admin.dbsize()
    const { events, engine } = await flood(new RedisStore({ url }), seconds)
    const keys = (await admin.dbsize()) - keysBefore
    const usedMemory = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1] ?? 0)
    await admin.config('SET', 'slowlog-log-slower-than', '0')
    await admin.config('SET', 'slowlog-max-len', '100000')
    await admin.slowlog('RESET')
    const start = performance.now()
    const rows = await rowsOf(engine)
    const readMs = performance.now() - start
    const log = (await admin.slowlog('GET', 100000)) as [number, number, number, string[]][]
    let longest: [number, string] = [0, '']
    for (const entry of log) if (entry[2] > longest[0]) longest = [entry[2], String(entry[3][0])]
    await engine.close()
    return {
      events,
      keys,
      usedMemory,
      longestMicros: longest[0],
      longestCommand: longest[1],
      commands: log.length,
      readMs,
      rows,
    }
  } finally {
    admin.disconnect()
  }
}

/** Recording stats of an ingest server (engine.recordingStats()). */
export interface RecordingStats {
  accepted: number
  recorded: number
  failed: number
  dropped: number
  pending: number
}
/** What an ingest server answers to 'stats'. */
export interface IngestStats {
  cpuMicros: number
  requests: number
  recording?: RecordingStats
}
/** A running ingest-server.mjs. */
export interface IngestServer {
  label: string
  origin: string
  child: ChildProcess
}

const script = fileURLToPath(new URL('../ingest-server.mjs', import.meta.url))
// The CommonJS build: one file per module, so the collector's route (not exported) can be loaded.
const lib = fileURLToPath(new URL('../../dist/cjs/lib', import.meta.url))

/**
 * Starts ingest-server.mjs (needs `npm run build`) in `mode`: 'bare' |
 * 'memory' | 'redis' | 'postgres'. `maxPendingRecordings` overrides the
 * collector's bound (a huge one stands for "no bound", as before issue 23).
 */
export async function startIngest(label: string, mode: string, maxPendingRecordings?: number): Promise<IngestServer> {
  const args = [mode, lib, ...(maxPendingRecordings === undefined ? [] : [String(maxPendingRecordings)])]
  return { label, ...(await spawnServer(script, args, label)) }
}

/** Sends `message` ('stats' or 'close') to an ingest server and waits for its answer. */
export function askIngest<T>(server: IngestServer, message: string): Promise<T> {
  return new Promise((resolve) => {
    server.child.once('message', (m) => resolve(m as T))
    server.child.send(message)
  })
}

/** Waits until the server has no recording pending (at most `ms`). */
export async function drainIngest(server: IngestServer, ms: number): Promise<void> {
  const deadline = Date.now() + ms
  for (;;) {
    const { recording } = await askIngest<IngestStats>(server, 'stats')
    if (!recording || recording.pending === 0 || Date.now() > deadline) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
