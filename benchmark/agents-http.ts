/**
 * Express throughput with and without mobileRedirect, measured with
 * autocannon against one server process per variant (agents-server.ts,
 * compiled to plain JS first), in many short alternating rounds (bare then
 * middleware, then the other way round); each round gives one paired ratio
 * and the median of those ratios is reported, beside the median server CPU
 * per request. An `empty` server (an Express middleware that only calls
 * next()) runs in the same rounds: Express's own cost of a middleware layer,
 * which any middleware pays, set apart from mobileRedirect's work.
 * On a shared machine req/s still drifts by more than the
 * middleware costs, so the steady figure is the middleware's own CPU per
 * request measured in-process (agents-inprocess.ts), set against bare
 * Express's CPU per request over HTTP in the same run.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import type { CorpusRow } from '../test/helpers/agents-corpus.js'
import { buildServer } from './agents-build.js'
import { passThroughCostNs } from './agents-inprocess.js'
import { figure } from './lib/report.js'

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2
}

interface CannonResult {
  requests: { average: number }
  non2xx: number
  errors: number
}
type Autocannon = (opts: {
  url: string
  connections: number
  duration?: number
  amount?: number
  overallRate?: number
  headers: Record<string, string>
}) => Promise<CannonResult>

// autocannon ships no types; this is the part used here.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon

type Mode = 'bare' | 'redirect' | 'empty'

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

const DURATION = Number(process.env.BENCH_ROUND_SECONDS ?? 1)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10)
/** Requests per second (and per fixed-rate run) for the CPU-per-request reading. */
const FIXED_RATE = 2000

/** What a browser sends for a page navigation, and for a fetch() from a page. */
const NAVIGATION = {
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'sec-fetch-dest': 'document',
  'sec-fetch-mode': 'navigate',
}
const FETCH = { accept: '*/*', 'sec-fetch-dest': 'empty', 'sec-fetch-mode': 'cors' }

interface Case {
  label: string
  ua: string
  headers: Record<string, string>
  target: string
}

/**
 * Prints req/s of bare Express and Express + mobileRedirect for a desktop
 * navigation (passed through), a phone navigation (redirected) and a phone
 * fetch() (judged, then passed through), and reports each as a figure.
 */
