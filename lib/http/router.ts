/**
 * apiRouter: the HTTP API (docs/api.md), mountable at any path of an Express app.
 * It translates HTTP into engine calls and back; every rule lives in the engine.
 *
 * The route table (routes.ts) is compiled once into a per-method dispatch
 * (dispatch.ts) served by a single Express layer. A request then costs: one
 * match, authentication, the steps below, reading a body only if one was
 * sent, one engine call on the caller's cached API object, and one direct
 * JSON serialization (reply.ts, which also records why there is no ETag).
 */
import express, { type Request, type Response, type Router } from 'express'
import { tokenAuthenticator } from '../engine/context-access.js'
import type { Engine } from '../engine/types.js'
import { ServiceError } from '../errors.js'
import { isDashboardUrl } from '../schema/sso.js'
import { checkPublicUrl, dashboardUrlOf, hostCheck, type LinkOrigins } from './link-origins.js'
import { queryOf } from './express-compat.js'
import { requestCaller } from './auth.js'
import { guardServerOf } from './bytes-after-request.js'
import { compileDispatch, type Dispatch, type Endpoint, type Match } from './dispatch.js'
import { bodyReadError, errorHandler } from './errors.js'
import { requestGuards, utf8Body, utf8Query, type GuardOptions } from './cross-site-and-content.js'
import { faultStep, mountOf, noteCaller, observe, routeLabels, type ApiHooks } from './hooks.js'
import { openApiDocument } from './openapi.js'
import { observeRequests, routeNoteOf } from './observe.js'
import type { Logger } from 'pino'
import type { Registry } from 'prom-client'
import { RateLimit, rateLimitStep, type RateLimitOptions } from './rate-limit.js'
import { sendEmpty, sendJson } from './reply.js'
import { runSteps, type ApiCall, type ApiStep } from './pipeline-steps.js'
import {
  AGENTS_PATH,
  OPENAPI_PATH,
  ROUTES,
  SERVICE_ROUTES,
  type Input,
  type Route,
  type RouteRequest,
} from './routes.js'

/** Options of {@link apiRouter}. */
export interface ApiRouterOptions extends GuardOptions {
  /** Called with every unexpected error (answered 500). Default: console.error. */
  onError?: (error: unknown) => void
  /** Largest JSON body accepted, in bytes or a size string. Default '1mb' (larger: 413). */
  bodyLimit?: number | string
  /**
   * Answer unknown paths with 404 NotFound (default true). Set false when the
   * router is mounted at the root of an app whose own routes come after it.
   */
  notFound?: boolean
  /** The server URL written into `GET /openapi.json`. Default '/api'. */
  openApiServerUrl?: string
  /** Whether it lists the test-double controls too: adminRouter is at `/__admin` beside the API. Default false. */
  openApiAdmin?: boolean
  /**
   * Where dashboardRouter is served, for the links of Get SSO Link: an
   * absolute http(s) URL (it wins), or a path starting with '/' (default
   * '/dashboard') on the origin of `publicUrl`. Without `publicUrl` a path is
   * put on the request's origin (`req.protocol` and `req.host`, so Express's
   * `trust proxy` decides) only when that host is in `allowedHosts`: a link
   * never takes its origin from an unchecked `Host`.
   */
  dashboardUrl?: string
  /**
   * The public base URL of the server links point at (absolute http(s),
   * e.g. `https://sites.example.com`), or a function giving it (the
   * standalone server passes its own listening origin when not told one).
   */
  publicUrl?: string | (() => string)
  /**
   * Hosts whose request origin links may carry when neither an absolute
   * `dashboardUrl` nor `publicUrl` is set: host names (any port) or
   * `host:port`, any letter case. Default: loopback names and addresses.
   * Any other Host gets InvalidInput naming these options.
   */
  allowedHosts?: readonly string[]
  /**
   * Journal and fault hooks of the test-double controls (`controls.apiHooks`
   * from `mobisite/testing`). Absent: the router does no work for them.
   */
  hooks?: ApiHooks
  /**
   * A per-master-account rate limit: past `perSecond` calls in one second,
   * 429 TooManyRequests with Retry-After (rate-limit.ts). Give a
   * {@link RateLimit} to switch it while serving. Default: none, and no work
   * for it (the test-double hooks bring a switchable one, off by default).
   */
  rateLimit?: RateLimitOptions | RateLimit
  /**
   * A pino logger: one access line per request (method, route
   * template, status, duration, request id, caller; never headers, query or
   * body), and unexpected errors. Default: the router logs nothing.
   */
  logger?: Logger
  /**
   * A prom-client registry: `http_request_duration_seconds{method,route,status_code}`
   * (route templates only) is observed in it. Default: no metrics work.
   * Labels (and the access log's `route`) name the mount path in lower case,
   * whatever the request's spelling, and methods other than GET, HEAD, POST,
   * PUT, PATCH, DELETE and OPTIONS as `OTHER`.
   */
  registry?: Registry
}

