/**
 * Shared pieces of the Redis tests: the REDIS_URL gate, random key prefixes,
 * cleanup of exactly the keys a test wrote, a redis-server the test owns,
 * and mobisite processes on a shared store (spawnMobisite) with the
 * checked API call the multi-process suites make (request).
 */
import type { ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import type { Test as Tap } from 'tap'
import { freePort, runCli, startChild, stop as stopChild, waitFor } from './cli.js'
import { assertConforms } from './openapi-check.js'

/** The Redis under test, or undefined when the Redis suites are to be skipped. */
export const REDIS_URL: string | undefined = process.env.REDIS_URL || undefined

/**
 * Gate for a Redis test file. Without REDIS_URL the file skips with a visible
 * reason; with it, an unreachable Redis FAILS the file. Returns a connected
 * admin client (closed at teardown), or undefined when the caller must stop.
 */
export async function redisOrSkip(t: Tap, what: string): Promise<Redis | undefined> {
  if (!REDIS_URL) {
    t.plan(0, `REDIS_URL not set: ${what} skipped`)
    return undefined
  }
  const admin = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
  let cause = ''
  admin.on('error', (err: Error) => (cause ||= err.message))
  try {
    await admin.connect()
    await admin.ping()
  } catch (err) {
    admin.disconnect()
    t.fail(`REDIS_URL=${REDIS_URL} is set but Redis is unreachable: ${cause || (err as Error).message}`)
    return undefined
  }
  t.teardown(() => admin.quit().then(() => undefined))
  return admin
}

/** A fresh key prefix no other test uses. */
export function randomPrefix(tag = 'test'): string {
  return `mobisite-${tag}:${randomBytes(6).toString('hex')}:`
}

/** Every key under `prefix` (SCAN, never KEYS). */
export async function keysUnder(admin: Redis, prefix: string): Promise<string[]> {
  const found: string[] = []
  let cursor = '0'
  do {
    const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
    found.push(...keys)
    cursor = next
  } while (cursor !== '0')
  return found
}

/** Deletes the keys under `prefix`, and only those. */
export async function deleteUnder(admin: Redis, prefix: string): Promise<void> {
  const keys = await keysUnder(admin, prefix)
  for (let i = 0; i < keys.length; i += 500) await admin.del(...keys.slice(i, i + 500))
}

export { freePort }

/**
 * Gate for a test that starts redis-server processes of its own (an outage,
 * a failover): REDIS_URL is the sign that Redis is on this machine and its
 * suites are wanted. Without it the test plans 0 and says so; returns
 * whether to go on.
 */
export function ownRedisOrSkip(t: Tap, what: string): boolean {
  if (REDIS_URL) return true
  t.plan(0, `REDIS_URL not set: ${what} (own redis-server processes) skipped`)
  return false
}

/** A redis-server owned by a test: started, stopped and restarted on one port. */
export class OwnRedis {
  private child: ChildProcess | undefined
  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`
  }

  /** Starts the server (no persistence) and waits until it answers PING. */
  async start(): Promise<void> {
    const args = ['--port', String(this.port), '--save', '', '--appendonly', 'no']
    const { child } = startChild(undefined, 'redis-server', args, { env: process.env })
    this.child = child
    const probe = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
    probe.on('error', () => {})
    try {
      for (let i = 0; i < 100; i++) {
        if (child.exitCode !== null) throw new Error(`redis-server on port ${this.port} exited (${child.exitCode})`)
        try {
          await probe.connect()
          await probe.ping()
          return
        } catch {
          probe.disconnect()
          await new Promise((r) => setTimeout(r, 50))
        }
      }
      throw new Error(`redis-server on port ${this.port} did not start`)
    } finally {
      probe.disconnect()
    }
  }

  /** Freezes (SIGSTOP) or thaws (SIGCONT) the server: it keeps its connections but answers nothing. */
  signal(sig: 'SIGSTOP' | 'SIGCONT'): void {
    this.child?.kill(sig)
  }

  /** Kills the server (SIGKILL: connections drop at once) and waits for its exit. */
  async stop(): Promise<void> {
    const child = this.child
    this.child = undefined
    if (!child || child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((r) => child.once('exit', r))
    child.kill('SIGKILL')
    await exited
  }
}

/** A mobisite CLI (`lib/cli/index.ts`) running in its own process. */
export interface MobisiteProcess {
  /** The API base URL the process printed, like `http://127.0.0.1:PORT/api`. */
  api: string
  child: ChildProcess
  /** Everything the process wrote, for failure messages. */
  output(): string
  /** SIGTERM, then SIGKILL if it has not exited within 3 s. Idempotent. */
  stop(): Promise<void>
}

/**
 * Starts `mobisite ...args` from source (cli.ts's {@link runCli}: none of the
 * caller's store or master settings) with `env` added and resolves once it
 * prints its API URL. Rejects, having killed it, if it exits or stays silent
 * for 60 s. Register `stop` as a teardown before awaiting more.
 */
export async function spawnMobisite(env: Record<string, string>, args: string[] = []): Promise<MobisiteProcess> {
  const cli = runCli(undefined, args, env)
  // SIGTERM, then SIGKILL if it has not exited within 3 s.
  const stop = async () => {
    if (cli.ended()) return
    const timer = setTimeout(() => cli.child.kill('SIGKILL'), 3000)
    await stopChild(cli)
    clearTimeout(timer)
  }
  const apiUrl = () => /(http:\/\/\S+\/api)\b/.exec(cli.stderr())?.[1]
  try {
    await waitFor(cli, 'printing its API URL', () => apiUrl() !== undefined)
  } catch (error) {
    await stop()
    throw new Error(`mobisite process ${(error as Error).message}`)
  }
  return { api: apiUrl()!, child: cli.child, output: cli.output, stop }
}

/** Result of {@link request}. */
export interface ApiResponse {
  status: number
  // biome-ignore lint/suspicious/noExplicitAny: tests read any field of any answer's JSON, as a client would
  body: any
}

/**
 * One API call with HTTP Basic auth. A call unanswered within 15 s fails the
 * test as a hang (the bound only turns a hang into a failure).
 */
export async function request(
  api: string,
  auth: [string, string],
  method: string,
  path: string,
  body?: unknown,
): Promise<ApiResponse> {
  const headers: Record<string, string> = {
    authorization: `Basic ${Buffer.from(`${auth[0]}:${auth[1]}`).toString('base64')}`,
  }
  if (body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(api + path, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15_000),
  })
  const text = await res.text()
  assertConforms({
    method,
    path: new URL(api + path).pathname.replace(/^\/api/, '') + new URL(api + path).search,
    status: res.status,
    headers: Object.fromEntries(res.headers),
    text,
  })
  let parsed: unknown = text
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    // not JSON: keep the text, the assertion will show it
  }
  return { status: res.status, body: parsed }
}