export async function throughput(corpus: CorpusRow[]): Promise<void> {
  const desktop = corpus.find((r) => r.deviceCategory === 'desktop')?.userAgent as string
  const phone = corpus.find((r) => r.deviceCategory === 'mobile')?.userAgent as string
  const cases: Case[] = [
    { label: 'desktop navigation (passed through)', ua: desktop, headers: NAVIGATION, target: '>= 0.97' },
    { label: 'phone fetch() (judged, passed through)', ua: phone, headers: FETCH, target: '>= 0.95' },
    { label: 'phone navigation (redirected)', ua: phone, headers: NAVIGATION, target: '>= 0.95' },
  ]
  const build = buildServer()
  const servers = {} as Record<Mode, Server>
  try {
    servers.bare = await startServer(build.script, 'bare')
    servers.redirect = await startServer(build.script, 'redirect')
    servers.empty = await startServer(build.script, 'empty')
    console.log(
      `\n## Express throughput (autocannon, 10 connections, ${ROUNDS} alternating rounds of ${DURATION} s per server, one plain-JS child process per server)\n`,
    )
    console.log(
      `Median req/s and median of the per-round ratios; server CPU per request at ${FIXED_RATE} req/s, least disturbed round.\n`,
    )
    console.log(
      '| request | bare Express | + mobileRedirect | req/s ratio (median of rounds) | CPU µs/req bare → with | CPU ratio bare/with | response |',
    )
    console.log('|---|---:|---:|---:|---:|---:|---|')
    let bareCpu = 0
    for (const c of cases) {
      const headers = { 'user-agent': c.ua, ...c.headers }
      for (const mode of ['bare', 'redirect', 'empty'] as const) await run(servers[mode].url, headers, { duration: 1 }) // warm-up
      const rps: Record<Mode, number[]> = { bare: [], redirect: [], empty: [] }
      const cpu: Record<Mode, number[]> = { bare: [], redirect: [], empty: [] }
      const ratios: number[] = []
      let response = ''
      for (let round = 0; round < ROUNDS; round++) {
        // Alternating order, so a drift within a round hits each side first as often.
        const order: Mode[] = round % 2 === 0 ? ['bare', 'redirect', 'empty'] : ['empty', 'redirect', 'bare']
        const got = {} as Record<Mode, number>
        for (const mode of order) {
          const r = await run(servers[mode].url, headers, { duration: DURATION })
          got[mode] = r.requests.average
          rps[mode].push(r.requests.average)
          if (mode === 'redirect') response = r.non2xx > 0 ? '302 to the mobile site' : '200, the desktop page'
          // CPU per request depends on how many requests each event-loop turn
          // batches, hence on load: it is read at one fixed request rate.
          const before = await stats(servers[mode])
          await run(servers[mode].url, headers, { amount: FIXED_RATE, overallRate: FIXED_RATE })
          const after = await stats(servers[mode])
          cpu[mode].push((after.cpuMicros - before.cpuMicros) / Math.max(1, after.requests - before.requests))
        }
        ratios.push(got.redirect / got.bare)
      }
      const ratio = median(ratios)
      // The least disturbed round of each: noise on a shared machine only adds.
      const cpuBare = Math.min(...cpu.bare)
      const cpuWith = Math.min(...cpu.redirect)
      if (c.label.startsWith('desktop')) bareCpu = cpuBare
      // Per round, empty-middleware CPU over mobileRedirect CPU: what mobileRedirect adds to any middleware.
      const overEmpty = median(cpu.empty.map((empty, i) => empty / (cpu.redirect[i] as number)))
      console.log(
        `| ${c.label} | ${Math.round(median(rps.bare))} | ${Math.round(median(rps.redirect))} | ${ratio.toFixed(3)} | ${cpuBare.toFixed(1)} → ${cpuWith.toFixed(1)} | ${(cpuBare / cpuWith).toFixed(3)} | ${response} |`,
      )
      figure({
        group: 'redirect',
        name: `mobileRedirect throughput, ${c.label}`,
        value: Math.round(median(rps.redirect)),
        unit: 'req/s',
        anchor: 'bare Express',
        anchorValue: Math.round(median(rps.bare)),
        ratio: Number(ratio.toFixed(3)),
        // No target: req/s of two servers on 2 shared cores drifts by more than the middleware costs.
        note: `median of ${ROUNDS} paired alternating rounds of ${DURATION} s (noisy on a shared machine; the CPU rows are the ones to read)`,
      })
      figure({
        group: 'redirect',
        name: `mobileRedirect server CPU per request, ${c.label}`,
        value: Number(cpuWith.toFixed(1)),
        unit: 'µs',
        anchor: 'bare Express',
        anchorValue: Number(cpuBare.toFixed(1)),
        ratio: Number((cpuBare / cpuWith).toFixed(3)),
        target: c.target,
        note: `at ${FIXED_RATE} req/s, least disturbed of ${ROUNDS} alternating rounds; ratio = bare / with (1 = free)`,
      })
      if (c.label.startsWith('phone navigation')) continue // redirected: less work than either anchor
      console.log(
        `   ${c.label}: empty middleware CPU ${Math.min(...cpu.empty).toFixed(1)} µs; empty / mobileRedirect, median of rounds ${overEmpty.toFixed(3)}`,
      )
      figure({
        group: 'redirect',
        name: `mobileRedirect server CPU per request against an empty middleware, ${c.label}`,
        value: Number(cpuWith.toFixed(1)),
        unit: 'µs',
        anchor: 'Express + a middleware that only calls next()',
        anchorValue: Number(Math.min(...cpu.empty).toFixed(1)),
        ratio: Number(overEmpty.toFixed(3)),
        target: '>= 0.97',
        note: `at ${FIXED_RATE} req/s, median of ${ROUNDS} per-round ratios empty / with (1 = mobileRedirect costs no more than any middleware)`,
      })
    }
    for (const [label, ua, headers, target] of [
      ['desktop navigation (passed through)', desktop, NAVIGATION, '<= 0.03'],
      ['phone fetch() (judged, passed through)', phone, FETCH, '<= 0.05'],
    ] as const) {
      const own = passThroughCostNs(ua, headers) / 1000
      console.log(
        `\nmobileRedirect's own CPU per ${label}, in-process: ${own.toFixed(2)} µs, ${((own / bareCpu) * 100).toFixed(2)} % of bare Express's ${bareCpu.toFixed(1)} µs per request above.`,
      )
      figure({
        group: 'redirect',
        name: `mobileRedirect own CPU, ${label}`,
        value: Number(own.toFixed(3)),
        unit: 'µs',
        anchor: 'bare Express CPU per request (server process, same run)',
        anchorValue: Number(bareCpu.toFixed(1)),
        ratio: Number((own / bareCpu).toFixed(4)),
        target,
        note: 'ratio = middleware CPU (in-process, best of 9 interleaved rounds, over an empty middleware) / bare Express CPU per request over HTTP',
      })
    }
  } finally {
    for (const server of Object.values(servers)) server.child.disconnect()
    build.remove()
  }
}

async function run(
  url: string,
  headers: Record<string, string>,
  load: { duration?: number; amount?: number; overallRate?: number },
): Promise<CannonResult> {
  const r = await autocannon({ url, connections: 10, headers, ...load })
  if (r.errors > 0) throw new Error(`autocannon saw ${r.errors} errors on ${url}`)
  return r
}
