/**
 * API throughput next to its anchors, in one run: raw node:http, bare
 * Express answering the same JSON, apiRouter on MemoryStore and (with
 * REDIS_URL) on RedisStore. Three loads: GET of one site and POST create +
 * DELETE of a new site at 10 connections, and (with REDIS_URL) GET at 100
 * connections for bare Express and the two stores. autocannon drives one server process per variant
 * (api-server.mjs, plain JS so no loader runs in it), in interleaved rounds
 * so drift on a shared machine hits every variant alike; each run also reads
 * the server's CPU time per request, which is steadier than req/s here.
 *
 *   npm run build && npx tsx benchmark/api.ts [label=/path/to/dist/esm/lib/index.js ...]
 *
 * Extra `label=entry` arguments add other builds (e.g. an older commit's) on
 * MemoryStore to the same rounds. BENCH_DURATION (s) and BENCH_ROUNDS tune it.
 * Redis keys go under a random `mobisite-bench:<hex>:` prefix, deleted after.
 */
import type { ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { autocannon, type CannonRequest, checked } from './lib/autocannon.js'
import { deleteRedisPrefixes } from './lib/cleanup.js'
import { figure } from './lib/report.js'
import { serverStats, spawnServer } from './lib/spawn-server.js'

const DURATION = Number(process.env.BENCH_DURATION ?? 1)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15)
const CONNECTIONS = 10
/**
 * The saturated load: as many connections as fastify's own benchmarks use.
 * With 10, each connection waits for its answer before asking again, so
 * RedisStore's extra loopback round trip (about 17 µs wall, most of it
 * waiting for redis-server to be scheduled on this 2-core host shared with
 * autocannon) lengthens every request and the ratio measures latency; with
 * 100 the server is busy all the time and the ratio measures its work.
 */
const SATURATED = 100
const GET_SATURATED = `GET /sites/{site_name}, ${SATURATED} connections`
const REDIS_URL = process.env.REDIS_URL
const HEADERS = { authorization: `Basic ${Buffer.from('bench:bench-password').toString('base64')}` }
const script = fileURLToPath(new URL('./api-server.mjs', import.meta.url))
const here = fileURLToPath(new URL('../dist/esm/lib/index.js', import.meta.url))

interface Variant {
  label: string
  args: string[]
}
interface Server extends Variant {
  origin: string
  child: ChildProcess
}

async function start(variant: Variant): Promise<Server> {
  return { ...variant, ...(await spawnServer(script, variant.args, variant.label)) }
}

let created = 0
/** The two loads. Site names are unique across the whole run, so creates never collide. */
const LOADS: Record<string, (origin: string) => { url: string; requests?: CannonRequest[] }> = {
  'GET /sites/{site_name}': (origin) => ({ url: `${origin}/api/sites/benchsite` }),
  [GET_SATURATED]: (origin) => ({ url: `${origin}/api/sites/benchsite` }),
  'POST /sites/create + DELETE /sites/{site_name}': (origin) => ({
    url: origin,
    requests: [
      {
        method: 'POST',
        path: '/api/sites/create',
        setupRequest(req, context) {
          context.name = `bench${(created++).toString(36)}`
          return {
            ...req,
            headers: { ...HEADERS, 'content-type': 'application/json' },
            body: JSON.stringify({
              site_data: { site_name: context.name, original_site_url: 'https://www.example.com/' },
            }),
          }
        },
      },
      {
        method: 'DELETE',
        setupRequest: (req, context) => ({ ...req, path: `/api/sites/${context.name as string}`, headers: HEADERS }),
      },
    ],
  }),
}

interface Sample {
  rps: number
  cpuPerRequest: number
}

