/**
 * startServer: a real HTTP server with the API under `/api`, for production
 * use and as a stateful test double in other projects' test suites.
 */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { createEngine } from './engine/index.js'
import type { Engine } from './engine/types.js'
import { dashboardRouter, type DashboardRouterOptions } from './dashboard/index.js'
import { apiRouter, type ApiRouterOptions } from './http/router.js'
import { type CollectRouteOptions, collectRoute } from './collector/route.js'
import { ServiceError } from './errors.js'
import { sendError } from './http/errors.js'
import { limitedServer, type ServerTimeouts } from './server-limits.js'

export type { ServerTimeouts } from './server-limits.js'
import type { Controls } from './testing/controls.js'
import type { StateFile } from './testing/state-file.js'
import type { WebhookSpec } from './testing/webhooks.js'
import type { RateLimitOptions } from './http/rate-limit.js'
import { contextOf } from './engine/internal.js'
import { MemoryStore } from './store/memory/store.js'

/** Options of {@link startServer}. */
export interface ServerOptions {
  /** The engine to serve. Default: `createEngine()` (memory store, system clock). */
  engine?: Engine
  /** Default 0: a free port chosen by the system. */
  port?: number
  /** Default '127.0.0.1'. */
  host?: string
  /** Passed to apiRouter. */
  router?: ApiRouterOptions
  /** Passed to dashboardRouter, mounted at `/dashboard`. */
  dashboard?: DashboardRouterOptions
  /** Deadlines for slow clients. Default: headers 10 s, whole request 30 s, idle keep-alive 5 s. */
  timeouts?: ServerTimeouts
  /** Most open connections; more are closed at once. Default 1024. */
  maxConnections?: number
  /**
   * Mounts the test-double controls at `/__admin` and turns on the request
   * journal and fault injection of the API. Refused on a non-loopback host
   * without `adminToken`. Default false: no admin path, and the API does no
   * journal or fault work at all.
   */
  admin?: boolean
  /** With `admin`: every admin call needs `Authorization: Bearer <adminToken>`. */
  adminToken?: string
  /**
   * Keeps the state between runs in this JSON file (MemoryStore only; a
   * shared store is durable already): seeded from it at start if it exists
   * (a bad file stops the start and is left untouched), written back
   * atomically on close and at most every `stateInterval` seconds while it changes.
   */
  stateFile?: string
  /** Seconds between write-backs of `stateFile` while the state changes. Default 5. */
  stateInterval?: number
  /**
   * Webhooks that receive the engine's site events (PUBLISH, UNPUBLISH,
   * SITE_CREATED, SITE_DELETED) from the start, as `POST /__admin/webhooks`
   * registers them; reset keeps these. See docs/testing.md.
   */
  webhooks?: readonly WebhookSpec[]
  /**
   * Duda's rate limit: past `perSecond` calls in one second, a master
   * account's `/api` calls answer 429 TooManyRequests with Retry-After.
   * Default: off. With `admin`, `PUT /__admin/rate-limit` changes it while serving.
   */
  rateLimit?: RateLimitOptions
  /**
   * Options of the `/collect/{site_name}` beacon endpoint: `geo` (default:
   * no geo header read; `cdnGeo({ provider })` for the CDN in front),
   * `beaconsPerMinute` (per client IP and site, default 600, 0 = no limit),
   * `maxPendingRecordings` (default 10,000). See docs/analytics.md.
   */
  collector?: CollectRouteOptions
}

/** A running server. */
export interface RunningServer {
  /** Like `http://127.0.0.1:PORT`; the API is under `${url}/api`, the sub-account dashboard under `${url}/dashboard`. */
  url: string
  /** The engine being served (the given one or the default). */
  engine: Engine
  /** The Node HTTP server (its timeouts and connection cap are set as the options say). */
  server: Server
  /**
   * The test-double controls, in process (the calls `/__admin` serves). With
   * `admin` they exist from the start; otherwise they are made on first use,
   * and reset then keeps the masters existing at that moment. The journal and
   * faults see API calls only with `admin`.
   */
  readonly controls: Controls
  /** Stops accepting connections, ends idle keep-alive ones, and resolves when closed. Does not close the engine. */
  close(): Promise<void>
}

/** Starts the API on an HTTP server; resolves once it is listening. */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const engine = options.engine ?? createEngine()
  const host = options.host ?? '127.0.0.1'
  if (options.admin && options.adminToken === undefined && !isLoopback(host)) {
    throw new Error(`startServer: admin on host ${host}, which is not loopback, needs an adminToken`)
  }
  const store = options.stateFile === undefined ? undefined : contextOf(engine).store
  if (store !== undefined && !(store instanceof MemoryStore)) {
    throw new Error(
      'startServer: stateFile keeps a MemoryStore between runs; this engine has another store, which keeps its state itself',
    )
  }
  // Loaded here, not at the top: importing the package root stays free of the test-double code.
  const { createControls } = await import('./testing/controls.js')
  const app = express()
  app.disable('x-powered-by')
  let controls: Controls | undefined
  let stateFile: StateFile | undefined
  if (options.admin || options.stateFile !== undefined || options.webhooks !== undefined) {
    controls = createControls(engine)
    await controls.ready()
    controls.useStartupSettings({
      ...(options.webhooks ? { webhooks: options.webhooks } : {}),
      ...(options.admin && options.rateLimit ? { rateLimit: options.rateLimit } : {}),
    })
  }
  if (options.stateFile !== undefined) {
    const { StateFile } = await import('./testing/state-file.js')
    stateFile = await StateFile.open(controls!, store as MemoryStore, {
      path: options.stateFile,
      ...(options.stateInterval === undefined ? {} : { intervalSeconds: options.stateInterval }),
    })
  }
  if (options.admin) {
    const { adminRouter } = await import('./testing/admin.js')
    app.use('/api', apiRouter(engine, { ...options.router, hooks: controls!.apiHooks }))
    app.use('/__admin', adminRouter(controls!, options.adminToken === undefined ? {} : { token: options.adminToken }))
  } else {
    const rateLimit = options.rateLimit ?? options.router?.rateLimit
    app.use('/api', apiRouter(engine, { ...options.router, ...(rateLimit ? { rateLimit } : {}) }))
  }
  app.use('/collect', collectRoute(engine, options.collector))
  app.use('/dashboard', dashboardRouter(engine, options.dashboard))
  // Every path nothing above serves: the API's JSON 404, never Express's HTML page.
  app.use((req, res) => sendError(res, new ServiceError('NotFound', `no endpoint at ${req.method} ${req.path}`)))
  const server = limitedServer(app, options.timeouts, options.maxConnections)
  server.listen(options.port ?? 0, host)
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve)
    server.once('error', reject)
  }).catch((error: unknown) => {
    // Not started: the state file stays as it was found.
    stateFile?.discard()
    throw error
  })
  const { port } = server.address() as AddressInfo
  const shownHost = host.includes(':') ? `[${host}]` : host
  let closing: Promise<void> | undefined
  return {
    url: `http://${shownHost}:${port}`,
    engine,
    server,
    get controls() {
      controls ??= createControls(engine)
      return controls
    },
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()))
        server.closeIdleConnections()
      }).then(async () => {
        // After the last call has answered: the state file gets the final state.
        controls?.abandonWebhookDeliveries()
        await stateFile?.close()
      })
      return closing
    },
  }
}

/** 127.0.0.0/8, ::1 (also IPv4-mapped) and localhost. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '')
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4)
}
