/**
 * Duda's own client (`@dudadev/partner-api`, unmodified) against mobisite
 * over HTTPS: a `startServer({ tls: true })` with a master account, and a
 * client built as an integrator builds it, `new Duda({ user, pass, env })`.
 *
 * The client always speaks HTTPS to `env` on port 443 with its own agent.
 * A test that can bind 443 needs nothing else but trust of `server.ca`;
 * otherwise each call takes the client's documented per-request override
 * `{ agent }` (never a host or path). Both come from `dudaClientOptions`
 * (mobisite/testing), as a consumer's test gets them. Every exchange the
 * server answers is recorded for the OpenAPI check.
 */
import type { Agent } from 'node:https'
import type { Test } from 'tap'
import { Duda } from '@dudadev/partner-api'
import {
  createEngine,
  startServer,
  type Engine,
  type EngineOptions,
  type RunningServer,
  type ServerOptions,
} from '../../../lib/index.js'
import { dudaClientOptions } from '../../../lib/testing/index.js'
import type { Exchange } from '../openapi-check.js'
import { ALICE, BOB, type StoreKind } from '../testing.js'

/** A started TLS server, its client and what it answered. */
export interface DudaFixture {
  server: RunningServer
  engine: Engine
  /** The unmodified client, as alice (a partner master). */
  duda: Duda
  /** The same client as bob (not partner), for tenancy checks. */
  dudaBob: Duda
  /** The per-call override every call passes: `{ agent }` only. */
  via: { agent: Agent }
  /** Every exchange under `/api`, in order (path below `/api`, with its query). */
  exchanges: Exchange[]
}

/** Records every response under `/api`: method, path, status, headers and body text. */
export function recordExchanges(server: RunningServer): Exchange[] {
  const exchanges: Exchange[] = []
  server.server.on('request', (req, res) => {
    // Express has already taken the mount point off req.url when this listener runs.
    const path = (req as { originalUrl?: string }).originalUrl ?? req.url ?? ''
    if (!path.startsWith('/api/')) return
    const chunks: Buffer[] = []
    const write = res.write.bind(res) as (...args: unknown[]) => boolean
    const end = res.end.bind(res) as (...args: unknown[]) => typeof res
    const keep = (chunk: unknown): void => {
      if (typeof chunk === 'string') chunks.push(Buffer.from(chunk))
      else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk))
    }
    ;(res as { write: unknown }).write = (chunk: unknown, ...rest: unknown[]) => {
      keep(chunk)
      return write(chunk, ...rest)
    }
    ;(res as { end: unknown }).end = (chunk?: unknown, ...rest: unknown[]) => {
      if (typeof chunk !== 'function') keep(chunk)
      exchanges.push({
        method: req.method ?? 'GET',
        path: path.slice('/api'.length),
        status: res.statusCode,
        headers: res.getHeaders() as Exchange['headers'],
        text: Buffer.concat(chunks).toString('utf8'),
      })
      return end(chunk, ...rest)
    }
  })
  return exchanges
}

/** A client for `user` pointed at the server the way an integrator points it: `env: 'localhost'` by default. */
export function dudaClient(user: { user: string; password: string }, env = 'localhost'): Duda {
  return new Duda({ user: user.user, pass: user.password, env })
}

/**
 * A TLS server with a self-signed certificate on `kind`'s store, alice and
 * bob as masters, the client and the trusting agent; closed at teardown.
 */
export async function dudaServer(
  t: Test,
  kind: StoreKind,
  options: EngineOptions = {},
  server: Pick<ServerOptions, 'port' | 'webhooks'> = {},
): Promise<DudaFixture> {
  const engine = createEngine({ store: kind.make(t), ...options })
  await engine.addMasterAccount(ALICE)
  await engine.addMasterAccount(BOB)
  const running = await startServer({ engine, tls: true, host: '127.0.0.1', ...server })
  const exchanges = recordExchanges(running)
  const { env, agent } = dudaClientOptions(running)
  t.teardown(async () => {
    agent.destroy()
    await running.close()
    await engine.close()
  })
  return {
    server: running,
    engine,
    duda: dudaClient(ALICE, env),
    dudaBob: dudaClient(BOB, env),
    via: { agent },
    exchanges,
  }
}

/** The client's rejection for a failed call: `{ status, error }` where error is the JSON body. */
export interface ClientError {
  status: number
  error: { error_code?: string; message?: string }
}

/** Runs a client call expected to fail; answers its `{ status, error }`. */
export async function clientError(call: Promise<unknown>): Promise<ClientError> {
  try {
    await call
  } catch (error) {
    // The client rejects with [error, body] when the server answered, with an Error otherwise.
    const first = Array.isArray(error) ? error[0] : error
    if (typeof (first as ClientError | undefined)?.status === 'number') return first as ClientError
    throw error
  }
  throw new Error('the call succeeded where a failure was expected')
}

/**
 * startServer({ tls: true, port: 443 }) as the client expects it, with a
 * client and an agent that only trusts `server.ca` (no port). Port 443 is
 * one per machine: a test holding it makes this wait (up to a minute).
 * Undefined, with the test skipped, when the process may not bind it.
 */
export async function bindPort443(t: Test): Promise<{ server: RunningServer; duda: Duda; agent: Agent } | undefined> {
  const engine = createEngine()
  await engine.addMasterAccount(ALICE)
  const deadline = Date.now() + 60_000
  for (;;) {
    try {
      const server = await startServer({ engine, tls: true, port: 443 })
      // Port 443 is already the client's: only the trust is needed from it.
      const { agent } = dudaClientOptions(server)
      t.teardown(async () => {
        agent.destroy()
        await server.close()
        await engine.close()
      })
      return { server, duda: dudaClient(ALICE), agent }
    } catch (error) {
      const code = (error as { code?: string }).code
      if (code === 'EADDRINUSE' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 500))
        continue
      }
      await engine.close()
      if (code === 'EACCES' || code === 'EADDRINUSE') {
        t.comment(`skipped: port 443 cannot be bound (${code})`)
        return undefined
      }
      throw error
    }
  }
}
