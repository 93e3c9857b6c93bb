/**
 * The access log and request metrics of an HTTP app: one JSON line per
 * answered request (pino) with method, route template, status, duration,
 * request id and the caller's user, and one observation of
 * `http_request_duration_seconds{method,route,status_code}`.
 *
 * The line is written straight with the app's pino logger when the answer
 * is done, not through pino-http: pino-http makes two or three child
 * loggers per request and serializes the whole request (headers included)
 * into one of them, which measured about 60 µs of CPU per request here
 * (benchmark/ops.ts); one `logger.info` call with the fields below is a
 * fraction of that, and the fields (`reqId`, `req`, `res`, `responseTime`)
 * are pino-http's, so its tooling reads them. The CLI's own logger has its
 * lines formatted by hand, as pino would write them (access-line.ts).
 *
 * Never logged: headers (so no Authorization or cookies), the query string
 * (SSO and other tokens travel there) and bodies (passwords). Labels are
 * route templates only, never a raw path or a site name, so the metric's
 * cardinality stays fixed.
 */
import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
// The global `performance` is a getter that Node runs on every read; the module's binding is not.
import { performance } from 'node:perf_hooks'
import type { Logger } from 'pino'
import type { Registry } from 'prom-client'
import { accessLineWriter, type AccessLevel } from './access-line.js'
import { instrumentsFor } from './metrics.js'

/** Where a router writes the route template and caller of the request it serves. */
export const ROUTE_NOTE = Symbol.for('mobisite.routeNote')

/** Written by the router that serves the request, read when the answer is logged. */
export interface RouteNote {
  /** The route template, with the mount path: `/api/sites/{site_name}`. */
  route?: string
  /** The authenticated master account. */
  user?: string
}

/** The note an observer put on this request, if one is observing it. */
export function routeNoteOf(req: IncomingMessage): RouteNote | undefined {
  return (req as IncomingMessage & { [ROUTE_NOTE]?: RouteNote })[ROUTE_NOTE]
}

/** Options of {@link observeRequests}. */
export interface ObserveOptions {
  /** A pino logger: one access line per answered request. */
  logger?: Logger
  /** A prom-client registry: `http_request_duration_seconds` in it. */
  registry?: Registry
  /** The route label of a request no router noted (a fixed string per mount, never the raw path). */
  routeOf: (req: IncomingMessage) => string
  /**
   * Route labels (as `routeOf` or a router's note gives them) logged at debug
   * rather than by status: the health probes, and the collector's beacons,
   * which metrics count and which arrive by the thousand a second.
   */
  quiet?: ReadonlySet<string>
}

/** Starts observing one request; call it before the request is served. */
export interface RequestObserver {
  (req: IncomingMessage, res: ServerResponse): void
  /** Pending while something it needs loads; undefined when observing is synchronous (always, today). */
  loading: Promise<void> | undefined
}

/**
 * An incoming X-Request-Id is kept when it is short and plain; otherwise one
 * is made. Plain means characters JSON writes as they are: an access line
 * quotes the id without escaping it (lib/http/access-line.ts).
 */
const REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/

/**
 * This process's part of the ids it makes: 64 random bits, so ids made by
 * two instances never meet, and a counter numbers the requests after it. A
 * UUID per request cost its random bytes and their pool's refills (about
 * 1 µs a request, issue 38); an id only has to be unique, not secret.
 */
const ID_PREFIX = randomBytes(8).toString('hex')
let idsMade = 0

/**
 * Ids are made 1,296 (36²) at a time, as one flat text that each id is a
 * slice of. An id joined per request is a cons string, which Node's check of
 * a header's value (a regex) flattens through V8's runtime: about 1,400
 * instructions a request (issue 38, callgrind). A slice of a flat text takes
 * the regex's fast path, and the block costs one join.
 */
