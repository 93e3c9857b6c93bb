/**
 * `GET /sites/{site_name}` through apiRouter (HTTP Basic on every request)
 * against bare Express answering the same JSON, measured with autocannon
 * against one server process per variant, alternating rounds so drift on a
 * shared machine hits every variant alike.
 *
 * `npx tsx benchmark/api-auth.ts [label=entry ...]` compares other builds too,
 * e.g. `before=/tmp/old/dist/esm/lib/index.js` for a build from an older
 * commit; by default it measures this worktree's dist (run `npm run build` first).
 */
import type { ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { rps } from './lib/autocannon.js'
import { figure } from './lib/report.js'
import { spawnServer } from './lib/spawn-server.js'

const DURATION = Number(process.env.BENCH_DURATION ?? 3)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4)
const AUTH = { authorization: `Basic ${Buffer.from('bench:bench-password').toString('base64')}` }
const script = fileURLToPath(new URL('./api-auth-server.mjs', import.meta.url))
const here = fileURLToPath(new URL('../dist/esm/lib/index.js', import.meta.url))

async function start(mode: 'bare' | 'api', entry: string): Promise<{ url: string; child: ChildProcess }> {
  const { child, origin } = await spawnServer(script, [mode, entry], mode)
  return { url: `${origin}/api/sites/benchsite`, child }
}

const run = (url: string, duration: number): Promise<number> =>
  rps({ url, connections: 10, duration, headers: AUTH }, url)

const variants = [['bare Express', ''], ...process.argv.slice(2).map((arg) => arg.split('=') as [string, string])]
if (variants.length === 1) variants.push(['apiRouter', here])
const servers = await Promise.all(variants.map(([, entry]) => start(entry ? 'api' : 'bare', entry!)))
try {
  const best = variants.map(() => 0)
  for (const server of servers) await run(server.url, 1)
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, server] of servers.entries()) best[i] = Math.max(best[i]!, await run(server.url, DURATION))
  }
  console.log(`\nGET /sites/{site_name}, autocannon 10 connections, best of ${ROUNDS} x ${DURATION} s\n`)
  console.log('| variant | req/s | / bare Express |\n|---|---:|---:|')
  for (const [i, [label]] of variants.entries()) {
    console.log(`| ${label} | ${Math.round(best[i]!)} | ${(best[i]! / best[0]!).toFixed(3)} |`)
    if (i > 0) {
      figure({
        group: 'API',
        name: `GET /sites/{site_name} with Basic auth (${label}), MemoryStore`,
        value: Math.round(best[i]!),
        unit: 'req/s',
        anchor: 'bare Express, same JSON',
        anchorValue: Math.round(best[0]!),
        ratio: Number((best[i]! / best[0]!).toFixed(3)),
        note: 'scrypt credentials behind the verified-credential cache',
      })
    }
  }
} finally {
  for (const server of servers) server.child.disconnect()
}
