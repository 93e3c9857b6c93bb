/**
 * The CLI's defaults (access log, metrics) against the same CLI silent
 * (`--log-level silent --no-metrics`), counted in instructions rather than
 * timed: each CLI runs under valgrind's callgrind, warmed up uncounted, and
 * then the instructions of a fixed number of `GET /api/sites/{site_name}`
 * are counted. A count does not move with what else the machine runs; on the
 * 2-core AMD host the timed figure (cli-server.ts) could not tell 5 % apart
 * (its control, identical servers, read 0.93-1.18 of each other between
 * runs). What a count leaves out: the kernel (the socket writes, about half
 * a request's CPU here, which the defaults barely add to), cache misses and
 * the cost of one instruction against another. So the ratio below is of
 * user-space work only, and a lower bound of the whole request's.
 *
 * The access log alone (`--no-metrics`) and the metrics alone
 * (`--log-level silent`) are counted too, so the rows tell what the two
 * share (the request id and its header, the observer, its listener and
 * timer) from what each adds on its own.
 *
 * The main thread's count is the one to read: the other threads compile and
 * collect garbage in the background, and whatever runs a scrypt (the
 * credential renewal, lib/engine/auth/masters.ts) is left out.
 *
 * Needs valgrind (`apt-get install valgrind`); without it this is skipped.
 *
 *   npm run build && npx tsx benchmark/cli-instructions.ts     BENCH_WARMUP, BENCH_COUNTED, BENCH_REPEATS
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { autocannon, checked } from './lib/autocannon.js'
import { figure } from './lib/report.js'
import { CLI, HEADERS, SILENT, SITE_PATH, cliEnvironment, createBenchSite } from './lib/cli.js'
import { freePort, killOnExit } from './lib/spawn-server.js'

const WARMUP = Number(process.env.BENCH_WARMUP ?? 40_000)
const COUNTED = Number(process.env.BENCH_COUNTED ?? 5_000)
const REPEATS = Number(process.env.BENCH_REPEATS ?? 2)
/** Few connections: under valgrind the server is some 50 times slower, and 4 keep it busy. */
const CONNECTIONS = 4

function hasValgrind(): boolean {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' })
    execFileSync('callgrind_control', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** Instructions counted in the dump files in `dir` (callgrind's `totals:` lines): the main thread's, and the other threads' but any that ran a scrypt. */
function threadTotals(dir: string): { main: number; background: number } {
  let main = 0
  let background = 0
  for (const name of readdirSync(dir)) {
    const text = readFileSync(join(dir, name), 'utf8')
    const total = Number(/^totals: (\d+)/m.exec(text)?.[1] ?? 0)
    if (/^thread: 1$/m.test(text)) main += total
    else if (!text.includes('scryptBlockMix')) background += total
  }
  return { main, background }
}

/** One CLI under callgrind: warmed up, then COUNTED requests counted. Instructions per request. */
async function count(label: string, flags: string[]): Promise<{ main: number; background: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'mobisite-callgrind-'))
  const port = await freePort()
  const child: ChildProcess = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      // V8 writes machine code at run time.
      '--smc-check=all-non-file',
      '--separate-threads=yes',
      `--callgrind-out-file=${join(dir, 'out')}`,
      process.execPath,
      CLI,
      '--port',
      String(port),
      ...flags,
    ],
    {
      env: cliEnvironment(process.env),
      stdio: ['ignore', 'ignore', 'ignore'],
    },
  )
  killOnExit(child)
  const origin = `http://127.0.0.1:${port}`
  try {
    // Under valgrind the CLI takes some seconds to start.
    await createBenchSite(origin, child, label, { tries: 600, retryMs: 200 })
    const load = (amount: number) =>
      autocannon({ url: `${origin}${SITE_PATH}`, connections: CONNECTIONS, amount, headers: HEADERS })
    checked(await load(WARMUP), label)
    execFileSync('callgrind_control', ['-i', 'on', String(child.pid)], { stdio: 'ignore' })
    checked(await load(COUNTED), label)
    execFileSync('callgrind_control', ['-i', 'off', String(child.pid)], { stdio: 'ignore' })
    execFileSync('callgrind_control', ['-d', String(child.pid)], { stdio: 'ignore' })
    const totals = threadTotals(dir)
    return { main: totals.main / COUNTED, background: totals.background / COUNTED }
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill()
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  }
}

if (!hasValgrind()) {
  console.log('valgrind not found: the instruction counts are skipped (apt-get install valgrind)')
} else {
  type Count = { main: number; background: number }
  type Variant = { label: string; flags: string[]; counts: Count[] }
  const silent: Variant = { label: 'silent', flags: SILENT, counts: [] }
  const defaults: Variant = { label: 'defaults', flags: [], counts: [] }
  // The two parts of the defaults, to tell what they share from what each adds.
  const logsOnly: Variant = { label: 'access log only (--no-metrics)', flags: ['--no-metrics'], counts: [] }
  const metricsOnly: Variant = {
    label: 'metrics only (--log-level silent)',
    flags: ['--log-level', 'silent'],
    counts: [],
  }
  const variants = [silent, defaults, logsOnly, metricsOnly]
  for (let i = 0; i < REPEATS; i++) for (const v of variants) v.counts.push(await count(v.label, v.flags))
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
  const mainOf = (v: Variant) => mean(v.counts.map((c) => c.main))
  const s = mainOf(silent)
  const d = mainOf(defaults)
  console.log(
    `\nGET /api/sites/{site_name}, MemoryStore, instructions per request (callgrind), ${WARMUP} warm-up then ${COUNTED} counted, ${REPEATS} processes each\n`,
  )
  console.log('| CLI | main thread, each process | other threads, each process |')
  console.log('|---|---:|---:|')
  const cells = (cs: Count[], key: keyof Count) => cs.map((c) => Math.round(c[key]).toLocaleString('en-US')).join(' / ')
  for (const v of variants)
    console.log(`| ${v.label} | ${cells(v.counts, 'main')} | ${cells(v.counts, 'background')} |`)
  const counted = `${WARMUP} requests warm-up then ${COUNTED} counted at ${CONNECTIONS} connections, mean of ${REPEATS} processes each`
  const added = (n: number) => Math.round(n).toLocaleString('en-US')
  figure({
    group: 'operations',
    name: 'CLI defaults (access log, metrics): GET /sites/{site_name}, instructions per request, main thread',
    value: Math.round(d),
    unit: 'instructions',
    anchor: 'the same CLI, --log-level silent --no-metrics',
    anchorValue: Math.round(s),
    ratio: Number((s / d).toFixed(3)),
    note: `valgrind callgrind, user space only (the kernel's socket work, about half a request's CPU, is not counted, so the whole request's ratio is higher); ${counted}; ratio = silent / defaults; the defaults add ${added(d - s)} instructions a request`,
  })
  const l = mainOf(logsOnly)
  const m = mainOf(metricsOnly)
  for (const [v, n] of [
    [logsOnly, l],
    [metricsOnly, m],
  ] as const) {
    figure({
      group: 'operations',
      name: `CLI, ${v.label}: GET /sites/{site_name}, instructions per request, main thread`,
      value: Math.round(n),
      unit: 'instructions',
      anchor: 'the same CLI, --log-level silent --no-metrics',
      anchorValue: Math.round(s),
      ratio: Number((s / n).toFixed(3)),
      note: `as the row above; adds ${added(n - s)}; what the access log and the metrics share (the request id and its X-Request-Id header, the observer, its close listener and timer) is counted in both parts: ${added(l + m - d - s)} a request, the log's own ${added(d - m)}, the metrics' own ${added(d - l)}`,
    })
  }
}
