/**
 * Express with and without mobileRedirect, over HTTP: autocannon against one
 * server process that serves every variant on its own port (agents-server.ts,
 * compiled to plain JS first), in alternating rounds (bare, with, empty, then
 * the other way round). Each round gives paired ratios; their median and
 * quartiles are reported, for req/s and for server CPU per request at a fixed
 * rate. An `empty` variant (an Express middleware that only calls next())
 * runs in the same rounds: Express's own cost of any middleware layer.
 *
 * On a shared machine both drift by more than the middleware costs (the
 * quartiles say how much), so the figure with a target is measured
 * in-process (agents-inprocess.ts: mobileRedirect mounted with app.use,
 * through Express's own dispatch, against the bare app), set against bare
 * Express's CPU per request over HTTP in the same run.
 */
import type { ChildProcess } from 'node:child_process'
import type { CorpusRow } from '../test/helpers/agents-corpus.js'
import { buildServer } from './agents-build.js'
import { passThroughCostNs } from './agents-inprocess.js'
import { autocannon, type CannonOptions, type CannonResult } from './lib/autocannon.js'
import { figure } from './lib/report.js'
import { forkServer, serverStats } from './lib/spawn-server.js'

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2
}

type Mode = 'bare' | 'redirect' | 'empty'

interface Server {
  url: string
  child: ChildProcess
}

/** One process serving every variant, one port each. */
async function startServers(script: string): Promise<Record<Mode, Server>> {
  const { child, ready } = await forkServer<{ ports: Record<Mode, number> }>(script, [], 'the benchmark')
  const server = (mode: Mode): Server => ({ url: `http://127.0.0.1:${ready.ports[mode]}/products/42?ref=home`, child })
  return { bare: server('bare'), redirect: server('redirect'), empty: server('empty') }
}

const DURATION = Number(process.env.BENCH_ROUND_SECONDS ?? 1)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10)
/** Requests per second for the CPU-per-request reading. */
const FIXED_RATE = 2000
/** Requests per variant in one CPU round, and the number of rounds. */
const CPU_REQUESTS = Number(process.env.BENCH_CPU_REQUESTS ?? 1000)
const CPU_ROUNDS = Number(process.env.BENCH_CPU_ROUNDS ?? 20)
const CPU_NOTE = `at ${FIXED_RATE} req/s, ${CPU_ROUNDS} alternating rounds of ${CPU_REQUESTS} requests per variant`

/** Each variant first as often as last: bare, with, empty, then the other way round. */
const orderOf = (round: number): Mode[] =>
  round % 2 === 0 ? ['bare', 'redirect', 'empty'] : ['empty', 'redirect', 'bare']