/** Checks the `dashboardUrl` option once, when the router is built. */
function checkDashboardUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined
  if (isDashboardUrl(url)) return url
  throw new TypeError('apiRouter: dashboardUrl must be an absolute http(s) URL or a path starting with "/"')
}

/**
 * What a route may ask about its request; computed only when asked. A class
 * rather than an object literal with a getter: V8 gives every such literal
 * its own accessor pair, which on this hot path made every request's objects
 * survive into the old generation (measured: 4 MB promoted per scavenge).
 */
class RequestFacts implements RouteRequest {
  constructor(
    private readonly req: Request,
    private readonly links: LinkOrigins,
  ) {}

  get dashboardUrl(): string {
    return dashboardUrlOf(this.req, this.links)
  }
}

/** Characters after which parseurl hands a URL to url.parse instead of reading it in place. */
function defersToUrlParse(c: number): boolean {
  return c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d || c === 0x20 || c === 0x23 || c === 0xa0 || c === 0xfeff
}

/**
 * `req.path` without building a URL object: parseurl's own fast path (a URL
 * starting with '/' and holding none of the characters that make it defer to
 * url.parse) done in place; any other URL is left to `req.path` itself.
 */
function pathOf(req: Request): string {
  const { url } = req
  if (url.charCodeAt(0) !== 47) return req.path
  let query = -1
  for (let i = 1; i < url.length; i++) {
    const c = url.charCodeAt(i)
    if (c === 0x3f) {
      if (query < 0) query = i
    } else if (defersToUrlParse(c)) {
      return req.path
    }
  }
  return query < 0 ? url : url.slice(0, query)
}

/** The path of the route a request matched, for the journal; none for a path that is not valid percent-encoding. */
function routePathOf(dispatch: Dispatch, req: Request): string | undefined {
  try {
    return dispatch.match(req.method, req.path)?.endpoint.route.path
  } catch {
    // URIError: answered 400 already; it matched no route.
    return undefined
  }
}

/** Rejects query parameters on endpoints that take none, naming the first. */
function noQuery(req: Request): void {
  // Parsing the query string is skipped when there is none.
  if (!req.url.includes('?')) return
  const [first] = Object.keys(queryOf(req))
  if (first !== undefined) throw new ServiceError('InvalidInput', `unknown query parameter ${first}`)
}

/** Rejects any content on endpoints that take no body, naming the first field. */
function noBody(body: unknown): void {
  if (body === undefined || body === null) return
  if (typeof body === 'object' && !Array.isArray(body)) {
    const [first] = Object.keys(body)
    if (first === undefined) return
    throw new ServiceError('InvalidInput', `unknown field ${first}: this endpoint takes no body`)
  }
  throw new ServiceError('InvalidInput', 'this endpoint takes no body')
}

/** The request body, query or nothing, as the route takes it. */
function inputOf(req: Request, input: Input): unknown {
  if (input === 'query') {
    noBody(req.body)
    return queryOf(req)
  }
  noQuery(req)
  if (input === 'none') {
    noBody(req.body)
    return undefined
  }
  // An absent body stays undefined; a required body is then reported by its schema.
  return req.body
}

