/**
 * Shared pieces of `npm run reliability`: the server child process, a small
 * keep-alive HTTP client that keeps the raw answer, and Basic credentials.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { Agent, request } from 'node:http'
import { fileURLToPath } from 'node:url'

export const PASSWORDS = { alice: 'alice-secret', bob: 'b:o:b:secret', carol: 'carol-secret' } as const
export const basic = (user: keyof typeof PASSWORDS): string =>
  `Basic ${Buffer.from(`${user}:${PASSWORDS[user]}`).toString('base64')}`

/** A server child process (benchmark/reliability/server.mjs). */
export interface Child {
  url: string
  process: ChildProcess
  memory(): Promise<{ rss: number; heapUsed: number; errors: number }>
  stop(): Promise<void>
}

const script = fileURLToPath(new URL('./server.mjs', import.meta.url))

/** What the server child runs on; see server.mjs. */
export interface ChildConfig {
  redisUrl?: string
  prefix?: string
  databaseUrl?: string
  schema?: string
  /** No password gate and no failed-login limits: main before issue 23. */
  legacyAuth?: boolean
  admin?: boolean
  /** `GET /metrics` on (startServer metrics: true). */
  metrics?: boolean
}

export async function startChild(config: ChildConfig = {}): Promise<Child> {
  const child = fork(script, [JSON.stringify(config)], {
    execArgv: ['--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { url: string }).url))
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)))
  })
  return {
    url,
    process: child,
    memory: () =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve(m as { rss: number; heapUsed: number; errors: number }))
        child.send('memory')
      }),
    stop: async () => {
      if (child.exitCode !== null) return
      const exited = new Promise((r) => child.once('exit', r))
      child.disconnect()
      await exited
    },
  }
}

/** One answer as it came off the wire. */
export interface Answer {
  status: number
  contentType: string
  text: string
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 })

/** Sends one request; a connection failure is status 0 with the error as text. */
export function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: Buffer | string,
  fresh = false,
): Promise<Answer> {
  return new Promise((resolve) => {
    const req = request(url, { method, headers, agent: fresh ? false : agent, timeout: 60_000 }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      )
      res.on('error', (error) => resolve({ status: 0, contentType: '', text: String(error) }))
    })
    req.on('error', (error) => resolve({ status: 0, contentType: '', text: String(error) }))
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.end(body)
  })
}

/** Runs `work` over `items` with at most `limit` at once. */
export async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!)
    }),
  )
}

export const MB = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1)
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
