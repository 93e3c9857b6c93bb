/**
 * What admin mode (request journal + fault check) costs the API: GET of one
 * site with admin off, admin on, and bare Express answering the same JSON, in
 * one run. One server process per variant (admin-server.mjs), autocannon in
 * interleaved rounds so drift on a shared machine hits every variant alike;
 * ratios are medians of per-round ratios, in req/s and in server CPU per
 * request (steadier on a shared machine). With admin on, the journal is at
 * its steady state (full, evicting) after the warm-up, and one fault that
 * never matches is checked on every call.
 *
 *   npm run build && npx tsx benchmark/admin.ts     (BENCH_DURATION s, BENCH_ROUNDS)
 */
import type { ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { autocannon, checked } from './lib/autocannon.js'
import { figure } from './lib/report.js'
import { serverStats, spawnServer } from './lib/spawn-server.js'

const DURATION = Number(process.env.BENCH_DURATION ?? 1)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
const CONNECTIONS = 10
const HEADERS = { authorization: `Basic ${Buffer.from('bench:bench-password').toString('base64')}` }
const script = fileURLToPath(new URL('./admin-server.mjs', import.meta.url))
const lib = fileURLToPath(new URL('../dist/esm/lib', import.meta.url))

interface Server {
  label: string
  origin: string
  child: ChildProcess
}
interface Sample {
  rps: number
  cpu: number
}

async function start(label: string, mode: string): Promise<Server> {
  return { label, ...(await spawnServer(script, [mode, lib], label)) }
}

async function run(server: Server, duration: number): Promise<Sample> {
  const before = await serverStats(server.child)
  const r = await autocannon({
    url: `${server.origin}/api/sites/benchsite`,
    connections: CONNECTIONS,
    duration,
    headers: HEADERS,
  })
  const after = await serverStats(server.child)
  checked(r, server.label)
  return { rps: r.requests.average, cpu: (after.cpuMicros - before.cpuMicros) / (after.requests - before.requests) }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}
const paired = (a: Sample[], b: Sample[], of: (s: Sample) => number) => median(a.map((s, i) => of(s) / of(b[i]!)))
const r3 = (x: number) => Number(x.toFixed(3))

const servers = await Promise.all([start('bare Express', 'bare'), start('admin off', 'off'), start('admin on', 'on')])
try {
  for (const server of servers) await run(server, 2) // warm-up; fills the journal past its 10,000 entries
  const samples = new Map(servers.map((s) => [s.label, [] as Sample[]]))
  for (let round = 0; round < ROUNDS; round++)
    for (const server of servers) samples.get(server.label)!.push(await run(server, DURATION))
  const bare = samples.get('bare Express')!
  const off = samples.get('admin off')!
  const on = samples.get('admin on')!
  console.log(`GET /api/sites/{site_name}, ${ROUNDS} interleaved rounds x ${DURATION} s, ${CONNECTIONS} connections\n`)
  console.log('| variant | req/s | / bare Express | / admin off | server CPU µs per request |')
  console.log('|---|---:|---:|---:|---:|')
  for (const [label, list] of samples) {
    console.log(
      `| ${label} | ${Math.round(median(list.map((s) => s.rps)))} | ${paired(list, bare, (s) => s.rps).toFixed(3)} | ${paired(list, off, (s) => s.rps).toFixed(3)} | ${median(list.map((s) => s.cpu)).toFixed(1)} |`,
    )
  }
  const note = `medians of ${ROUNDS} interleaved ${DURATION} s autocannon runs, ${CONNECTIONS} connections; ratio = median of per-round ratios`
  const rps = (s: Sample) => s.rps
  const cpu = (s: Sample) => 1 / s.cpu
  // req/s of each variant against its anchor, in the same rounds.
  const rpsFigures: [string, Sample[], string, Sample[]][] = [
    ['admin off', off, 'bare Express', bare],
    ['admin on (journal + fault check)', on, 'bare Express', bare],
    ['admin on', on, 'admin off', off],
  ]
  for (const [name, list, anchor, anchorList] of rpsFigures) {
    figure({
      group: 'Test double',
      name: `GET /sites/{site_name}: ${name}`,
      value: Math.round(median(list.map(rps))),
      unit: 'req/s',
      anchor,
      anchorValue: Math.round(median(anchorList.map(rps))),
      ratio: r3(paired(list, anchorList, rps)),
      note,
    })
  }
  figure({
    group: 'Test double',
    name: 'GET /sites/{site_name}: admin on, server CPU per request',
    value: Number(median(on.map((s) => s.cpu)).toFixed(1)),
    unit: 'µs',
    anchor: 'admin off',
    anchorValue: Number(median(off.map((s) => s.cpu)).toFixed(1)),
    ratio: r3(paired(on, off, cpu)),
    note: 'ratio = admin-off CPU / admin-on CPU (the throughput ratio when CPU-bound)',
  })
} finally {
  for (const server of servers) server.child.kill()
}
