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
 * Each variant runs in BENCH_PROCESSES processes, and a round measures every
 * one of them: how fast a Node process serves these requests is partly a
 * draw. Of six identical silent CLIs on Node 20, some spent about 40 µs of
 * CPU per request and others 50-65, the same in every round. In the slow
 * ones `process.nextTick` (called several times a request by Node's streams
 * and http code) took ten times its usual self time, because the feedback
 * of its `tickObject` literal had gone megamorphic: a full GC while no tick
 * was queued collected the literal's maps, and Node 20's V8 turns that
 * feedback megamorphic on any change of map. Node 22 and 24 kept it
 * monomorphic, and their processes spread as well. Servers now pin that
 * literal's shape (lib/server/shape-pins.ts); the spread remains. With one process per
 * variant, one draw could move the ratio below by a fifth (0.78-0.94 from
 * run to run); with several, each variant's figure is an average of draws.
 *
 * Time draws too: on the 2-core AMD host (2026-12-01) the same process spent
 * about 55 µs of CPU per request in one 3-second run and about 100 in the
 * next, often every server at once, while a fixed loop in a lone process kept
 * its speed. Loading two servers at the same time on one pinned CPU did not
 * steady it (silent against silent read 0.91 and 1.06 in two runs). So a
 * control, a second set of silent CLIs, runs as one more variant: its ratio
 * to silent shows how far apart identical servers read in this run. Every
 * server runs on one CPU and autocannon on the other (lib/cpu.ts), one
 * server loaded at a time.
 *
 *   npm run build && npx tsx benchmark/cli-server.ts     BENCH_DURATION (s), BENCH_ROUNDS, BENCH_PROCESSES
 */
