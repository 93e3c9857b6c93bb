/**
 * Issue 34's probes of the TLS handshake deadline and of the drain, on the
 * CLI of this build (`dist/esm/lib/cli/index.js`; RELIABILITY_CLI names another
 * one, to measure an older build) with its default limits:
 *
 * - HTTPS recovery: `mobisite --tls` under 1,100 TCP sockets that never send
 *   a ClientHello; the time from opening them until a normal HTTPS request
 *   is answered again.
 * - Drain under keep-alive load: clients on kept-alive sockets and clients
 *   opening a new socket per request keep sending through SIGTERM with
 *   `--shutdown-delay` 0 and 2, on MemoryStore and, when REDIS_URL / DATABASE_URL
 *   are set, on Redis (own random key prefix) and PostgreSQL (own schema).
 *
 * Run alone (after `npm run build`): `node --import tsx benchmark/reliability/drain-tls.ts`.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { Agent, request } from 'node:http'
import { get as httpsGet } from 'node:https'
import { connect, type Socket } from 'node:net'
import { fileURLToPath } from 'node:url'
import { deleteRedisPrefixes, dropPgSchema } from '../lib/cleanup.js'
import { sleep } from './common.js'

const CLI = process.env.RELIABILITY_CLI ?? fileURLToPath(new URL('../../dist/esm/lib/cli/index.js', import.meta.url))
const PASSWORD = 'drain-probe-secret'
const AUTH = `Basic ${Buffer.from(`alice:${PASSWORD}`).toString('base64')}`

/** What the HTTPS recovery probe measured. */
export interface TlsRecoveryFigures {
  sockets: number
  /** Seconds from the first socket opened until an HTTPS request was answered 200 again; -1: never within the wait. */
  recoveredAfter: number
  /** Seconds it took to open them all (a hundred at a time). */
  openedIn: number
  /** Sockets the server closed within a second of their connect (the connection cap). */
  closedAtOnce: number
  /** Seconds until the last idle socket was closed by the server; -1: some were still open. */
  lastClosedAfter: number
  /** HTTPS requests that got no answer before the recovery. */
  failedBefore: number
}

/** What the drain probe measured on one store with one `--shutdown-delay`. */
export interface DrainFigures {
  store: string
  delaySeconds: number
  /** Requests sent after SIGTERM was sent. */
  sentAfterSignal: number
  kept: { requests: number; answered: number; resets: number }
  fresh: { requests: number; answered: number; refused: number; resets: number; other: number }
  /** Answers lacking `Connection: close` to requests sent after the server logged `shutting down`. */
  keptAliveAnswers: number
  /** Seconds from the signal to the first refused connection. */
  listenerClosedAfter: number
  exitCode: number | null
  exitedAfter: number
}

/** Everything {@link drainTlsSection} reports. */
export interface DrainTlsResult {
  tls: TlsRecoveryFigures
  drains: DrainFigures[]
}

interface Cli {
  child: ChildProcess
  url: string
  /** The `time` of the first log line with this message, once it has been written. */
  loggedAt(msg: string): number | undefined
  exited: Promise<number | null>
}