async function run(server: Server, load: string, duration: number): Promise<Sample> {
  const before = await serverStats(server.child)
  const spec = LOADS[load]!(server.origin)
  const connections = load === GET_SATURATED ? SATURATED : CONNECTIONS
  const r = await autocannon({ ...spec, connections, duration, headers: HEADERS })
  const after = await serverStats(server.child)
  checked(r, `${server.label}, ${load}`)
  return {
    rps: r.requests.average,
    cpuPerRequest: (after.cpuMicros - before.cpuMicros) / (after.requests - before.requests),
  }
}

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** A variant under one load: medians of the rounds, and medians of its per-round ratios to bare Express. */
interface Summary {
  rps: number
  cpu: number
  rpsRatio: number
  cpuRatio: number
  samples: Sample[]
}

/** The median over rounds of a/b, each pair measured in the same round. */
const pairedRatio = (a: Sample[], b: Sample[], of: (s: Sample) => number): number =>
  median(a.map((s, i) => of(s) / of(b[i]!)))

const prefix = `mobisite-bench:${randomBytes(6).toString('hex')}:`
const variants: Variant[] = [
  { label: 'raw node:http', args: ['raw'] },
  { label: 'bare Express', args: ['bare'] },
  { label: 'apiRouter, MemoryStore', args: ['api', here, 'memory'] },
  ...process.argv.slice(2).map((arg) => {
    const [label, entry] = arg.split('=') as [string, string]
    return { label: `apiRouter ${label}, MemoryStore`, args: ['api', entry, 'memory'] }
  }),
]
if (REDIS_URL) variants.push({ label: 'apiRouter, RedisStore', args: ['api', here, REDIS_URL, prefix] })
else console.log('REDIS_URL not set: the RedisStore variant is skipped')

