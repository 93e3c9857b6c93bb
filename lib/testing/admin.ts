/**
 * adminRouter: the test-double controls over HTTP, for test suites in any
 * language. Mount it beside the API (the standalone server uses `/__admin`).
 * It only translates HTTP into {@link Controls} calls and back, as the
 * table of admin calls (admin-calls.ts) says.
 */
import { timingSafeEqual, createHash } from 'node:crypto'
import express, { type Request, type RequestHandler, type Router } from 'express'
import type { Engine } from '../engine/types.js'
import { ServiceError } from '../errors.js'
import { bodyReadError, errorHandler, sendError } from '../http/errors.js'
import { guardServerOf } from '../http/bytes-after-request.js'
import { bySpecificity } from '../http/dispatch.js'
import { requestGuards } from '../http/cross-site-and-content.js'
import { isLoopbackHost, isLoopbackOrigin } from '../http/loopback.js'
import { queryOf } from '../http/express-compat.js'
import { ADMIN_CALLS, type AdminCall } from './admin-calls.js'
import { Controls, createControls } from './controls.js'

/** Options of {@link adminRouter}. */
export interface AdminRouterOptions {
  /**
   * When set, every call needs `Authorization: Bearer <token>` (401
   * otherwise). Without it, only requests whose `Host` is a loopback name or
   * address (and whose `Origin`, if any, is loopback) are answered; anything
   * else is 403 AccessForbidden, so a page of another site reached through
   * DNS rebinding cannot seed or read the state.
   */
  token?: string
  /** Largest JSON body (seed bodies can be big). Default '64mb'. */
  bodyLimit?: number | string
  /** Called with every unexpected error (answered 500). Default: console.error. */
  onError?: (error: unknown) => void
  /** Origins whose pages may change state here, as for apiRouter; the admin's own origin always may. */
  allowedOrigins?: readonly string[]
}

const digest = (value: string): Buffer => createHash('sha256').update(value).digest()

function bearer(token: string): RequestHandler {
  const expected = digest(token)
  return (req, res, next) => {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.get('authorization') ?? '')
    // Digests have one length, so the comparison takes the same time whatever was sent.
    if (match && timingSafeEqual(digest(match[1]!), expected)) return next()
    // Not sendError: that one asks for Basic, the API's scheme.
    const error = new ServiceError('Unauthorized', 'this admin call needs Authorization: Bearer <the admin token>')
    res.status(401).set('WWW-Authenticate', 'Bearer realm="mobisite admin"').json(error.toJSON())
  }
}

/**
 * Without a token: the raw `Host` (never X-Forwarded-Host, which the client
 * writes) and any `Origin` must be loopback.
 */
const loopbackOnly: RequestHandler = (req, res, next) => {
  const origin = req.headers.origin
  if (isLoopbackHost(req.headers.host) && (origin === undefined || isLoopbackOrigin(origin))) return next()
  const message =
    'the test-double controls without an admin token answer only requests to a loopback host (Host and Origin)'
  sendError(res, new ServiceError('AccessForbidden', message))
}

/** Rejects a body on calls that take none, naming the first field. */
function noBody(body: unknown): void {
  if (body !== undefined && body !== null) {
    const [first] = typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : ['(body)']
    if (first !== undefined) throw new ServiceError('InvalidInput', `unknown field ${first}: this call takes no body`)
  }
}

/** Rejects a query on calls that take none, naming the first parameter. */
function noQuery(query: Record<string, unknown>): void {
  const [param] = Object.keys(query)
  if (param !== undefined) throw new ServiceError('InvalidInput', `unknown query parameter ${param}`)
}

/** The call's input, after refusing what it does not take. */
function inputOf(req: Request, input: AdminCall['input']): unknown {
  const query = queryOf(req)
  switch (input) {
    case 'none':
      noBody(req.body)
      return noQuery(query)
    case 'query':
      noBody(req.body)
      return query
    default:
      noQuery(query)
      return req.body
  }
}

