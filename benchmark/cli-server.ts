/**
 * The server as operators run it: the CLI (`node dist/esm/lib/cli/index.js`)
 * with its defaults (a JSON access-log line per request on stdout, `/metrics`
 * on), against the same CLI with `--log-level silent --no-metrics` and with
 * each of the two alone (so the CPU column prices them apart), against
 * `startServer` with neither (ops-server.mjs), and against bare Express
 * answering the same JSON (api-server.mjs). `GET /api/sites/{site_name}`,
 * MemoryStore, HTTP Basic, 20 connections, interleaved rounds; the CLI's
 * stdout goes to /dev/null, as a log shipper reading a file would cost it
 * nothing more. Also each server's CPU per request (Linux /proc).
 *
 *   npm run build && npx tsx benchmark/cli-server.ts     BENCH_DURATION (s), BENCH_ROUNDS
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { openSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { autocannon, checked } from './lib/autocannon.js'
import { figure } from './lib/report.js'
import { freePort, killOnExit, spawnServer } from './lib/spawn-server.js'

const DURATION = Number(process.env.BENCH_DURATION ?? 2)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
const CONNECTIONS = 20
const USER = 'bench'
const PASSWORD = 'bench-password'
const HEADERS = { authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}` }
const root = fileURLToPath(new URL('..', import.meta.url))
const cli = `${root}dist/esm/lib/cli/index.js`

interface Server {
  label: string
  child: ChildProcess
  origin: string
}

/**
 * The environment for a CLI: its default log level whatever the caller's shell says, and the
 * memory store even where REDIS_URL or DATABASE_URL is set (npm run bench sets them).
 */
function cliEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { LOG_LEVEL: _, REDIS_URL: _r, DATABASE_URL: _d, ...rest } = env
  return { ...rest, MOBISITE_STORE: 'memory', MOBISITE_USER: USER, MOBISITE_PASSWORD: PASSWORD }
}

/** Starts the CLI with `flags`, stdout to /dev/null, and creates the site it will serve. */
async function startCli(label: string, flags: string[]): Promise<Server> {
  const port = await freePort()
  const child = spawn(process.execPath, [cli, '--port', String(port), ...flags], {
    env: cliEnvironment(process.env),
    stdio: ['ignore', openSync('/dev/null', 'w'), 'inherit'],
  })
  killOnExit(child)
  const origin = `http://127.0.0.1:${port}`
  for (let tries = 0; ; tries++) {
    try {
      const answer = await fetch(`${origin}/api/sites/create`, {
        method: 'POST',
        headers: { ...HEADERS, 'content-type': 'application/json' },
        body: JSON.stringify({ site_data: { site_name: 'benchsite', original_site_url: 'https://www.example.com/' } }),
      })
      if (answer.status !== 200) throw new Error(`${label}: create answered ${answer.status}`)
      return { label, child, origin }
    } catch (error) {
      if (tries > 300 || child.exitCode !== null) throw error
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
}

/** CPU microseconds the process has used so far (Linux; utime + stime in 10 ms ticks). */
function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

async function measure(server: Server): Promise<{ rps: number; cpu: number }> {
  const before = cpuMicros(server.child.pid!)
  const result = checked(
    await autocannon({
      url: `${server.origin}/api/sites/benchsite`,
      connections: CONNECTIONS,
      duration: DURATION,
      headers: HEADERS,
    }),
    server.label,
  )
  return { rps: result.requests.average, cpu: (cpuMicros(server.child.pid!) - before) / result.requests.total }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

const bare = await spawnServer(`${root}benchmark/api-server.mjs`, ['bare'], 'bare Express')
const plain = await spawnServer(`${root}benchmark/ops-server.mjs`, ['plain'], 'startServer')
const servers: Server[] = [
  { label: 'bare Express', ...bare },
  await startCli('CLI, defaults (access log, metrics)', []),
  await startCli('CLI, --log-level silent --no-metrics', ['--log-level', 'silent', '--no-metrics']),
  { label: 'startServer, no logger, no metrics', ...plain },
  // One feature each, so the CPU column shows what the access line and the metrics cost apart.
  await startCli('CLI, --no-metrics (access log only)', ['--no-metrics']),
  await startCli('CLI, --log-level silent (metrics only)', ['--log-level', 'silent']),
]
const [bareServer, defaults, silent] = servers as [Server, Server, Server, ...Server[]]
const results = new Map(servers.map((s) => [s, [] as { rps: number; cpu: number }[]]))
const ratioOf = (a: Server, b: Server): number[] => results.get(a)!.map((r, i) => r.rps / results.get(b)![i]!.rps)
try {
  for (const server of servers) await measure(server) // warm-up: JIT, lazily loaded modules
  for (let round = 0; round < ROUNDS; round++) {
    // Rotating order, so drift on a shared machine hits every variant alike.
    const order = servers.map((_, i) => servers[(i + round) % servers.length]!)
    for (const server of order) results.get(server)!.push(await measure(server))
  }
} finally {
  for (const server of servers) server.child.kill('SIGTERM')
}

console.log(
  `\nGET /api/sites/{site_name}, MemoryStore, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION} s\n`,
)
console.log('| server | req/s | CPU µs/request | × bare Express (paired median) |\n|---|---:|---:|---:|')
for (const server of servers) {
  const rows = results.get(server)!
  console.log(
    `| ${server.label} | ${Math.round(median(rows.map((r) => r.rps)))} | ${median(rows.map((r) => r.cpu)).toFixed(1)} | ${median(ratioOf(server, bareServer)).toFixed(3)} |`,
  )
}
const rpsOf = (server: Server): number => Math.round(median(results.get(server)!.map((r) => r.rps)))
const note = `MemoryStore, HTTP Basic, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${DURATION} s; stdout to /dev/null; ratio = median of per-round ratios`
figure({
  group: 'operations',
  name: 'CLI defaults (access log, metrics): GET /sites/{site_name}',
  value: rpsOf(defaults),
  unit: 'req/s',
  anchor: 'the same CLI, --log-level silent --no-metrics',
  anchorValue: rpsOf(silent),
  ratio: Number(median(ratioOf(defaults, silent)).toFixed(3)),
  target: '>= 0.95',
  note,
})
for (const server of servers.slice(1)) {
  figure({
    group: 'operations',
    name: `${server.label}: GET /sites/{site_name}`,
    value: rpsOf(server),
    unit: 'req/s',
    anchor: 'bare Express, same JSON',
    anchorValue: rpsOf(bareServer),
    ratio: Number(median(ratioOf(server, bareServer)).toFixed(3)),
    ...(server === defaults ? { target: '>= 1.0' } : {}),
    note: `${note}; CPU ${median(results.get(server)!.map((r) => r.cpu)).toFixed(1)} µs/request (bare Express ${median(results.get(bareServer)!.map((r) => r.cpu)).toFixed(1)})`,
  })
}
