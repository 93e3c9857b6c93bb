/**
 * Issue 34's state-file probe for `npm run reliability`: the built CLI with
 * `--state` at the default interval on MemoryStore, its file holding
 * {@link SITES} sites (about 1.2 KB each in the file, like the chaos probe's
 * 58 MB for 48k), under a stream of creates.
 *
 * - Loss: creates are acknowledged up to a kill -9, which lands inside a
 *   write-back (the worst moment: that write-back is lost with it); the CLI
 *   is started again from the file, and every acknowledged create missing
 *   there counts, with its age at the kill.
 * - Stall: a `/healthz` ping every 20 ms from a worker thread (its own event
 *   loop, so the probe's own work never delays it); the longest answer while
 *   a write-back ran (seen as the state file's temporary file existing).
 *
 * Run alone: `npm run build && node --import tsx benchmark/reliability/state-file.ts`.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, statSync, watch, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { pool, sleep } from './common.js'

/** Sites in the state file at start. */
export const SITES = 50_000
/** The CLI's default --state-interval, in seconds. */
export const INTERVAL_SECONDS = 5
/** Clients creating sites one after another, each as fast as answered. */
const CREATORS = 2
/** The stall bound of DESIGN ("Edges of the newest surfaces"). */
export const STALL_BOUND_MS = 50

const cli = fileURLToPath(new URL('../../dist/esm/lib/cli/index.js', import.meta.url))
const USER = 'alice'
const PASSWORD = 'alice-secret'
const auth = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`

/** Figures of the state-file probe. */
export interface StateFileFigures {
  sites: number
  fileMb: number
  /** Seconds from spawning the CLI on the full file to its first answer. */
  startSeconds: number
  writeBacks: { count: number; meanMs: number; maxMs: number }
  stall: {
    pings: number
    maxDuringWriteBackMs: number
    /** The same load without a write-back: what the machine and the creates cost alone. */
    maxOutsideWriteBackMs: number
    over50DuringWriteBack: number
  }
  loss: {
    acknowledged: number
    lost: number
    oldestLostSeconds: number
    /** Whether the kill came while a write-back ran (the worst case the probe aims at). */
    duringWriteBack: boolean
  }
}

/** A state file of `count` sites owned by alice, each with business info (a site of a real account). */
function writeState(file: string, count: number): void {
  const sites = Array.from({ length: count }, (_, i) => ({
    owner: USER,
    site_name: `seeded-${i}`,
    original_site_url: `https://www.shop-${i}.example.com/home`,
    external_uid: `crm-${i}`,
    site_domain: `m.shop-${i}.example.com`,
    site_vertical: 'Restaurant',
    published: i % 2 === 0,
    site_business_info: {
      business_name: `Shop number ${i}`,
      phone_number: '+1 555 0100',
      address: { street: `${i} Main Street`, city: 'Springfield', state: 'IL', country: 'US', zip_code: '62701' },
    },
  }))
  writeFileSync(file, JSON.stringify({ sites }))
}

