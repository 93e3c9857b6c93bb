/**
 * Express throughput with and without mobileRedirect, measured with
 * autocannon against one server process per variant (agents-server.ts,
 * compiled to plain JS first), alternating runs so drift on a shared machine
 * hits every variant alike.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import type { CorpusRow } from '../test/helpers/agents-corpus.js'
import { buildServer } from './agents-build.js'
import { passThroughCostNs } from './agents-inprocess.js'

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

interface CannonResult {
  requests: { average: number }
  latency: { p99: number }
  non2xx: number
  errors: number
}
type Autocannon = (opts: { url: string; connections: number; duration: number; headers: Record<string, string> }) => Promise<CannonResult>

// autocannon ships no types; this is the part used here.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon

type Mode = 'bare' | 'noop' | 'redirect'

interface Server {
  url: string
  child: ChildProcess
}

/** CPU µs the server process spent and requests it served so far. */
function stats(server: Server): Promise<{ cpuMicros: number; requests: number }> {
  return new Promise((resolve) => {
    server.child.once('message', (m) => resolve(m as { cpuMicros: number; requests: number }))
    server.child.send('stats')
  })
}

async function startServer(script: string, mode: Mode): Promise<Server> {
  const child = fork(script, [mode], { execArgv: [] })
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port))
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)))
  })
  return { url: `http://127.0.0.1:${port}/products/42?ref=home`, child }
}

const DURATION = 2
const ROUNDS = 6
const MODES: Mode[] = ['bare', 'noop', 'redirect']

/**
 * Prints req/s of bare Express, Express with an empty `app.use` (what any
 * middleware costs), and Express + mobileRedirect, for a desktop and a phone UA.
 */
export async function throughput(corpus: CorpusRow[]): Promise<void> {
  const desktop = corpus.find((r) => r.deviceCategory === 'desktop')?.userAgent as string
  const phone = corpus.find((r) => r.deviceCategory === 'mobile')?.userAgent as string
  const build = buildServer()
  const servers = {} as Record<Mode, Server>
  try {
    for (const mode of MODES) servers[mode] = await startServer(build.script, mode)
    const cpuRows: string[][] = []
    let bareCpu = 0
    for (const [label, ua] of [['desktop', desktop], ['phone', phone]] as const) {
      const best: Record<Mode, number> = { bare: 0, noop: 0, redirect: 0 }
      const samples: Record<Mode, number[]> = { bare: [], noop: [], redirect: [] }
      let redirectStatus = ''
      for (const mode of MODES) await run(servers[mode].url, ua, 1) // warm-up
      for (let round = 0; round < ROUNDS; round++) {
        for (const mode of MODES) {
          const before = await stats(servers[mode])
          const r = await run(servers[mode].url, ua, DURATION)
          const after = await stats(servers[mode])
          best[mode] = Math.max(best[mode], r.requests.average)
          samples[mode].push((after.cpuMicros - before.cpuMicros) / (after.requests - before.requests))
          if (mode === 'redirect') redirectStatus = r.non2xx > 0 ? '302 to the mobile site' : '200, the desktop page'
        }
      }
      const cpu = { bare: median(samples.bare), noop: median(samples.noop), redirect: median(samples.redirect) }
      if (label === 'desktop') bareCpu = cpu.bare
      const cost = (1 - best.redirect / best.bare) * 100
      const cpuCost = (cpu.redirect / cpu.bare - 1) * 100
      const row = [
        label,
        ...MODES.map((m) => `${Math.round(best[m])} (${cpu[m].toFixed(1)} µs)`),
        `${cost.toFixed(1)} %`,
        `${cpuCost.toFixed(1)} %`,
        redirectStatus,
      ]
      cpuRows.push(row)
    }
    console.log(`\n## Express throughput (autocannon, 10 connections, best of ${ROUNDS} × ${DURATION} s, one plain-JS child process per server)\n`)
    console.log('best req/s, with the median server CPU time per request in parentheses.\n')
    console.log('| UA | bare Express | + empty app.use | + mobileRedirect | req/s cost | CPU cost | middleware response |')
    console.log('|---|---:|---:|---:|---:|---:|---|')
    for (const row of cpuRows) console.log(`| ${row.join(' | ')} |`)
    const own = passThroughCostNs(desktop) / 1000
    console.log(`\nmobileRedirect's own CPU per desktop (pass-through) request, in-process: ${own.toFixed(2)} µs,`)
    console.log(`${((own / bareCpu) * 100).toFixed(1)} % of bare Express's ${bareCpu.toFixed(1)} µs per request above.`)
  } finally {
    for (const server of Object.values(servers)) server.child.disconnect()
    build.remove()
  }
}

async function run(url: string, ua: string, duration: number): Promise<CannonResult> {
  const r = await autocannon({ url, connections: 10, duration, headers: { 'user-agent': ua } })
  if (r.errors > 0) throw new Error(`autocannon saw ${r.errors} errors on ${url}`)
  return r
}
