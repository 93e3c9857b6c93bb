/**
 * A random-value flood (issue 23): FLOOD_SECONDS (30 s) of visits to one
 * site, each with a new country, region, User-Agent and visitor id, through
 * engine.recordVisit, on MemoryStore and on RedisStore (its own redis-server
 * on a free port, so SLOWLOG is ours). Reports what grew (heap, Redis keys
 * and bytes) against the cap (maxDimensionValues 1,000), and the longest
 * Redis command during an analytics read of that day by each dimension.
 *
 *   npx tsx benchmark/ingest-flood.ts     (FLOOD_SECONDS; needs redis-server on PATH for Redis)
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:net'
import { Redis } from 'ioredis'
import { createEngine } from '../lib/index.js'
import type { Store } from '../lib/store/contract.js'
import { MemoryStore } from '../lib/store/memory/store.js'
import { RedisStore } from '../lib/store/redis/store.js'
import { figure } from './lib/report.js'

const SECONDS = Number(process.env.FLOOD_SECONDS ?? 30)
const DAY = '2025-03-10'

async function flood(store: Store): Promise<{ events: number; engine: ReturnType<typeof createEngine> }> {
  const engine = createEngine({ store, now: () => new Date(`${DAY}T12:00:00Z`) })
  await engine.addMasterAccount({ user: 'flood', password: 'flood-password' })
  await engine.as('flood').createSite({ site_data: { site_name: 'target', original_site_url: 'https://x.example/' } })
  const end = Date.now() + SECONDS * 1000
  let events = 0
  while (Date.now() < end) {
    const batch = []
    for (let i = 0; i < 500; i++) {
      const r = randomBytes(8).toString('hex')
      batch.push(
        engine.recordVisit({
          site_name: 'target',
          visitor_id: r,
          country: r.slice(0, 6),
          region: r.slice(6, 12),
          user_agent: `Flood/${r}`,
        }),
      )
    }
    await Promise.all(batch)
    events += batch.length
  }
  return { events, engine }
}

// ----------------------------------------------------------------- memory
{
  global.gc?.()
  const before = process.memoryUsage().heapUsed
  const { events, engine } = await flood(new MemoryStore())
  global.gc?.()
  const grown = process.memoryUsage().heapUsed - before
  console.log(`MemoryStore: ${events} flood visits in ${SECONDS} s, heap +${(grown / 1e6).toFixed(1)} MB`)
  figure({
    group: 'ingest flood',
    name: `MemoryStore heap growth after a ${SECONDS} s random-value flood`,
    value: Number((grown / 1e6).toFixed(1)),
    unit: 'MB',
    note: `${events} visits, each a new country, region, User-Agent and visitor id; the cap keeps 1,000 values per dimension; visitor ids (exact) are what still grows${global.gc ? '' : ' (run without --expose-gc: heap figures include garbage)'}`,
  })
  await engine.close()
}

// ------------------------------------------------------------------ Redis
const port = await new Promise<number>((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as { port: number }
    probe.close(() => resolve(port))
  })
})
const child = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
const spawned = await new Promise<boolean>((resolve) => {
  child.once('error', () => resolve(false))
  setTimeout(() => resolve(child.exitCode === null), 300)
})
if (!spawned) console.log('redis-server not found: RedisStore skipped')
else {
  const url = `redis://127.0.0.1:${port}`
  const admin = new Redis(url)
  try {
    const keysBefore = await admin.dbsize()
    const store = new RedisStore({ url })
    const { events, engine } = await flood(store)
    const keys = (await admin.dbsize()) - keysBefore
    const used = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1] ?? 0)
    console.log(`RedisStore: ${events} flood visits, ${keys} keys, used_memory ${(used / 1e6).toFixed(1)} MB`)
    await admin.config('SET', 'slowlog-log-slower-than', '0')
    await admin.config('SET', 'slowlog-max-len', '100000')
    await admin.slowlog('RESET')
    const api = engine.as('flood')
    const start = performance.now()
    for (const dimension of ['geo', 'system'] as const)
      await api.siteAnalytics('target', { from: DAY, to: DAY, dimension })
    const readMs = performance.now() - start
    const log = (await admin.slowlog('GET', 100000)) as [number, number, number, string[]][]
    let longest: [number, string] = [0, '']
    for (const entry of log) if (entry[2] > longest[0]) longest = [entry[2], String(entry[3][0])]
    console.log(
      `longest command during the read: ${longest[0]} µs (${longest[1]}), ${log.length} commands, ${readMs.toFixed(1)} ms in all`,
    )
    figure({
      group: 'ingest flood',
      name: `Redis keys after a ${SECONDS} s random-value flood`,
      value: keys,
      unit: 'keys',
      note: `${events} visits; used_memory ${(used / 1e6).toFixed(1)} MB; the cap allows 2 × 1,001 value sketches per site-day`,
    })
    figure({
      group: 'ingest flood',
      name: 'longest Redis command during an analytics read after the flood (geo and system rows)',
      value: Number((longest[0] / 1000).toFixed(2)),
      unit: 'ms',
      target: '<= 10',
      targetOf: 'value',
      note: `${longest[1]}; ${log.length} commands, ${readMs.toFixed(1)} ms for both reads (SLOWLOG of its own redis-server)`,
    })
    await engine.close()
  } finally {
    admin.disconnect()
    child.kill('SIGKILL')
  }
}