/** Starts the CLI on a free port and resolves once its `listening` line is out. */
async function startCli(args: string[], env: Record<string, string>): Promise<Cli> {
  const child = spawn(process.execPath, [CLI, '--quiet', '--port', '0', ...args], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      MOBISITE_USER: 'alice',
      MOBISITE_PASSWORD: PASSWORD,
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const logged = new Map<string, number>()
  let url = ''
  let partial = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n')
    partial = lines.pop() ?? ''
    for (const line of lines) {
      let entry: { msg?: string; time?: number; url?: string }
      try {
        entry = JSON.parse(line) as typeof entry
      } catch {
        continue
      }
      if (entry.msg !== undefined && entry.time !== undefined && !logged.has(entry.msg))
        logged.set(entry.msg, entry.time)
      if (entry.msg === 'listening') url = entry.url ?? ''
    }
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  for (let waited = 0; url === ''; waited += 50) {
    if (child.exitCode !== null || waited > 30_000) throw new Error(`the CLI did not start (${args.join(' ')})`)
    await sleep(50)
  }
  return { child, url, loggedAt: (msg) => logged.get(msg), exited }
}

/** Issue 34 (a): HTTPS answers again after `sockets` idle TLS sockets, with the server's defaults. */
export async function tlsRecoveryPhase(sockets = 1_100, waitSeconds = 30): Promise<TlsRecoveryFigures> {
  const cli = await startCli(['--tls'], { MOBISITE_STORE: 'memory' })
  const { port } = new URL(cli.url)
  const started = Date.now()
  const closedAt: number[] = []
  let closedAtOnce = 0
  const open: Socket[] = []
  // A hundred at a time: all at once would overflow the listen backlog, and the kernel's SYN retries would spread them over seconds.
  while (open.length < sockets) {
    const batch = Array.from({ length: Math.min(100, sockets - open.length) }, () => {
      const socket = connect(Number(port), '127.0.0.1')
      let connectedAt = Date.now()
      socket.on('error', () => {})
      socket.once('connect', () => (connectedAt = Date.now()))
      socket.once('close', () => {
        closedAt.push(Date.now() - started)
        if (Date.now() - connectedAt < 1_000) closedAtOnce++
      })
      return socket
    })
    await Promise.all(
      batch.map((socket) => new Promise((resolve) => socket.once('connect', resolve).once('close', resolve))),
    )
    open.push(...batch)
  }
  const openedIn = (Date.now() - started) / 1000
  let failedBefore = 0
  let recoveredAfter = -1
  while (Date.now() - started < waitSeconds * 1000) {
    if ((await httpsStatus(cli.url)) === 200) {
      recoveredAfter = (Date.now() - started) / 1000
      break
    }
    failedBefore++
    await sleep(250)
  }
  while (closedAt.length < sockets && Date.now() - started < waitSeconds * 1000) await sleep(100)
  const figures = {
    sockets,
    recoveredAfter,
    openedIn,
    closedAtOnce,
    lastClosedAfter: closedAt.length === sockets ? Math.max(...closedAt) / 1000 : -1,
    failedBefore,
  }
  for (const socket of open) socket.destroy()
  cli.child.kill('SIGTERM')
  await cli.exited
  return figures
}

/** The status of `GET /healthz` over HTTPS on a new connection; 0 when none came within 2 s. */
function httpsStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    // Loopback and a certificate made by the server under test: what is measured is whether it answers.
    const req = httpsGet(`${url}/healthz`, { rejectUnauthorized: false, agent: false }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on('error', () => resolve(0))
    req.setTimeout(2_000, () => req.destroy())
  })
}

/** A store the drain probe runs on, and how to remove what it left. */
interface DrainStore {
  store: string
  env: Record<string, string>
  cleanup(): Promise<void>
}

/** MemoryStore, then Redis and PostgreSQL when REDIS_URL / DATABASE_URL are set, each on its own prefix or schema. */
export function drainStores(): DrainStore[] {
  const stores: DrainStore[] = [{ store: 'MemoryStore', env: { MOBISITE_STORE: 'memory' }, cleanup: async () => {} }]
  const tag = randomBytes(6).toString('hex')
  const redisUrl = process.env.REDIS_URL
  if (redisUrl) {
    const prefix = `mobisite-drain-${tag}:`
    stores.push({
      store: 'RedisStore',
      env: { MOBISITE_STORE: redisUrl, MOBISITE_REDIS_PREFIX: prefix },
      cleanup: () => deleteRedisPrefixes(redisUrl, [prefix]),
    })
  }
  const databaseUrl = process.env.DATABASE_URL
  if (databaseUrl) {
    const schema = `mobisite_drain_${tag}`
    stores.push({
      store: 'PostgresStore',
      env: { MOBISITE_STORE: databaseUrl, MOBISITE_PG_SCHEMA: schema },
      cleanup: () => dropPgSchema(databaseUrl, schema),
    })
  }
  return stores
}

