/**
 * Issue 23's attacks on authentication and the test controls, for
 * `npm run reliability`. Each runs against a server child with today's
 * protections and, for "before", the same build with them switched off
 * (`legacyAuth`: no password gate, no failed-login limits), which is how
 * main behaved. Clients use their own loopback addresses (127.x.y.z), so a
 * flood "from many IPs" and a valid client "from another IP" are real.
 */
import { randomBytes } from 'node:crypto'
import { connect } from 'node:net'
import { request } from 'node:http'
import { type Child, PASSWORDS, sleep } from './common.js'

const basicOf = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

/**
 * One GET /api/agents from `localAddress`; the status (0: no answer within
 * `timeoutMs`, a hard deadline), the time taken, and how much of it went to
 * the TCP connect: a SYN the kernel dropped while the accept queue was full
 * is sent again a second later (Linux's initial RTO), which is the kernel's
 * queue, not the server's work. Settles exactly once, whatever the socket does.
 */
function get(url: string, authorization: string, localAddress: string, timeoutMs = 30_000) {
  return new Promise<{ status: number; ms: number; connectMs: number }>((resolve) => {
    const started = performance.now()
    let connected: number | undefined
    let settled = false
    const settle = (status: number) => {
      if (settled) return
      settled = true
      clearTimeout(deadline)
      const now = performance.now()
      resolve({ status, ms: now - started, connectMs: (connected ?? now) - started })
    }
    const req = request(`${url}/api/agents`, { headers: { authorization }, localAddress, agent: false }, (res) => {
      res.resume()
      res.on('end', () => settle(res.statusCode ?? 0))
      res.on('close', () => settle(res.complete ? (res.statusCode ?? 0) : 0))
    })
    const deadline = setTimeout(() => {
      settle(0)
      req.destroy()
    }, timeoutMs)
    req.on('socket', (socket) => socket.once('connect', () => (connected = performance.now())))
    req.on('error', () => settle(0))
    req.on('close', () => settle(0))
    req.end()
  })
}

/** `count` sockets, each from its own loopback address, send a random credential and close at once. */
async function closedSocketFlood(url: string, count: number): Promise<void> {
  const { hostname, port } = new URL(url)
  await Promise.all(
    Array.from(
      { length: count },
      (_, i) =>
        new Promise<void>((resolve) => {
          const socket = connect({ host: hostname, port: Number(port), localAddress: `127.1.${i >> 8}.${i & 255}` })
          socket.on('error', () => resolve())
          socket.on('close', () => resolve())
          const auth = basicOf('alice', randomBytes(9).toString('base64'))
          socket.write(`GET /api/agents HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: ${auth}\r\n\r\n`, () =>
            socket.destroy(),
          )
        }),
    ),
  )
}

/** Valid GETs (a cached credential) completed in `ms`, 4 at a time, from 127.0.0.4. */
async function validRate(url: string, ms: number): Promise<number> {
  const auth = basicOf('alice', PASSWORDS.alice)
  await get(url, auth, '127.0.0.4')
  let done = 0
  const until = performance.now() + ms
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (performance.now() < until) if ((await get(url, auth, '127.0.0.4')).status === 200) done++
    }),
  )
  return done / (ms / 1000)
}

/** Random wrong passwords from one IP (127.0.0.5) at `perSecond`, until `stop()`; counts answers by status. */
function wrongPasswordFlood(url: string, perSecond: number) {
  const statuses: Record<number, number> = {}
  const pending = new Set<Promise<void>>()
  const timer = setInterval(() => {
    const sent = get(url, basicOf('bob', randomBytes(9).toString('base64')), '127.0.0.5').then(({ status }) => {
      statuses[status] = (statuses[status] ?? 0) + 1
      pending.delete(sent)
    })
    pending.add(sent)
  }, 1000 / perSecond)
  return {
    statuses,
    stop: async () => {
      clearInterval(timer)
      await Promise.all(pending)
    },
  }
}

/** Figures of one server for the auth attacks. */
export interface AuthFigures {
  /** Valid uncached login right after the closed-socket flood: status and ms. */
  afterFlood: { status: number; ms: number; connectMs: number }
  floodSockets: number
  /** Valid GETs per second alone, and during a wrong-password flood from one IP. */
  baseline: number
  duringFlood: number
  /** Wrong-password answers during that flood; 401s are the guesses that got a password check. */
  guesses: Record<number, number>
  guessSeconds: number
}

/** The wrong-password flood's rate: issue 23's 15 guesses per second. */
const GUESSES_PER_SECOND = 15

/**
 * Runs the auth attacks against a fresh server child. The valid login after
 * the flood waits at most `loginTimeoutMs` (then status 0, "no answer").
 */
export async function authPhase(
  child: Child,
  floodSockets: number,
  seconds: number,
  loginTimeoutMs = 300_000,
): Promise<AuthFigures> {
  await closedSocketFlood(child.url, floodSockets)
  // carol has never logged in: her check is uncached and must wait for whatever the flood left queued.
  const afterFlood = await get(child.url, basicOf('carol', PASSWORDS.carol), '127.0.0.3', loginTimeoutMs)
  await sleep(500)
  const baseline = await validRate(child.url, seconds * 500)
  const flood = wrongPasswordFlood(child.url, GUESSES_PER_SECOND)
  const duringFlood = await validRate(child.url, seconds * 1000)
  await flood.stop()
  return { afterFlood, floodSockets, baseline, duringFlood, guesses: flood.statuses, guessSeconds: seconds }
}

/** DNS rebinding: the test controls without a token, asked with `Host: x.evil:PORT`. */
export async function rebindingProbe(child: Child): Promise<{ seed: number; snapshot: number }> {
  const { port } = new URL(child.url)
  const ask = (method: string, path: string, body?: string) =>
    new Promise<number>((resolve) => {
      const req = request(
        `${child.url}${path}`,
        {
          method,
          headers: { host: `x.evil:${port}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          agent: false,
        },
        (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode ?? 0))
        },
      )
      req.on('error', () => resolve(0))
      req.end(body)
    })
  const seed = await ask('POST', '/__admin/seed', JSON.stringify({ masters: [{ user: 'intruder', password: 'x' }] }))
  const snapshot = await ask('GET', '/__admin/snapshot')
  return { seed, snapshot }
}

/** The issue's slow agents source: what the old general mode cost on a 22-byte UA, and what is done now. */
export async function slowRegexProbe(): Promise<{ generalMs: number; refused: string }> {
  const source = '.*iPhone.*|.*Android.*Mobile.*|(\\d+\\.?)+z'
  const { compileSource } = await import('../../lib/agents/compile.js')
  const { createAgentMatcher } = await import('../../lib/agents/matcher.js')
  // Each byte costs 1.8 times the one before; 22 keeps the run short (the issue measured 1.27 s at 28).
  const ua = '1'.repeat(22)
  const general = compileSource(source, 16_384)
  const started = performance.now()
  general.test(ua)
  const generalMs = performance.now() - started
  let refused = 'accepted'
  try {
    createAgentMatcher(source)
  } catch (error) {
    refused = (error as { reason?: string }).reason ?? String(error)
  }
  return { generalMs, refused }
}
