/**
 * A random-value flood (issue 23): FLOOD_SECONDS (30 s) of visits to one
 * site, each with a new country, region, User-Agent and visitor id, through
 * engine.recordVisit, on MemoryStore and on RedisStore (its own redis-server
 * on a free port, so SLOWLOG is ours). Reports what grew (heap, Redis keys
 * and bytes) against the cap (maxDimensionValues 1,000), and the longest
 * Redis command during an analytics read of that day by each dimension.
 * The flood itself is benchmark/lib/beacon-flood.ts, which `npm run
 * reliability` runs too.
 *
 *   npx tsx benchmark/ingest-flood.ts     (FLOOD_SECONDS; needs redis-server on PATH for Redis)
 */
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { memoryFlood, redisFlood } from './lib/beacon-flood.js'
import { figure } from './lib/report.js'

const SECONDS = Number(process.env.FLOOD_SECONDS ?? 30)

// ----------------------------------------------------------------- memory
{
  const { events, heapBytes, gcExposed } = await memoryFlood(SECONDS)
  console.log(`MemoryStore: ${events} flood visits in ${SECONDS} s, heap +${(heapBytes / 1e6).toFixed(1)} MB`)
  figure({
    group: 'ingest flood',
    name: `MemoryStore heap growth after a ${SECONDS} s random-value flood`,
    value: Number((heapBytes / 1e6).toFixed(1)),
    unit: 'MB',
    note: `${events} visits, each a new country, region, User-Agent and visitor id; the cap keeps 1,000 values per dimension; visitor ids (exact) are what still grows${gcExposed ? '' : ' (run without --expose-gc: heap figures include garbage)'}`,
  })
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
  try {
    const r = await redisFlood(`redis://127.0.0.1:${port}`, SECONDS)
    const mb = (r.usedMemory / 1e6).toFixed(1)
    console.log(`RedisStore: ${r.events} flood visits, ${r.keys} keys, used_memory ${mb} MB`)
    console.log(
      `longest command during the read: ${r.longestMicros} µs (${r.longestCommand}), ${r.commands} commands, ${r.readMs.toFixed(1)} ms in all`,
    )
    figure({
      group: 'ingest flood',
      name: `Redis keys after a ${SECONDS} s random-value flood`,
      value: r.keys,
      unit: 'keys',
      note: `${r.events} visits; used_memory ${mb} MB; the cap allows 2 × 1,001 value sketches per site-day`,
    })
    figure({
      group: 'ingest flood',
      name: 'longest Redis command during an analytics read after the flood (geo and system rows)',
      value: Number((r.longestMicros / 1000).toFixed(2)),
      unit: 'ms',
      target: '<= 10',
      targetOf: 'value',
      note: `${r.longestCommand}; ${r.commands} commands, ${r.readMs.toFixed(1)} ms for both reads (SLOWLOG of its own redis-server)`,
    })
  } finally {
    child.kill('SIGKILL')
  }
}
