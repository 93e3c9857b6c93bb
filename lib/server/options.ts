/**
 * The options and the answer of startServer (./index.ts), apart from the
 * server itself (./start.ts), which loads with the first start.
 */
import type { Server } from 'node:http'
import type { Engine } from '../engine/types.js'
import type { DashboardRouterOptions } from '../dashboard/index.js'
import type { ApiRouterOptions } from '../http/router.js'
import type { CollectRouteOptions } from '../collector/route.js'
import type { ServerTimeouts } from './limits.js'
import type { TlsOption } from './tls.js'
import type { Controls } from '../testing/controls.js'
import type { WebhookSpec } from '../testing/webhooks.js'
import type { RateLimitOptions } from '../http/rate-limit.js'
import type { Logger } from 'pino'
import type { Registry } from 'prom-client'

export type { ServerTimeouts } from './limits.js'

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
   * shared store is durable already). A regular file or a missing one, in a
   * folder this process can write to, used by no other process (a lock file
   * beside it): anything else stops the start (an Error whose `code` is
   * `MOBISITE_STATE_FILE_REFUSED`). Seeded from it at start if it exists (a
   * bad file stops the start and is left untouched), then written back
   * atomically, a slice at a time, once serving, within `stateInterval`
   * seconds of each change, and on close. See docs/testing.md.
   */
  stateFile?: string
  /** An acknowledged change is in `stateFile` at most this many seconds later. Default 5. */
  stateInterval?: number
  /**
   * Webhooks that receive the engine's site events (PUBLISH, UNPUBLISH,
   * SITE_CREATED, SITE_DELETED) from the start, as `POST /__admin/webhooks`
   * registers them; reset keeps these. See docs/testing.md.
   */
  webhooks?: readonly WebhookSpec[]
  /**
   * Let webhooks deliver to link-local and cloud-metadata addresses
   * (169.254.0.0/16, fe80::/10, fd00:ec2::254), which are refused by default:
   * an admin-token holder could otherwise reach what only this server can.
   * Loopback and private addresses are always allowed. Default false.
   */
  allowLinkLocalWebhooks?: boolean
  /**
   * Duda's rate limit: past `perSecond` calls in one second, a master
   * account's `/api` calls answer 429 TooManyRequests with Retry-After.
   * Default: off. With `admin`, `PUT /__admin/rate-limit` changes it while serving.
   */
  rateLimit?: RateLimitOptions
  /**
   * A pino logger: one access line per request (method, route template,
   * status, duration, request id, caller; never headers, query strings or
   * bodies; the probes and the collector's beacons at debug level),
   * unexpected errors, and shutdown. At level `silent` with no `metrics`,
   * requests are not observed at all (no `X-Request-Id` either).
   * Default: nothing is logged.
   */
  logger?: Logger
  /**
   * Prometheus metrics at `GET /metrics`: `true` for a registry of the
   * server's own with Node's default metrics, or a prom-client Registry to
   * fill. Default false. Besides the request and collector metrics, the
   * server exports `mobisite_build_info` and `mobisite_store_up` (the store
   * is read at each scrape, within 1 s). Names: docs/operations.md.
   */
  metrics?: boolean | Registry
  /**
   * Serve HTTPS: `{ key, cert }` (PEM), or `true` for a self-signed
   * certificate for `host` and the loopback names, made at start and never
   * written to disk (its PEM is `server.ca`). The url becomes `https://`;
   * cookies are `Secure` and links `https://`. `false` or absent: plain HTTP.
   */
  tls?: TlsOption | false
  /**
   * Express's `trust proxy` setting (true, a hop count, or addresses/subnets):
   * whether `X-Forwarded-For`/`-Proto`/`-Host` are believed. Decides the client
   * IP of the failed-login limits and the origin of links. Default: off.
   */
  trustProxy?: boolean | number | string | readonly string[]
  /**
   * The public base URL links point at (SSO links), e.g.
   * `https://sites.example.com`. Default: this server's own listening origin
   * (never the request's `Host`). An absolute `router.dashboardUrl` wins.
   */
  publicUrl?: string
  /**
   * Options of the `/collect/{site_name}` beacon endpoint: `geo` (default:
   * no geo header read; `cdnGeo({ provider })` for the CDN in front),
   * `beaconsPerMinute` (per client IP and site, default 600, 0 = no limit),
   * `maxPendingRecordings` (default 10,000). See docs/analytics.md.
   */
  collector?: CollectRouteOptions
}

/** Options of {@link RunningServer.shutdown}. */
export interface ShutdownOptions {
  /** Milliseconds of 503 readiness before new connections are refused (for load balancers to notice). Default 0. */
  delay?: number
  /**
   * Most milliseconds, counted from the end of `delay`, that open connections
   * get to finish their answers and close; then they are cut. Default 10,000.
   */
  timeout?: number
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
  /** With `tls: true`: the self-signed certificate (PEM) a client trusts, e.g. `new https.Agent({ ca })` or `NODE_EXTRA_CA_CERTS`. */
  ca?: string
  /** Stops accepting connections, ends idle keep-alive ones, and resolves when closed. Does not close the engine. */
  close(): Promise<void>
  /**
   * Graceful stop: `GET /readyz` answers 503 at once and every answer from
   * then on (those in flight included) carries `Connection: close`; after
   * `delay`, and once the answers in flight then are out, new connections are
   * refused; open connections are never reset but end after their next
   * answer or at their keep-alive timeout, and whatever is open `timeout`
   * after the delay is cut. Resolves when every connection is closed. Does
   * not close the engine (which writes pending recordings and closes the
   * store). docs/operations.md says what a client sees.
   */
  shutdown(options?: ShutdownOptions): Promise<void>
  /** The registry behind `GET /metrics`, when `metrics` is on. */
  readonly registry: Registry | undefined
  /**
   * Write-backs of `stateFile` that failed so far: each is logged (to
   * `logger`, else one line on stderr), counted in `/metrics` as
   * `mobisite_state_write_failures_total` and retried. 0 without a state
   * file. The CLI exits non-zero after a run in which one failed.
   */
  readonly stateWriteFailures: number
}

/** 127.0.0.0/8, ::1 (also IPv4-mapped) and localhost. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '')
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4)
}