/**
 * Whether the JSON parser has anything to do. No Content-Length and no
 * Transfer-Encoding is no body (req.body stays undefined). `Content-Length: 0`
 * with no Content-Type or Content-Encoding is the empty body the parser reads
 * as `{}`; with either header the parser still runs, since it may refuse the
 * charset or the encoding.
 */
function bodyToRead(req: Request): boolean {
  const { headers } = req
  if (headers['transfer-encoding'] !== undefined) return true
  const length = headers['content-length']
  if (length === undefined) {
    // Written only when set (by a parser before the router): adding the property costs more than reading it.
    if (req.body !== undefined) req.body = undefined
    return false
  }
  if (length === '0' && headers['content-type'] === undefined && headers['content-encoding'] === undefined) {
    req.body = {}
    return false
  }
  return true
}

/**
 * The HTTP API over an engine. Mount it anywhere: `app.use('/api', apiRouter(engine))`.
 * Authentication is HTTP Basic with a master account added by `engine.addMasterAccount`.
 */
export function apiRouter(engine: Engine, options: ApiRouterOptions = {}): Router {
  const links: LinkOrigins = {
    dashboardUrl: checkDashboardUrl(options.dashboardUrl),
    publicUrl: checkPublicUrl(options.publicUrl),
    allowedHost: hostCheck(options.allowedHosts),
  }
  const router = express.Router({ caseSensitive: true })
  const notFound = options.notFound ?? true
  const authenticate = tokenAuthenticator(engine)
  // The guards have already refused any Content-Type but JSON (415).
  const parse = express.json({ limit: options.bodyLimit ?? '1mb', type: () => true, verify: utf8Body })
  const readBody = (req: Request, res: Response) =>
    new Promise<void>((resolve, reject) => {
      parse(req, res, (error?: unknown) => (error === undefined ? resolve() : reject(bodyReadError(error))))
    })

  // Extension points, run in this order for every authenticated request
  // (401 first, then what guards refuse, e.g. 403 before 415):
  //   guards: after authentication, before the body is read;
  //   hooks:  once the input is read, just before the engine.
  // An empty list costs nothing; add a step only when its feature is on.
  const guards: ApiStep[] = [requestGuards(options)]
  const hooks: ApiStep[] = [utf8Query]

  // The API description is public, like the documentation it is.
  const document = openApiDocument(options.openApiServerUrl, { admin: options.openApiAdmin === true })
  // The routes the router serves itself are described in routes.ts like the others.
  const service = (path: string, run: () => Promise<unknown>): Route => ({
    ...SERVICE_ROUTES.find((r) => r.path === path)!,
    run,
  })
  const endpoints: Endpoint[] = [
    { route: service(OPENAPI_PATH, async () => document), public: true },
    ...ROUTES.map((route) => ({ route })),
    // GET /agents is served from the engine itself, not on behalf of a caller, but needs credentials all the same.
    { route: service(AGENTS_PATH, async () => engine.getAgents()) },
  ]
  const dispatch = compileDispatch(endpoints)

  const limit =
    options.rateLimit instanceof RateLimit
      ? options.rateLimit
      : options.rateLimit
        ? new RateLimit(options.rateLimit)
        : options.hooks?.rateLimit
  // Right after authentication: a caller past the limit is refused before any other check.
  if (limit) guards.unshift(rateLimitStep(limit))

  // The test-double journal and faults: steps and a layer only when asked for.
  const testHooks = options.hooks
  if (testHooks) {
    // First: a call a guard refuses (403, 415) was still made by this caller.
    guards.unshift(noteCaller)
    hooks.push(faultStep(testHooks))
  }
  const observer = testHooks && observe(testHooks, (req) => routePathOf(dispatch, req))

  async function serve(req: Request, res: Response, { endpoint, params }: Match): Promise<void> {
    const { route } = endpoint
    // Only when someone observes this request (the access log, metrics): the route template and caller.
    const note = routeNoteOf(req)
    if (note !== undefined) note.route = routeLabelOf(req, route.path)
    const request = new RequestFacts(req, links)
    if (endpoint.public) {
      // A public route takes no body either: one is read (never left unread, whose
      // RST could destroy the answer in flight) and refused like anywhere else.
      if (bodyToRead(req)) await readBody(req, res)
      else req.resume()
      noBody(req.body)
      return sendJson(res, 200, await route.run(undefined as never, params, undefined, request))
    }
    // A cached verdict comes back synchronously: no promise turn for it.
    const authenticating = requestCaller(authenticate, req)
    const caller = authenticating instanceof Promise ? await authenticating : authenticating
    if (note !== undefined) note.user = caller.user
    const call: ApiCall = { req, res, route, params, caller, input: undefined }
    const guarding = runSteps(guards, call)
    if (guarding !== undefined) await guarding
    // Without a body the request stream is ended now, while this turn runs,
    // rather than by Node once the answer is written (_dump, and an 'end'
    // listener when the answer comes from a later turn, as with a store
    // round trip): measured 1.5-2.5 µs less CPU per GET on both stores.
    if (bodyToRead(req)) await readBody(req, res)
    else req.resume()
    call.input = inputOf(req, route.input)
    const hooking = runSteps(hooks, call)
    if (hooking !== undefined) await hooking
    // A hook may have answered already (an injected fault).
    if (res.headersSent || res.destroyed) return
    const result = await route.run(engine.as(caller), params, call.input, request)
    if (route.success === 204) sendEmpty(res)
    else sendJson(res, route.success, result)
  }

  /** 405 with Allow for a known path and another method; 404 otherwise (or the next handler). */
  function fallback(req: Request, res: Response, next: (error?: unknown) => void): void {
    const allowed = dispatch.allowed(req.path)
    if (allowed.length === 0) {
      if (!notFound) return next()
      throw new ServiceError('NotFound', `no endpoint at ${req.method} ${req.path}`)
    }
    res.setHeader('Allow', allowed.join(', '))
    if (req.method === 'OPTIONS') return sendEmpty(res)
    throw new ServiceError('MethodNotAllowed', `${req.method} is not allowed on ${req.path}; use ${allowed.join(', ')}`)
  }

  const routeLabelOf = routeLabels()
  // The router's own access log and metrics, when given a logger or registry.
  const observing =
    options.logger === undefined && options.registry === undefined
      ? undefined
      : observeRequests({
          ...(options.logger ? { logger: options.logger } : {}),
          ...(options.registry ? { registry: options.registry } : {}),
          routeOf: (req) => `${mountOf(req as Request)}(unmatched)`,
        })

  // One layer for every endpoint: Express's router is not walked route by route.
  const dispatchLayer = (req: Request, res: Response, next: (error?: unknown) => void): void | Promise<void> => {
    guardServerOf(req)
    if (observing) {
      if (observing.loading) return observing.loading.then(() => dispatchLayer(req, res, next))
      observing(req, res)
    }
    if (observer) observer(req, res)
    const match = dispatch.match(req.method, pathOf(req))
    if (match === undefined) return fallback(req, res, next)
    return serve(req, res, match)
  }
  const logger = options.logger
  const handleError = errorHandler(
    options.onError ??
      (logger
        ? (error) => logger.error({ err: error }, 'unexpected error')
        : (error) => console.error('mobisite: unexpected error', error)),
  )
  router.use(dispatchLayer)
  router.use(handleError)
  // While nobody has added layers to the returned router, it is entered
  // straight at the dispatch layer, skipping the Router's per-request walk;
  // once someone has, Express's own handle runs them, unchanged.
  const ownLayers = router.stack.length
  const entry = router as Router & { handle: (req: Request, res: Response, out: (error?: unknown) => void) => void }
  const viaExpress = entry.handle.bind(router)
  entry.handle = (req, res, out) => {
    // The test-double journal layer (hooks) is entered through Express too.
    if (router.stack.length !== ownLayers) return viaExpress(req, res, out)
    const fail = (error: unknown) => handleError(error, req, res, out)
    try {
      const pending = dispatchLayer(req, res, out)
      if (pending !== undefined) pending.catch(fail)
    } catch (error) {
      fail(error)
    }
  }
  return router
}