const BLOCK = 1296
/** The counter's last two base-36 digits, `00` to `zz`, after an empty first part: joined by a head, each id starts with it. */
const LOW_DIGITS = ['', ...Array.from({ length: BLOCK }, (_, n) => n.toString(36).padStart(2, '0'))]
/** The first block's counts, `0` to `zz`: below 1,296 the counter has no leading zero. */
const FIRST_DIGITS = ['', ...Array.from({ length: BLOCK }, (_, n) => n.toString(36))]
/** The length of `{prefix}-`: the first block's ids add one digit to it up to `z`, two after. */
const FIRST_HEAD = ID_PREFIX.length + 1
/** The ids of the current block, one after the other, and the length of each past the first block. */
let blockText = FIRST_DIGITS.join(`${ID_PREFIX}-`)
let idLength = 0

/** A request id unique across processes: `{16 hex digits}-{base-36 counter}`. */
export function newRequestId(): string {
  const n = ++idsMade
  const low = n % BLOCK
  if (n < BLOCK) {
    const start = low < 36 ? low * (FIRST_HEAD + 1) : 36 * (FIRST_HEAD + 1) + (low - 36) * (FIRST_HEAD + 2)
    return blockText.slice(start, start + (low < 36 ? FIRST_HEAD + 1 : FIRST_HEAD + 2))
  }
  if (low === 0) {
    const head = `${ID_PREFIX}-${Math.floor(n / BLOCK).toString(36)}`
    blockText = LOW_DIGITS.join(head)
    idLength = head.length + 2
  }
  const start = low * idLength
  return blockText.slice(start, start + idLength)
}

/** The request id: the incoming X-Request-Id when acceptable, else {@link newRequestId}; echoed on the answer. */
export function requestIdOf(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id']
  const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : newRequestId()
  res.setHeader('X-Request-Id', id)
  return id
}

/** The path of a URL without its query (where tokens travel). */
function pathOnly(url: string | undefined): string {
  if (url === undefined) return ''
  const q = url.indexOf('?')
  return q < 0 ? url : url.slice(0, q)
}

/** A request observer for these options; see the module comment. */
export function observeRequests(options: ObserveOptions): RequestObserver {
  const instruments = options.registry === undefined ? undefined : instrumentsFor(options.registry)
  const quiet = options.quiet ?? new Set<string>()
  const { logger, routeOf } = options
  const write = logger === undefined ? undefined : accessLineWriter(logger)
  const observer = ((req: IncomingMessage, res: ServerResponse) => {
    const note: RouteNote = {}
    ;(req as IncomingMessage & { [ROUTE_NOTE]?: RouteNote })[ROUTE_NOTE] = note
    const id = requestIdOf(req, res)
    const start = performance.now()
    // 'close' comes once per answer; `on` spares the wrapper `once` allocates per request.
    res.on('close', () => {
      const ms = performance.now() - start
      const method = req.method ?? 'GET'
      const status = res.statusCode
      const route = note.route ?? routeOf(req)
      instruments?.httpRequest(method, route, status, ms / 1000)
      if (logger === undefined || write === undefined) return
      // Probes stay at debug whatever they answer: a draining server's 503s are expected, not errors.
      const level: AccessLevel = quiet.has(route) ? 'debug' : status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info'
      if (!logger.isLevelEnabled(level)) return
      write(level, {
        reqId: id,
        method,
        path: pathOnly((req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url),
        route,
        user: note.user,
        statusCode: status,
        responseTime: Math.round(ms * 1000) / 1000,
        // The client went away before the whole answer was written.
        aborted: !res.writableFinished,
      })
    })
  }) as RequestObserver
  observer.loading = undefined
  return observer
}

/**
 * Whether observing requests would do anything: a logger that writes at some
 * level (not `silent`), or a registry. Otherwise a server skips the request
 * id, the timer and the listener on every request.
 */
export function observes(logger: Logger | undefined, registry: Registry | undefined): boolean {
  return registry !== undefined || (logger !== undefined && logger.level !== 'silent')
}
