/**
 * What the standalone server adds for operating it: the liveness and
 * readiness probes, the Prometheus endpoint, the store-call timer and the
 * route labels of paths no router notes. prom-client is imported here only
 * by startServer, after the package root has loaded.
 */
import type { IncomingMessage } from 'node:http'
// The global `performance` is a getter that Node runs on every read; the module's binding is not.
import { performance } from 'node:perf_hooks'
import type { Express, NextFunction, Request, Response } from 'express'
import type { Registry } from 'prom-client'
import { type Instruments, instrumentsFor } from '../http/metrics.js'
import type { Store } from '../store/contract/index.js'

/** How long the store has to answer a readiness probe. */
export const READY_TIMEOUT_MS = 1_000

/** The probe paths: public, cheap, logged at debug, never journaled. */
export const PROBE_PATHS = new Set(['/healthz', '/readyz', '/metrics'])

/** What readiness reports; `reason` says why it is not ready. */
export interface Readiness {
  ready: boolean
  reason?: string
}

/** Whether a store answers within `ms`: one cheap read. */
export async function storeAnswers(store: Store, ms = READY_TIMEOUT_MS): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<Readiness>((resolve) => {
    timer = setTimeout(() => resolve({ ready: false, reason: `the store did not answer within ${ms} ms` }), ms)
  })
  const answer = store.getMaster('').then(
    (): Readiness => ({ ready: true }),
    (error: unknown): Readiness => ({ ready: false, reason: `the store failed: ${messageOf(error)}` }),
  )
  try {
    return await Promise.race([answer, late])
  } finally {
    clearTimeout(timer)
  }
}

/** An error's message, with its cause's when it has one (store errors wrap the driver's). */
export function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = (error as { cause?: unknown }).cause
  return cause instanceof Error && cause.message !== error.message
    ? `${error.message} (${cause.message})`
    : error.message
}

/** Mounts GET /healthz (the process answers) and GET /readyz (`ready()` says whether to send traffic). */
export function mountProbes(app: Express, ready: () => Promise<Readiness>): void {
  app.get('/healthz', (_req: Request, res: Response) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' })
  })
  // Express 4 does not catch a rejected handler: failures go to next() by hand, here and below.
  app.get('/readyz', (_req: Request, res: Response, next: NextFunction) => {
    ready().then((state) => {
      res.set('Cache-Control', 'no-store')
      if (state.ready) res.json({ status: 'ready' })
      else res.status(503).json({ status: 'not_ready', reason: state.reason })
    }, next)
  })
}

/**
 * GET /metrics serving `registry` in the Prometheus text format, without the
 * families that have no sample yet (see {@link withSamplesOnly}).
 */
export function mountMetrics(app: Express, registry: Registry): void {
  const instruments = instrumentsFor(registry)
  app.get('/metrics', (_req: Request, res: Response, next: NextFunction) => {
    // Families registered before prom-client finished loading (mobisite_build_info, at start) wait in
    // the instruments' queue until then: a scrape at once must not answer without them.
    instruments.ready
      .then(() => registry.metrics())
      .then((text) => {
        res.set('Content-Type', registry.contentType).send(withSamplesOnly(text))
      }, next)
  })
}

/** A family's `# HELP`, `# TYPE` or `# UNIT` line, and the family it names. */
const FAMILY_HEADER = /^# (?:HELP|TYPE|UNIT) (\S+)/

/**
 * The exposition `text` without the families that have no sample line. Ours
 * enter a registry with their first sample, but some of prom-client's
 * default metrics are registered empty and stay so for a while
 * (`nodejs_gc_duration_seconds` until the first collection,
 * `nodejs_active_requests` while no libuv request is active), and so may an
 * app's own in a registry it gives.
 */
export function withSamplesOnly(text: string): string {
  const kept: string[] = []
  let header: string[] = []
  let family: string | undefined
  for (const line of text.split('\n')) {
    const named = FAMILY_HEADER.exec(line)
    if (named !== null) {
      // A header of another family: the one before had no sample, and goes.
      if (named[1] !== family) header = []
      family = named[1]
      header.push(line)
      continue
    }
    if (line !== '' && !line.startsWith('#') && header.length > 0) {
      kept.push(...header)
      header = []
    }
    // The blank line after a family left out would double the one before it.
    if (line === '' && kept.at(-1) === '') continue
    kept.push(line)
  }
  return kept.join('\n')
}

/**
 * The store with every method call timed into `mobisite_store_call_duration_seconds{operation}`.
 * Methods run on the store itself (`this` is the target), so private state works.
 */
export function timedStore<S extends object>(store: S, instruments: Instruments): S {
  const wrapped = new Map<PropertyKey, unknown>()
  return new Proxy(store, {
    get(target, property) {
      // A method is looked up on every call: its timed wrapper first, before any reflection.
      const known = wrapped.get(property)
      if (known !== undefined) return known
      const value = Reflect.get(target, property, target) as unknown
      if (typeof value !== 'function' || typeof property !== 'string' || property === 'constructor') return value
      const method = value as (...args: unknown[]) => unknown
      const timed = (...args: unknown[]) => {
        const start = performance.now()
        const result = method.apply(target, args)
        if (result instanceof Promise) return timedSettling(result, instruments, property, start)
        instruments.storeCall(property, (performance.now() - start) / 1000)
        return result
      }
      wrapped.set(property, timed)
      return timed
    },
  })
}

/**
 * `result`, as a promise that settles as it does, once its duration is observed.
 * Awaited here rather than given a `then(done, done)`: V8 awaits a native
 * promise without the derived promise and closure that `then` makes, which
 * cost about 0.6 µs per store call against 0.2 here (issue 38).
 */
async function timedSettling<T>(
  result: Promise<T>,
  instruments: Instruments,
  operation: string,
  start: number,
): Promise<T> {
  try {
    return await result
  } finally {
    instruments.storeCall(operation, (performance.now() - start) / 1000)
  }
}

/** The route label of a request outside the API's routes: its mount, never the raw path. */
export function mountLabel(req: IncomingMessage): string {
  // Express strips the mount path from req.url while a router serves the request.
  const url = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/'
  const end = url.search(/[?#]/)
  // Express matches mounts and routes in any letter case: a label in the request's would multiply the series.
  const path = (end < 0 ? url : url.slice(0, end)).toLowerCase()
  if (PROBE_PATHS.has(path)) return path
  // The browser script is one path (app.use also serves it with a trailing slash).
  if (path === '/redirect.js' || path === '/redirect.js/') return '/redirect.js'
  for (const mount of ['/api', '/dashboard', '/collect', '/__admin']) {
    if (path === mount || path.startsWith(`${mount}/`)) return mount === '/api' ? '/api(unmatched)' : mount
  }
  return '(unmatched)'
}

/**
 * The route labels the access log writes at debug level: the probes, and the
 * collector's beacons (counted in `/metrics`; a line each would be thousands
 * a second).
 */
export const QUIET_ROUTES: ReadonlySet<string> = new Set([...PROBE_PATHS, '/collect'])