/** One request as the drain probe saw it. */
interface Outcome {
  sentAt: number
  reused: boolean
  status?: number
  close?: boolean
  error?: string
}

/** `GET /api/sites/{name}` (a store read behind Basic auth) on `agent`'s socket, or a new one without. */
function readSite(url: string, agent: Agent | undefined): Promise<Outcome> {
  const sentAt = Date.now()
  return new Promise((resolve) => {
    const req = request(`${url}/api/sites/drain-probe`, { agent: agent ?? false, headers: { authorization: AUTH } })
    req.on('response', (res) => {
      res.resume()
      res.on('end', () =>
        resolve({
          sentAt,
          reused: req.reusedSocket,
          status: res.statusCode!,
          close: res.headers.connection === 'close',
        }),
      )
    })
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ sentAt, reused: req.reusedSocket, error: error.code ?? error.message }),
    )
    req.setTimeout(15_000, () => req.destroy(new Error('timeout')))
    req.end()
  })
}

/**
 * Issue 34 (b): `keptClients` clients on kept-alive sockets and `freshClients`
 * opening a new socket per request send back to back for `warmSeconds`, then
 * through SIGTERM (`--shutdown-delay` `delaySeconds`) until their connections are refused.
 */
export async function drainPhase(
  { store, env }: DrainStore,
  { keptClients = 16, freshClients = 8, warmSeconds = 1, delaySeconds = 2 } = {},
): Promise<DrainFigures> {
  const cli = await startCli(['--shutdown-delay', String(delaySeconds)], env)
  const outcomes: Outcome[] = []
  const loop = async (agent: Agent | undefined) => {
    for (;;) {
      const outcome = await readSite(cli.url, agent)
      outcomes.push(outcome)
      if (outcome.error === 'ECONNREFUSED') return
      // A pause now and then: a socket idle at SIGTERM, then written on, is the case that was reset.
      if (agent) await sleep(Math.random() * 20)
    }
  }
  const clients = [
    ...Array.from({ length: keptClients }, () => loop(new Agent({ keepAlive: true, maxSockets: 1 }))),
    ...Array.from({ length: freshClients }, () => loop(undefined)),
  ]
  await sleep(warmSeconds * 1000)
  const signalledAt = Date.now()
  cli.child.kill('SIGTERM')
  await Promise.all(clients)
  const exitCode = await cli.exited
  const exitedAfter = (Date.now() - signalledAt) / 1000
  // The server's own clock: a request sent after this line was read by a draining server.
  const draining = cli.loggedAt('shutting down') ?? signalledAt
  const after = outcomes.filter((o) => o.sentAt >= signalledAt)
  const kept = after.filter((o) => o.reused)
  const fresh = after.filter((o) => !o.reused)
  const isReset = (o: Outcome) => o.error === 'ECONNRESET' || o.error === 'EPIPE'
  const firstRefused = Math.min(...after.filter((o) => o.error === 'ECONNREFUSED').map((o) => o.sentAt))
  return {
    store,
    delaySeconds,
    sentAfterSignal: after.length,
    kept: { requests: kept.length, answered: kept.filter((o) => o.status).length, resets: kept.filter(isReset).length },
    fresh: {
      requests: fresh.length,
      answered: fresh.filter((o) => o.status).length,
      refused: fresh.filter((o) => o.error === 'ECONNREFUSED').length,
      resets: fresh.filter(isReset).length,
      other: fresh.filter((o) => o.error !== undefined && o.error !== 'ECONNREFUSED' && !isReset(o)).length,
    },
    keptAliveAnswers: after.filter((o) => o.sentAt > draining && o.status && !o.close).length,
    listenerClosedAfter: (firstRefused - draining) / 1000,
    exitCode,
    exitedAfter,
  }
}

/** Every probe of this module, each store cleaned up after its run. */
export async function drainTlsPhases(): Promise<DrainTlsResult> {
  const tls = await tlsRecoveryPhase()
  const drains: DrainFigures[] = []
  for (const store of drainStores()) {
    try {
      // The CLI's default delay, where an idle kept-alive socket meets the listener's close at once, and issue 34's 2 s.
      for (const delaySeconds of [0, 2]) drains.push(await drainPhase(store, { delaySeconds }))
    } finally {
      await store.cleanup()
    }
  }
  return { tls, drains }
}

