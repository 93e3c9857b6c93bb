/**
 * Express throughput with and without mobileRedirect, measured with
 * autocannon against two server processes (agents-server.ts), alternating
 * bare and middleware runs so drift on a shared machine hits both alike.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import type { CorpusRow } from '../test/helpers/agents-corpus.js'

interface CannonResult {
  requests: { average: number }
  latency: { p99: number }
  non2xx: number
  errors: number
}
type Autocannon = (opts: { url: string; connections: number; duration: number; headers: Record<string, string> }) => Promise<CannonResult>

// autocannon ships no types; this is the part used here.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon

async function startServer(mode: 'bare' | 'redirect'): Promise<{ url: string; child: ChildProcess }> {
  const child = fork(fileURLToPath(new URL('./agents-server.ts', import.meta.url)), [mode], { execArgv: ['--import', 'tsx'] })
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port))
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)))
  })
  return { url: `http://127.0.0.1:${port}/products/42?ref=home`, child }
}

const DURATION = 4
const ROUNDS = 2

/** Prints req/s of bare Express vs Express + mobileRedirect for a desktop and a phone UA. */
export async function throughput(corpus: CorpusRow[]): Promise<void> {
  const desktop = corpus.find((r) => r.deviceCategory === 'desktop')?.userAgent as string
  const phone = corpus.find((r) => r.deviceCategory === 'mobile')?.userAgent as string
  const bare = await startServer('bare')
  const redirect = await startServer('redirect')
  try {
    console.log(`\n## Express throughput (autocannon, 10 connections, best of ${ROUNDS} × ${DURATION} s, servers in child processes)\n`)
    console.log('| UA | bare Express req/s | + mobileRedirect req/s | cost | middleware response |')
    console.log('|---|---:|---:|---:|---|')
    for (const [label, ua] of [['desktop', desktop], ['phone', phone]] as const) {
      const best = { bare: 0, redirect: 0 }
      let redirectStatus = ''
      for (const server of [bare, redirect]) await run(server.url, ua, 1) // warm-up
      for (let round = 0; round < ROUNDS; round++) {
        for (const [key, server] of [['bare', bare], ['redirect', redirect]] as const) {
          const r = await run(server.url, ua, DURATION)
          best[key] = Math.max(best[key], r.requests.average)
          if (key === 'redirect') redirectStatus = r.non2xx > 0 ? '302 to the mobile site' : '200, the desktop page'
        }
      }
      const cost = (1 - best.redirect / best.bare) * 100
      console.log(`| ${label} | ${Math.round(best.bare)} | ${Math.round(best.redirect)} | ${cost.toFixed(1)} % | ${redirectStatus} |`)
    }
  } finally {
    bare.child.disconnect()
    redirect.child.disconnect()
  }
}

async function run(url: string, ua: string, duration: number): Promise<CannonResult> {
  const r = await autocannon({ url, connections: 10, duration, headers: { 'user-agent': ua } })
  if (r.errors > 0) throw new Error(`autocannon saw ${r.errors} errors on ${url}`)
  return r
}