/** Median and quartiles. */
function spread(xs: number[]): { median: number; q1: number; q3: number } {
  const s = [...xs].sort((a, b) => a - b)
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))] as number
  return { median: median(xs), q1: at(0.25), q3: at(0.75) }
}

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
    { label: 'desktop navigation (passed through)', ua: desktop, headers: NAVIGATION },
    { label: 'phone fetch() (judged, passed through)', ua: phone, headers: FETCH },
    { label: 'phone navigation (redirected)', ua: phone, headers: NAVIGATION },
  ]
  const build = buildServer()
  let servers: Record<Mode, Server> | undefined
  try {
    servers = await startServers(build.script)
    console.log(
      `\n## Express throughput (autocannon, 10 connections, ${ROUNDS} alternating rounds of ${DURATION} s per server, one plain-JS child process serving each on its own port)\n`,
    )
    console.log(
      `Median req/s and median of the per-round ratios; server CPU per request: ${CPU_NOTE}, median per variant, and the median (quartiles) of the per-round ratios.\n`,
    )
    console.log(
      '| request | bare Express | + mobileRedirect | req/s ratio (median of rounds) | CPU µs/req bare → with | CPU ratio bare/with, median (quartiles) | response |',
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
        const got = {} as Record<Mode, number>
        for (const mode of orderOf(round)) {
          const r = await run(servers[mode].url, headers, { duration: DURATION })
          got[mode] = r.requests.average
          rps[mode].push(r.requests.average)
          if (mode === 'redirect') response = r.non2xx > 0 ? '302 to the mobile site' : '200, the desktop page'
        }
        ratios.push(got.redirect / got.bare)
      }
      // CPU per request depends on how many requests each event-loop turn
      // batches, hence on load: it is read at one fixed request rate, in many
      // short alternating rounds, so a slow drift of the machine hits the
      // three variants of a round alike and the per-round ratios cancel it.
      for (let round = 0; round < CPU_ROUNDS; round++) {
        for (const mode of orderOf(round)) {
          const before = await serverStats(servers[mode].child)
          await run(servers[mode].url, headers, { amount: CPU_REQUESTS, overallRate: FIXED_RATE })
          const after = await serverStats(servers[mode].child)
          cpu[mode].push((after.cpuMicros - before.cpuMicros) / Math.max(1, after.requests - before.requests))
        }
      }
      const ratio = median(ratios)
      const cpuBare = median(cpu.bare)
      const cpuWith = median(cpu.redirect)
      const cpuEmpty = median(cpu.empty)
      if (c.label.startsWith('desktop')) bareCpu = cpuBare
      // Paired per round: bare / with, and empty / with (what mobileRedirect
      // adds to any middleware); the median and quartiles of those ratios.
      const overBare = spread(cpu.bare.map((bare, i) => bare / (cpu.redirect[i] as number)))
      const overEmpty = spread(cpu.empty.map((empty, i) => empty / (cpu.redirect[i] as number)))
      console.log(
        `| ${c.label} | ${Math.round(median(rps.bare))} | ${Math.round(median(rps.redirect))} | ${ratio.toFixed(3)} | ${cpuBare.toFixed(1)} → ${cpuWith.toFixed(1)} | ${overBare.median.toFixed(3)} (${overBare.q1.toFixed(3)}–${overBare.q3.toFixed(3)}) | ${response} |`,
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
        name: `mobileRedirect server CPU per request over HTTP, ${c.label}`,
        value: Number(cpuWith.toFixed(1)),
        unit: 'µs',
        anchor: 'bare Express',
        anchorValue: Number(cpuBare.toFixed(1)),
        ratio: Number(overBare.median.toFixed(3)),
        // No target: the quartiles are wider than what the middleware costs.
        note: `${CPU_NOTE}; medians; ratio = bare / with (1 = free), median of the per-round ratios, quartiles ${overBare.q1.toFixed(3)}–${overBare.q3.toFixed(3)}`,
      })
      if (c.label.startsWith('phone navigation')) continue // redirected: less work than either anchor
      console.log(
        `   ${c.label}: empty middleware CPU ${cpuEmpty.toFixed(1)} µs; empty / mobileRedirect, median of rounds ${overEmpty.median.toFixed(3)} (quartiles ${overEmpty.q1.toFixed(3)}–${overEmpty.q3.toFixed(3)})`,
      )
    }
    for (const [label, ua, headers, target] of [
      ['desktop navigation (passed through)', desktop, NAVIGATION, '<= 0.03'],
      ['phone fetch() (judged, passed through)', phone, FETCH, '<= 0.05'],
    ] as const) {
      const cost = passThroughCostNs(ua, headers)
      const own = cost.redirect / 1000
      console.log(
        `\nmobileRedirect as an Express layer, per ${label}, in-process: ${own.toFixed(2)} µs over the bare app (an empty middleware: ${(cost.empty / 1000).toFixed(2)} µs), ${((own / bareCpu) * 100).toFixed(2)} % of bare Express's ${bareCpu.toFixed(1)} µs per request above.`,
      )
      figure({
        group: 'redirect',
        name: `mobileRedirect's cost, mounted with app.use, ${label}`,
        value: Number(own.toFixed(3)),
        unit: 'µs',
        anchor: 'bare Express CPU per request (server process, same run)',
        anchorValue: Number(bareCpu.toFixed(1)),
        ratio: Number((own / bareCpu).toFixed(4)),
        target,
        note: `ratio = (app with mobileRedirect − bare app), in-process through Express's own dispatch, median of 21 paired rounds / bare Express CPU per request over HTTP; Express's layer alone (an empty middleware): ${(cost.empty / 1000).toFixed(2)} µs`,
      })
    }
  } finally {
    servers?.bare.child.disconnect()
    build.remove()
  }
}

async function run(
  url: string,
  headers: Record<string, string>,
  load: Pick<CannonOptions, 'duration' | 'amount' | 'overallRate'>,
): Promise<CannonResult> {
  const r = await autocannon({ url, connections: 10, headers, ...load })
  if (r.errors > 0) throw new Error(`autocannon saw ${r.errors} errors on ${url}`)
  return r
}