/** The pass/fail lines of {@link drainTlsPhases}' figures. */
export function drainTlsChecks({ tls, drains }: DrainTlsResult): { what: string; ok: boolean }[] {
  return [
    {
      what: `TLS: HTTPS answered again ${tls.recoveredAfter.toFixed(1)} s after ${tls.sockets} idle TLS sockets were opened, <= 12 s`,
      ok: tls.recoveredAfter >= 0 && tls.recoveredAfter <= 12,
    },
    ...drains.map((d) => ({
      what: `drain ${d.store}, --shutdown-delay ${d.delaySeconds}: ${d.kept.resets} resets of ${d.kept.requests} requests on kept-alive sockets after SIGTERM, ${d.keptAliveAnswers} answers without Connection: close, exit ${d.exitCode}`,
      ok: d.kept.requests > 0 && d.kept.resets === 0 && d.keptAliveAnswers === 0 && d.exitCode === 0,
    })),
  ]
}

/** The Markdown section of issue 34's probes. */
export function drainTlsSection({ tls, drains }: DrainTlsResult): string {
  const seconds = (s: number) => (s < 0 ? 'never' : `${s.toFixed(1)} s`)
  return `
## TLS handshakes and the drain (issue 34)

\`mobisite\` CLI of this build, default limits (header timeout 10 s, 1,024 connections).

**${tls.sockets} TCP sockets that never send a ClientHello** to \`mobisite --tls\`, then one HTTPS
request every 250 ms on a new connection:

- opened in ${seconds(tls.openedIn)}, a hundred at a time
- HTTPS answered again ${seconds(tls.recoveredAfter)} after the first was opened (goal: 12 s); ${tls.failedBefore} requests got no answer before
- closed at once by the connection cap: ${tls.closedAtOnce}; the last idle socket closed after ${seconds(tls.lastClosedAfter)}

**Drain under keep-alive load**: 16 clients on kept-alive sockets (pausing 0–20 ms between
requests, so that some sockets are idle at SIGTERM) and 8 opening a new socket per request
(\`GET /api/sites/{name}\`, a store read behind Basic auth) send through SIGTERM, with
\`--shutdown-delay 0\` (the CLI's default) and \`2\`, until their connections are refused.
MemoryStore always; RedisStore with \`REDIS_URL\` and PostgresStore with \`DATABASE_URL\`, each on a
key prefix or schema of its own, removed afterwards. Requests are counted from the moment SIGTERM is
sent; answers without \`Connection: close\` from the server's own \`shutting down\` log line (a
request sent after it was read by a draining server). A request on a kept-alive socket after
SIGTERM is one sent on a socket idle at the signal: a socket busy then gets \`Connection: close\`
on its answer in flight, and its client moves to a new socket.

| store | delay | requests after SIGTERM | on kept-alive sockets: answered / resets | answers without \`Connection: close\` | new sockets: answered / refused / reset / other | listener closed after | exit |
|---|---:|---:|---|---:|---|---:|---|
${drains
  .map(
    (d) =>
      `| ${d.store} | ${d.delaySeconds} s | ${d.sentAfterSignal} | ${d.kept.answered} / **${d.kept.resets}** | **${d.keptAliveAnswers}** | ${d.fresh.answered} / ${d.fresh.refused} / ${d.fresh.resets} / ${d.fresh.other} | ${seconds(d.listenerClosedAfter)} | ${d.exitCode} after ${seconds(d.exitedAfter)} |`,
  )
  .join('\n')}

A refused new socket is a connection attempted after the listener closed: the client may retry
elsewhere. A reset new socket is one the kernel had completed but the server had not yet taken
from its accept queue when the listener closed: the server never read its request.
`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await drainTlsPhases()
  for (const { what, ok } of drainTlsChecks(result)) console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`)
  console.log(drainTlsSection(result))
}