const allServers = await Promise.all(variants.map(start))
const results = new Map<string, Map<string, Summary>>()
try {
  console.log(
    `autocannon, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds (every other one in reverse order) x ${DURATION} s per variant and load`,
  )
  for (const load of Object.keys(LOADS)) {
    // The saturated load compares the stores (and bare Express, the ratios' anchor) only.
    const servers = load === GET_SATURATED ? allServers.filter((s) => s.label !== 'raw node:http') : allServers
    if (load === GET_SATURATED && !REDIS_URL) continue
    for (const server of servers) await run(server, load, 1) // warm-up
    const samples = new Map<string, Sample[]>(servers.map((s) => [s.label, []]))
    for (let round = 0; round < ROUNDS; round++) {
      // Every other round in reverse order, so no variant always runs right after another.
      const order = round % 2 === 0 ? servers : [...servers].reverse()
      for (const server of order) samples.get(server.label)!.push(await run(server, load, DURATION))
    }
    // Ratios are taken round by round (variants measured moments apart share the machine's load), then the median.
    const bareSamples = samples.get('bare Express')!
    const summary = new Map<string, Summary>()
    for (const [label, list] of samples) {
      summary.set(label, {
        rps: median(list.map((s) => s.rps)),
        cpu: median(list.map((s) => s.cpuPerRequest)),
        rpsRatio: median(list.map((s, i) => s.rps / bareSamples[i]!.rps)),
        cpuRatio: median(list.map((s, i) => bareSamples[i]!.cpuPerRequest / s.cpuPerRequest)),
        samples: list,
      })
    }
    results.set(load, summary)
    console.log(`\n${load}\n\n| variant | req/s | / bare Express | server CPU µs per request | bare CPU / this CPU |`)
    console.log('|---|---:|---:|---:|---:|')
    for (const [label, s] of summary) {
      console.log(
        `| ${label} | ${Math.round(s.rps)} | ${s.rpsRatio.toFixed(3)} | ${s.cpu.toFixed(1)} | ${s.cpuRatio.toFixed(3)} |`,
      )
    }
  }

  const round3 = (x: number) => Number(x.toFixed(3))
  const rps = (s: Sample) => s.rps
  const noteFor = (connections: number) =>
    `medians of ${ROUNDS} interleaved (alternately reversed) ${DURATION} s autocannon runs, ${connections} connections; ratio = median of per-round ratios`
  /** A req/s figure of `label` in `short`, against `anchorLabel`. */
  const rpsFigure = (
    short: string,
    label: string,
    s: Summary,
    anchorLabel: string,
    anchor: Summary,
    ratio: number,
    note: string,
    target?: string,
  ) =>
    figure({
      group: 'API',
      name: `${short}: ${label}`,
      value: Math.round(s.rps),
      unit: 'req/s',
      anchor: anchorLabel,
      anchorValue: Math.round(anchor.rps),
      ratio: round3(ratio),
      ...(target ? { target } : {}),
      note,
    })
  /** RedisStore's req/s against MemoryStore's in the same rounds. */
  const redisFigure = (short: string, redis: Summary, memory: Summary, note: string, more: string, target?: string) =>
    rpsFigure(
      short,
      'apiRouter, RedisStore',
      redis,
      'apiRouter, MemoryStore',
      memory,
      pairedRatio(redis.samples, memory.samples, rps),
      `${note}; Redis on loopback${more}`,
      target,
    )
  const report = (load: string, short: string, target: string | undefined) => {
    const summary = results.get(load)!
    const bare = summary.get('bare Express')!
    const raw = summary.get('raw node:http')!
    const memory = summary.get('apiRouter, MemoryStore')!
    const note = noteFor(CONNECTIONS)
    figure({
      group: 'API',
      name: `${short}: bare Express`,
      value: Math.round(bare.rps),
      unit: 'req/s',
      anchor: 'raw node:http',
      anchorValue: Math.round(raw.rps),
      ratio: round3(pairedRatio(bare.samples, raw.samples, rps)),
      note,
    })
    figure({
      group: 'API',
      name: `${short}: apiRouter, MemoryStore`,
      value: Math.round(memory.rps),
      unit: 'req/s',
      anchor: 'bare Express',
      anchorValue: Math.round(bare.rps),
      ratio: round3(memory.rpsRatio),
      ...(target ? { target } : {}),
      note: `${note}; HTTP Basic on every request`,
    })
    figure({
      group: 'API',
      name: `${short}: apiRouter, MemoryStore, server CPU per request`,
      value: Number(memory.cpu.toFixed(1)),
      unit: 'µs',
      anchor: 'bare Express',
      anchorValue: Number(bare.cpu.toFixed(1)),
      ratio: round3(memory.cpuRatio),
      note: 'ratio = bare CPU / apiRouter CPU (the throughput ratio when CPU-bound)',
    })
    figure({
      group: 'API',
      name: `${short}: apiRouter, MemoryStore`,
      value: Math.round(memory.rps),
      unit: 'req/s',
      anchor: 'raw node:http',
      anchorValue: Math.round(raw.rps),
      ratio: round3(pairedRatio(memory.samples, raw.samples, rps)),
      note,
    })
    const redis = summary.get('apiRouter, RedisStore')
    if (redis) {
      const latency = load.startsWith('GET') ? `; latency-bound, the target is on the ${SATURATED}-connection row` : ''
      redisFigure(short, redis, memory, note, latency)
    }
  }
  /** The stores side by side with the server saturated; bare Express for reference. */
  const reportSaturated = () => {
    const summary = results.get(GET_SATURATED)
    if (summary === undefined) return
    const bare = summary.get('bare Express')!
    const memory = summary.get('apiRouter, MemoryStore')!
    const redis = summary.get('apiRouter, RedisStore')!
    const short = `GET one site, ${SATURATED} connections`
    rpsFigure(short, 'apiRouter, MemoryStore', memory, 'bare Express', bare, memory.rpsRatio, noteFor(SATURATED))
    const cpu = `; server CPU per request ${redis.cpu.toFixed(1)} µs vs ${memory.cpu.toFixed(1)} µs`
    redisFigure(short, redis, memory, noteFor(SATURATED), cpu, '>= 0.90')
  }
  report('GET /sites/{site_name}', 'GET one site', '>= 0.90 (aim 0.95)')
  report('POST /sites/create + DELETE /sites/{site_name}', 'create + delete', '>= 0.80')
  reportSaturated()
} finally {
  for (const server of allServers) server.child.disconnect()
  if (REDIS_URL) await deleteRedisPrefixes(REDIS_URL, [prefix])
}