import type { ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { figure } from './lib/report.js'
import { CLIENT_CPU, SERVER_CPU, loadRun, median, pin } from './lib/cpu.js'
import { HEADERS, SILENT, SITE_PATH, startCli } from './lib/cli.js'
import { spawnServer } from './lib/spawn-server.js'

const DURATION = Number(process.env.BENCH_DURATION ?? 2)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const PROCESSES = Number(process.env.BENCH_PROCESSES ?? 3)
const CONNECTIONS = 20
const root = fileURLToPath(new URL('..', import.meta.url))

interface Server {
  label: string
  child: ChildProcess
  origin: string
}

/** The CLI with `flags`, as one server of a variant. */
async function startCliServer(label: string, flags: string[]): Promise<Server> {
  return { label, ...(await startCli(label, flags)) }
}

/** One run of autocannon against `server`: its requests and the CPU its process spent on them. */
function measure(server: Server): ReturnType<typeof loadRun> {
  return loadRun({ ...server, url: `${server.origin}${SITE_PATH}` }, HEADERS, CONNECTIONS, DURATION)
}

/** One variant: its label and its processes. */
interface Variant {
  label: string
  processes: Server[]
}

/** `PROCESSES` processes of one variant, started one after another. */
async function variant(label: string, start: () => Promise<Omit<Server, 'label'>>): Promise<Variant> {
  const processes: Server[] = []
  for (let i = 0; i < PROCESSES; i++) processes.push({ label, ...(await start()) })
  return { label, processes }
}

const variants: Variant[] = [
  await variant('bare Express', () => spawnServer(`${root}benchmark/api-server.mjs`, ['bare'], 'bare Express')),
  await variant('CLI, defaults (access log, metrics)', () => startCliServer('CLI, defaults', [])),
  await variant('CLI, --log-level silent --no-metrics', () => startCliServer('CLI, silent', SILENT)),
  await variant('startServer, no logger, no metrics', () =>
    spawnServer(`${root}benchmark/ops-server.mjs`, ['plain'], 'startServer'),
  ),
  // One feature each, so the CPU column shows what the access line and the metrics cost apart.
  await variant('CLI, --no-metrics (access log only)', () => startCliServer('CLI, access log', ['--no-metrics'])),
  await variant('CLI, --log-level silent (metrics only)', () =>
    startCliServer('CLI, metrics', ['--log-level', 'silent']),
  ),
  // The same as silent, so its ratio to silent shows how far apart identical servers read here.
  await variant('Control: CLI, silent again', () => startCliServer('CLI, silent again', SILENT)),
]
// Every server on one CPU, the client on the other (lib/cpu.ts): one server is loaded at a time.
const pinned =
  pin(process.pid, CLIENT_CPU) && variants.every((v) => v.processes.every((p) => pin(p.child.pid!, SERVER_CPU)))
const [bareServer, defaults, silent] = variants as [Variant, Variant, Variant, ...Variant[]]
const control = variants.at(-1)!
/** Per variant, per round: req/s over all its processes, and CPU µs per request. */
const results = new Map(variants.map((v) => [v, [] as { rps: number; cpu: number }[]]))
const ratioOf = (a: Variant, b: Variant): number[] => results.get(a)!.map((r, i) => r.rps / results.get(b)![i]!.rps)
try {
  for (const v of variants) for (const p of v.processes) await measure(p) // warm-up: JIT, lazily loaded modules
  for (let round = 0; round < ROUNDS; round++) {
    // Rotating order, so drift on a shared machine hits every variant alike.
    const order = variants.map((_, i) => variants[(i + round) % variants.length]!)
    for (const v of order) {
      const runs: Awaited<ReturnType<typeof measure>>[] = []
      for (const p of v.processes) runs.push(await measure(p))
      const sum = (key: 'requests' | 'seconds' | 'cpu'): number => runs.reduce((n, r) => n + r[key], 0)
      results.get(v)!.push({ rps: sum('requests') / sum('seconds'), cpu: sum('cpu') / sum('requests') })
    }
  }
} finally {
  for (const v of variants) for (const p of v.processes) p.child.kill('SIGTERM')
}

const cpuOf = (v: Variant): string => median(results.get(v)!.map((r) => r.cpu)).toFixed(1)
console.log(
  `\nGET /api/sites/{site_name}, MemoryStore, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION} s on each of ${PROCESSES} processes per server\n`,
)
console.log('| server | req/s | CPU µs/request | × bare Express (paired median) |\n|---|---:|---:|---:|')
for (const v of variants) {
  const rps = Math.round(median(results.get(v)!.map((r) => r.rps)))
  console.log(`| ${v.label} | ${rps} | ${cpuOf(v)} | ${median(ratioOf(v, bareServer)).toFixed(3)} |`)
}
const spread = (xs: number[]): string => `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`
const rpsOf = (v: Variant): number => Math.round(median(results.get(v)!.map((r) => r.rps)))
const note = `MemoryStore, HTTP Basic, ${CONNECTIONS} connections, ${pinned ? 'servers pinned to one CPU and the client to the other' : 'not pinned'}, ${ROUNDS} interleaved rounds of ${DURATION} s on each of ${PROCESSES} processes per server; stdout to /dev/null; ratio = median of per-round ratios`
figure({
  group: 'operations',
  name: 'CLI defaults (access log, metrics): GET /sites/{site_name}',
  value: rpsOf(defaults),
  unit: 'req/s',
  anchor: 'the same CLI, --log-level silent --no-metrics',
  anchorValue: rpsOf(silent),
  ratio: Number(median(ratioOf(defaults, silent)).toFixed(3)),
  target: '>= 0.95',
  note: `${note}; CPU ${cpuOf(defaults)} µs/request (silent ${cpuOf(silent)}); per-round ratios ${spread(ratioOf(defaults, silent))}; the control below is this figure's noise`,
})
figure({
  group: 'operations',
  name: 'Control: another silent CLI against the silent CLI: GET /sites/{site_name}',
  value: rpsOf(control),
  unit: 'req/s',
  anchor: 'the same CLI, --log-level silent --no-metrics',
  anchorValue: rpsOf(silent),
  ratio: Number(median(ratioOf(control, silent)).toFixed(3)),
  note: `${note}; identical servers, so any distance from 1 is noise; per-round ratios ${spread(ratioOf(control, silent))}; CPU ${cpuOf(control)} µs/request (silent ${cpuOf(silent)})`,
})
for (const v of variants.slice(1, -1)) {
  figure({
    group: 'operations',
    name: `${v.label}: GET /sites/{site_name}`,
    value: rpsOf(v),
    unit: 'req/s',
    anchor: 'bare Express, same JSON',
    anchorValue: rpsOf(bareServer),
    ratio: Number(median(ratioOf(v, bareServer)).toFixed(3)),
    ...(v === defaults ? { target: '>= 1.0' } : {}),
    note: `${note}; CPU ${cpuOf(v)} µs/request (bare Express ${cpuOf(bareServer)})`,
  })
}