function startCli(file: string, port: number): ChildProcess {
  return spawn(process.execPath, [cli, '--state', file, '--quiet', '--log-level', 'warn'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      MOBISITE_STORE: '',
      REDIS_URL: '',
      DATABASE_URL: '',
      MOBISITE_USER: USER,
      MOBISITE_PASSWORD: PASSWORD,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

async function serving(url: string, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the CLI exited with ${child.exitCode}`)
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return
    await sleep(50)
  }
}

const PINGER = `
const { parentPort, workerData } = require('node:worker_threads')
const http = require('node:http')
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
const samples = []
let stop = false
parentPort.on('message', () => { stop = true })
function ping() {
  if (stop) return parentPort.postMessage(samples)
  const sent = performance.now(), at = Date.now()
  const done = (ok) => { samples.push([at, ok ? performance.now() - sent : -1]); setTimeout(ping, 20) }
  http.get(workerData.url + '/healthz', { agent }, (res) => { res.resume(); res.on('end', () => done(true)) }).on('error', () => done(false))
}
ping()
`

/** Runs the probe; see the module comment. */
export async function stateFilePhase(sites = SITES): Promise<StateFileFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'mobisite-reliability-state-'))
  const file = join(dir, 'state.json')
  const children: ChildProcess[] = []
  try {
    writeState(file, sites)
    const port = await freePort()
    const url = `http://127.0.0.1:${port}`
    const started = performance.now()
    const first = startCli(file, port)
    children.push(first)
    await serving(url, first)
    const startSeconds = (performance.now() - started) / 1000
    // Write-backs as the folder shows them: a temporary file exists while one runs.
    const windows: { from: number; to?: number }[] = []
    const watcher = watch(dir, (_event, name) => {
      if (!name?.startsWith('state.json.') || !name.endsWith('.tmp')) return
      const open = windows.at(-1)
      if (existsSync(join(dir, name))) {
        if (open === undefined || open.to !== undefined) windows.push({ from: Date.now() })
      } else if (open !== undefined && open.to === undefined) open.to = Date.now()
    })
    // The write-back made at start is not the one measured.
    await sleep(3_000)
    windows.length = 0
    const pinger = new Worker(PINGER, { eval: true, workerData: { url } })
    const acked = new Map<string, number>()
    let creating = true
    let n = 0
    const creators = Array.from({ length: CREATORS }, async () => {
      while (creating) {
        const site_name = `probe-${n++}`
        const res = await fetch(`${url}/api/sites/create`, {
          method: 'POST',
          headers: { authorization: auth, 'content-type': 'application/json' },
          body: JSON.stringify({ site_data: { site_name, original_site_url: `https://${site_name}.example` } }),
        }).catch(() => undefined)
        await res?.arrayBuffer().catch(() => undefined)
        if (res?.status === 200 && creating) acked.set(site_name, Date.now())
      }
    })
    // Two whole write-backs to learn their length, then the kill in the middle of the next one.
    while (windows.filter((w) => w.to !== undefined).length < 2) await sleep(20)
    const lengths = windows.filter((w) => w.to !== undefined).map((w) => w.to! - w.from)
    const length = Math.min(...lengths)
    const seen = windows.length
    while (windows.length === seen) await sleep(2)
    await sleep(Math.max(0, length * 0.7 - 5))
    const duringWriteBack = windows.at(-1)!.to === undefined
    first.kill('SIGKILL')
    const killedAt = Date.now()
    creating = false
    await new Promise((resolve) => first.once('exit', resolve))
    await Promise.all(creators)
    watcher.close()
    pinger.postMessage('stop')
    const samples = await new Promise<[number, number][]>((resolve) => pinger.once('message', resolve))
    await pinger.terminate()
    const done = windows.filter((w) => w.to !== undefined && w.to <= killedAt)
    const within = (at: number, ms: number) => done.some((w) => at <= w.to! && at + ms >= w.from)
    const answered = samples.filter(([at, ms]) => ms >= 0 && at < killedAt)
    const during = answered.filter(([at, ms]) => within(at, ms)).map(([, ms]) => ms)
    const outside = answered.filter(([at, ms]) => !within(at, ms)).map(([, ms]) => ms)
    const stall = {
      pings: answered.length,
      maxDuringWriteBackMs: Math.max(0, ...during),
      maxOutsideWriteBackMs: Math.max(0, ...outside),
      over50DuringWriteBack: during.filter((ms) => ms > STALL_BOUND_MS).length,
    }
    const durations = done.map((w) => w.to! - w.from)
    const writeBacks = {
      count: durations.length,
      meanMs: durations.reduce((a, b) => a + b, 0) / Math.max(1, durations.length),
      maxMs: Math.max(0, ...durations),
    }

    const second = startCli(file, port)
    children.push(second)
    await serving(url, second)
    const missing: number[] = []
    await pool([...acked], 16, async ([name, at]) => {
      const res = await fetch(`${url}/api/sites/${name}`, { headers: { authorization: auth } })
      await res.arrayBuffer()
      if (res.status !== 200) missing.push(killedAt - at)
    })
    return {
      sites,
      fileMb: statSync(file).size / 1024 / 1024,
      startSeconds,
      writeBacks,
      stall,
      loss: {
        acknowledged: acked.size,
        lost: missing.length,
        oldestLostSeconds: Math.max(0, ...missing) / 1000,
        duringWriteBack,
      },
    }
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The page's section on the state file. */
export function stateFileSection(f: StateFileFigures): string {
  return `
## The state file under a kill -9 (issue 34)

The built CLI with \`--state\` at the default interval (${INTERVAL_SECONDS} s) on MemoryStore; the
file starts with ${f.sites} sites (${f.fileMb.toFixed(1)} MB at the end; the CLI answered
${f.startSeconds.toFixed(1)} s after it was spawned), and ${CREATORS} clients create sites one after another
until the process is killed with SIGKILL in the middle of a write-back (the worst moment:
that write-back is lost with it). It is then started again from the file, and every create
that had been acknowledged is looked up. Meanwhile a \`/healthz\` ping every 20 ms, from a
worker thread, measures how long the event loop stops.

| figure | before (the chaos probe, 48k sites, 58 MB) | now |
|---|---|---|
| oldest acknowledged write lost to the kill | 5.29 s (bound: the interval, ${INTERVAL_SECONDS} s) | ${f.loss.oldestLostSeconds.toFixed(2)} s; ${f.loss.lost} of ${f.loss.acknowledged} acknowledged creates lost; the kill came ${f.loss.duringWriteBack ? 'during' : '**not** during'} a write-back |
| longest /healthz answer during a write-back | 491 ms | ${f.stall.maxDuringWriteBackMs.toFixed(0)} ms (bound: ${STALL_BOUND_MS} ms); ${f.stall.over50DuringWriteBack} of ${f.stall.pings} pings over ${STALL_BOUND_MS} ms |
| longest /healthz answer outside write-backs (the same creates) | | ${f.stall.maxOutsideWriteBackMs.toFixed(0)} ms |
| write-backs before the kill | | ${f.writeBacks.count}, ${f.writeBacks.meanMs.toFixed(0)} ms on average, at most ${f.writeBacks.maxMs.toFixed(0)} ms (temporary file created to renamed) |
`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const figures = await stateFilePhase(Number(process.env.RELIABILITY_STATE_SITES ?? SITES))
  console.log(JSON.stringify(figures, null, 2))
  console.log(stateFileSection(figures))
}
