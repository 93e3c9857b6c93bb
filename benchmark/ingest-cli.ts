/**
 * The collector as operators run it (issue 38): the CLI (`node
 * dist/esm/lib/cli/index.js`, metrics on, `LOG_LEVEL=warn`, `--beacons-per-minute
 * 0`, stdout to /dev/null) on MemoryStore, RedisStore and PostgresStore,
 * against a bare Express 204 handler (ingest-server.mjs). Each beacon is the
 * one a phone's first page view sends: cookieless `POST /collect/{site}?pv=2`
 * with a phone User-Agent, so the answer sets the visitor cookie and the
 * recording reduces the User-Agent. 50 connections, interleaved rounds;
 * between rounds each CLI's pending recordings drain (read off `/metrics`).
 * benchmark/ingest.ts measures the collector route alone, in the same way.
 *
 *   npm run build && npx tsx benchmark/ingest-cli.ts   (REDIS_URL, DATABASE_URL; BENCH_DURATION s, BENCH_ROUNDS)
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { openSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { Redis } from 'ioredis'
import { rps } from './lib/autocannon.js'
import { startIngest } from './lib/beacon-flood.js'
import { figure } from './lib/report.js'
import { freePort, killOnExit } from './lib/spawn-server.js'

const DURATION = Number(process.env.BENCH_DURATION ?? 8)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const CONNECTIONS = 50
const { REDIS_URL, DATABASE_URL } = process.env
const root = fileURLToPath(new URL('..', import.meta.url))
const PHONE =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Mobile Safari/537.36'
const GOALS: Record<string, string> = { MemoryStore: '>= 0.90', RedisStore: '>= 0.75', PostgresStore: '>= 0.70' }
const USER = 'bench'
const PASSWORD = 'bench-password'
const tag = `${process.pid}`

interface Target {
  label: string
  origin: string
  child: ChildProcess
}

/** The CLI on `store` (a URL, or undefined for memory), with the site the beacons go to. */
async function startCli(label: string, store: string | undefined): Promise<Target> {
  const port = await freePort()
  const { LOG_LEVEL: _, REDIS_URL: _r, DATABASE_URL: _d, ...env } = process.env
  const child = spawn(
    process.execPath,
    [`${root}dist/esm/lib/cli/index.js`, '--port', String(port), '--beacons-per-minute', '0', '--quiet'],
    {
      env: {
        ...env,
        LOG_LEVEL: 'warn',
        MOBISITE_USER: USER,
        MOBISITE_PASSWORD: PASSWORD,
        MOBISITE_STORE: store ?? 'memory',
        MOBISITE_REDIS_PREFIX: `mobisite-bench-ingest-cli:${tag}:`,
        MOBISITE_PG_SCHEMA: `bench_ingest_cli_${tag}`,
      },
      stdio: ['ignore', openSync('/dev/null', 'w'), 'inherit'],
    },
  )
  killOnExit(child)
  const origin = `http://127.0.0.1:${port}`
  const auth = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`
  for (let tries = 0; ; tries++) {
    try {
      const answer = await fetch(`${origin}/api/sites/create`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({ site_data: { site_name: 'benchsite', original_site_url: 'https://www.example.com/' } }),
      })
      // 400 on a shared store from an earlier run of this process id: the site is there.
      if (answer.status !== 200 && answer.status !== 400) throw new Error(`${label}: create answered ${answer.status}`)
      return { label, origin, child }
    } catch (error) {
      if (tries > 500 || child.exitCode !== null) throw error
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
}

/** Waits until the CLI has written every beacon it accepted (mobisite_pending_recordings 0), at most 30 s. */
async function drained(target: Target): Promise<void> {
  for (const started = Date.now(); Date.now() - started < 30_000; ) {
    const text = await (await fetch(`${target.origin}/metrics`)).text()
    if (/^mobisite_pending_recordings 0$/m.test(text) || !/^mobisite_pending_recordings /m.test(text)) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const load = (target: Target, duration: number): Promise<number> =>
  rps(
    {
      url: `${target.origin}/collect/benchsite?pv=2`,
      method: 'POST',
      connections: CONNECTIONS,
      duration,
      headers: { 'user-agent': PHONE },
    },
    target.label,
  )

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

const bareServer = await startIngest('bare Express', 'bare')
const bare: Target = { label: 'bare Express 204', origin: bareServer.origin, child: bareServer.child }
const clis: Target[] = [await startCli('MemoryStore', undefined)]
if (REDIS_URL) clis.push(await startCli('RedisStore', REDIS_URL))
else console.log('REDIS_URL not set: RedisStore skipped')
if (DATABASE_URL) clis.push(await startCli('PostgresStore', DATABASE_URL))
else console.log('DATABASE_URL not set: PostgresStore skipped')
const targets = [bare, ...clis]
const samples = new Map(targets.map((t) => [t, [] as number[]]))
try {
  for (const target of targets) await load(target, 1)
  for (let round = 0; round < ROUNDS; round++) {
    for (const target of targets) {
      // The previous variant's recordings drained first, so they do not slow this one.
      for (const cli of clis) await drained(cli)
      samples.get(target)!.push(await load(target, DURATION))
    }
  }
} finally {
  for (const target of targets) target.child.kill('SIGTERM')
}
const bareList = samples.get(bare)!
const note = `the CLI (metrics on, LOG_LEVEL=warn, --beacons-per-minute 0); cookieless POST /collect/{site}?pv=2, phone User-Agent; medians of ${ROUNDS} interleaved ${DURATION} s autocannon runs, ${CONNECTIONS} connections; ratio = median of per-round ratios`
console.log(`\nPOST /collect/{site}, ${note}\n\n| variant | beacons/s | / bare Express |\n|---|---:|---:|`)
console.log(`| bare Express 204 | ${Math.round(median(bareList))} | 1 |`)
for (const cli of clis) {
  const list = samples.get(cli)!
  const ratio = median(list.map((n, i) => n / bareList[i]!))
  console.log(`| CLI, ${cli.label} | ${Math.round(median(list))} | ${ratio.toFixed(3)} |`)
  figure({
    group: 'ingest',
    name: `POST /collect/{site_name} through the CLI, ${cli.label}`,
    value: Math.round(median(list)),
    unit: 'beacons/s',
    anchor: 'bare Express 204',
    anchorValue: Math.round(median(bareList)),
    ratio: Number(ratio.toFixed(3)),
    target: GOALS[cli.label],
    note,
  })
}
// Only this run's keys and schema.
await new Promise((resolve) => setTimeout(resolve, 500))
if (REDIS_URL) {
  const redis = new Redis(REDIS_URL)
  const keys = await redis.keys(`mobisite-bench-ingest-cli:${tag}:*`)
  if (keys.length > 0) await redis.del(...keys)
  await redis.quit()
}
if (DATABASE_URL) {
  const admin = new pg.Client({ connectionString: DATABASE_URL })
  await admin.connect()
  await admin.query(`DROP SCHEMA IF EXISTS bench_ingest_cli_${tag} CASCADE`)
  await admin.end()
}
