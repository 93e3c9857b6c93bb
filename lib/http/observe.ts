/**
 * The access log (pino-http) and request metrics of an HTTP app: one JSON
 * line per answered request with method, route template, status, duration,
 * request id and the caller's user, and one observation of
 * `http_request_duration_seconds{method,route,status_code}`.
 *
 * Never logged: headers (so no Authorization or cookies), the query string
 * (SSO and other tokens travel there) and bodies (passwords). Labels are
 * route templates only, never a raw path or a site name, so the metric's
 * cardinality stays fixed.
 *
 * pino-http is loaded on first use; until it is, {@link RequestObserver.loading}
 * is the promise to await before observing.
 */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from 'pino'
import type { Registry } from 'prom-client'
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
  /** A pino logger: one access line per request through pino-http. */
  logger?: Logger
  /** A prom-client registry: `http_request_duration_seconds` in it. */
  registry?: Registry
  /** The route label of a request no router noted (a fixed string per mount, never the raw path). */
  routeOf: (req: IncomingMessage) => string
  /** Requests logged at debug rather than info (health probes). */
  quiet?: (req: IncomingMessage) => boolean
}

/** Starts observing one request; call it before the request is served. */
export interface RequestObserver {
  (req: IncomingMessage, res: ServerResponse): void
  /** Pending while pino-http loads; undefined once observing is synchronous. */
  loading: Promise<void> | undefined
}

/** An incoming X-Request-Id is kept when it is short and plain; otherwise one is made. */
const REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/

/** The request id: the incoming X-Request-Id when acceptable, else a new UUID; echoed on the answer. */
export function requestIdOf(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id']
  const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID()
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
  const quiet = options.quiet ?? (() => false)
  const routeOf = (req: IncomingMessage): string => routeNoteOf(req)?.route ?? options.routeOf(req)
  let log: ((req: IncomingMessage, res: ServerResponse) => void) | undefined
  const logger = options.logger
  const observer = ((req: IncomingMessage, res: ServerResponse) => {
    const note: RouteNote = {}
    ;(req as IncomingMessage & { [ROUTE_NOTE]?: RouteNote })[ROUTE_NOTE] = note
    if (instruments !== undefined) {
      const start = process.hrtime.bigint()
      res.once('close', () => {
        const seconds = Number(process.hrtime.bigint() - start) / 1e9
        instruments.httpRequest(req.method ?? 'GET', routeOf(req), res.statusCode, seconds)
      })
    }
    if (log !== undefined) log(req, res)
    else if (logger === undefined) requestIdOf(req, res)
  }) as RequestObserver
  if (logger === undefined) {
    observer.loading = undefined
    return observer
  }
  observer.loading = import('pino-http').then((module) => {
    const pinoHttp = module.pinoHttp ?? module.default
    const middleware = pinoHttp({
      logger,
      genReqId: requestIdOf,
      quietReqLogger: true,
      customLogLevel: (req, res, error) =>
        error !== undefined || res.statusCode >= 500
          ? 'error'
          : quiet(req)
            ? 'debug'
            : res.statusCode >= 400
              ? 'warn'
              : 'info',
      // Called when the request arrives (nothing known yet) and when it is answered.
      customProps: (req, res) => {
        if (!res.writableEnded && !res.destroyed) return {}
        const note = routeNoteOf(req)
        return { route: routeOf(req), ...(note?.user === undefined ? {} : { user: note.user }) }
      },
      customSuccessMessage: (req, res) => `${req.method} ${routeOf(req)} ${res.statusCode}`,
      customErrorMessage: (req, res) => `${req.method} ${routeOf(req)} ${res.statusCode}`,
      serializers: {
        req: (req: { id?: unknown; method?: string; url?: string }) => ({
          id: req.id,
          method: req.method,
          path: pathOnly(req.url),
        }),
        res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
      },
    })
    log = (req, res) => middleware(req, res)
    observer.loading = undefined
  })
  return observer
}