/** Whether a request path is an admin path (`:name` matches one segment). */
function pathMatcher(path: string): (actual: string) => boolean {
  const pattern = new RegExp(`^${path.replace(/:[a-z_]+/g, '[^/]+')}/?$`)
  return (actual) => pattern.test(actual)
}

/** The Express handler of one call. */
function handlerOf(call: AdminCall, controls: Controls): RequestHandler {
  const names = [...call.path.matchAll(/:([a-z_]+)/g)].map(([, name]) => name!)
  // Express 4 does not catch a rejected handler: every failure goes to next() by hand.
  return async (req, res, next) => {
    try {
      const answer = await call.run(
        controls,
        names.map((name) => req.params[name] as string),
        inputOf(req, call.input),
      )
      if (call.success === 204) res.status(204).end()
      else res.status(call.outage?.(answer as never) ? 503 : call.success).json(answer)
    } catch (error) {
      next(error)
    }
  }
}

/**
 * The test-double controls over HTTP. Pass the engine (its controls are made
 * or reused) or controls from {@link createControls}. Journal and faults see
 * API calls only through an apiRouter given `hooks: controls.apiHooks`.
 */
export function adminRouter(target: Engine | Controls, options: AdminRouterOptions = {}): Router {
  const controls = target instanceof Controls ? target : createControls(target)
  const router = express.Router({ caseSensitive: true })
  // Bytes after a GET or DELETE without a length: the call in hand is answered, as on the API.
  router.use((req, _res, next) => {
    guardServerOf(req)
    next()
  })
  if (options.token !== undefined) {
    if (options.token === '') throw new TypeError('adminRouter: token must not be empty')
    router.use(bearer(options.token))
  } else {
    router.use(loopbackOnly)
  }
  // The API's browser and content-type rules: no cross-site writes, JSON bodies only (403, 415).
  const guard = requestGuards(options.allowedOrigins === undefined ? {} : { allowedOrigins: options.allowedOrigins })
  router.use((req, _res, next) => {
    guard({ req })
    next()
  })
  const parse = express.json({ limit: options.bodyLimit ?? '64mb', type: () => true })
  router.use((req, res, next) => {
    parse(req, res, (error?: unknown) => next(error === undefined ? undefined : bodyReadError(error)))
  })
  // The index: every control, from the same table, so a printed `admin:` link answers.
  const index = {
    controls: ADMIN_CALLS.map(({ method, path, summary }) => ({ method, path, summary })),
    docs: 'docs/testing.md',
  }
  router.get('/', (req, res) => {
    noBody(req.body)
    noQuery(queryOf(req))
    res.json(index)
  })
  // Express takes the first route that matches: registered most specific first, so
  // DELETE /webhooks/deliveries is never taken by DELETE /webhooks/:id, whatever the table's order.
  for (const call of [...ADMIN_CALLS].sort((a, b) => bySpecificity(a.path, b.path))) {
    router[call.method.toLowerCase() as 'get' | 'put' | 'post' | 'delete'](call.path, handlerOf(call, controls))
  }
  const known = ADMIN_CALLS.map(({ method, path }) => ({ method, matches: pathMatcher(path) }))
  router.use((req) => {
    const allowed = [...new Set(known.filter(({ matches }) => matches(req.path)).map(({ method }) => method))]
    if (allowed.length === 0) throw new ServiceError('NotFound', `no admin call at ${req.method} ${req.path}`)
    throw Object.assign(
      new ServiceError('MethodNotAllowed', `${req.method} is not allowed on ${req.path}; use ${allowed.join(', ')}`),
      { allow: allowed },
    )
  })
  const handle = errorHandler(options.onError ?? ((error) => console.error('mobisite admin: unexpected error', error)))
  router.use(((error, req, res, next) => {
    const allow = (error as { allow?: string[] } | null)?.allow
    if (allow) res.set('Allow', allow.join(', '))
    handle(error, req, res, next)
  }) as express.ErrorRequestHandler)
  return router
}
