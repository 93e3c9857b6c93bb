/**
 * The cost of operating: the API GET path (`GET /api/sites/{site_name}`,
 * MemoryStore, HTTP Basic) on startServer with a pino access log at the
 * default level (info) and Prometheus metrics, against the same server
 * without them. Goal: the observed server keeps >= 0.95 of the plain one's
 * throughput. Interleaved rounds (autocannon, 10 connections), one server
 * process per variant (ops-server.mjs); also the server CPU per request.
 *
 *   npm run build && npx tsx benchmark/ops.ts     BENCH_DURATION (s), BENCH_ROUNDS
 */
import { type ChildProcess, fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { autocannon } from './lib/autocannon.js'
import { figure } from './lib/report.js'
import { serverStats } from './lib/spawn-server.js'

const DURATION = Number(process.env.BENCH_DURATION ?? 2)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
const HEADERS = { authorization: `Basic ${Buffer.from('bench:bench-password').toString('base64')}` }
const script = fileURLToPath(new URL('./ops-server.mjs', import.meta.url))

interface Server {
  child: ChildProcess
  url: string
}

async function start(mode: 'plain' | 'observed'): Promise<Server> {
  const child = fork(script, [mode], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  const { port } = await new Promise<{ port: number }>((resolve) => child.once('message', (m) => resolve(m as never)))
  return { child, url: `http://127.0.0.1:${port}/api/sites/benchsite` }
}

async function measure(server: Server): Promise<{ rps: number; cpu: number }> {
  const before = await serverStats(server.child)
  const result = await autocannon({ url: server.url, connections: 10, duration: DURATION, headers: HEADERS })
  const after = await serverStats(server.child)
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`)
  return {
    rps: result.requests.average,
    cpu: (after.cpuMicros - before.cpuMicros) / (after.requests - before.requests),
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

const plain = await start('plain')
const observed = await start('observed')
// Warm both up (JIT, the lazily loaded pino-http and prom-client).
await measure(plain)
await measure(observed)
const ratios: number[] = []
const cpuRatios: number[] = []
const plainRps: number[] = []
const observedRps: number[] = []
const plainCpu: number[] = []
const observedCpu: number[] = []
for (let round = 0; round < ROUNDS; round++) {
  // Alternating order, so drift on a shared machine hits both alike.
  const [a, b] = round % 2 ? [observed, plain] : [plain, observed]
  const first = await measure(a)
  const second = await measure(b)
  const [p, o] = a === plain ? [first, second] : [second, first]
  plainRps.push(p.rps)
  observedRps.push(o.rps)
  plainCpu.push(p.cpu)
  observedCpu.push(o.cpu)
  ratios.push(o.rps / p.rps)
  cpuRatios.push(p.cpu / o.cpu)
}
plain.child.disconnect()
observed.child.disconnect()

const round3 = (n: number) => Math.round(n * 1000) / 1000
console.log(`\nGET /api/sites/{site_name}, MemoryStore, 10 connections, ${ROUNDS} rounds of ${DURATION} s\n`)
console.log('| server | req/s | server CPU µs/request |\n|---|---:|---:|')
console.log(`| startServer alone | ${Math.round(median(plainRps))} | ${median(plainCpu).toFixed(1)} |`)
console.log(
  `| with pino access log (info) + metrics | ${Math.round(median(observedRps))} | ${median(observedCpu).toFixed(1)} |`,
)
console.log(`\nthroughput ratio (paired median): ${round3(median(ratios))}; CPU ratio: ${round3(median(cpuRatios))}`)
figure({
  group: 'operations',
  name: 'GET /sites/{site_name}: access log (info) + metrics',
  value: Math.round(median(observedRps)),
  unit: 'req/s',
  anchor: 'the same server without them',
  anchorValue: Math.round(median(plainRps)),
  ratio: round3(median(ratios)),
  target: '>= 0.95',
  note: 'MemoryStore, 10 connections; logs to /dev/null through pino.destination',
})
figure({
  group: 'operations',
  name: 'GET /sites/{site_name}: access log (info) + metrics, server CPU per request',
  value: Number(median(observedCpu).toFixed(1)),
  unit: 'µs',
  anchor: 'the same server without them',
  anchorValue: Number(median(plainCpu).toFixed(1)),
  ratio: round3(median(cpuRatios)),
  note: 'ratio = plain CPU / observed CPU (the throughput ratio when CPU-bound)',
})
