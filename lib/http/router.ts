/**
 * apiRouter: the HTTP API of SPEC.md, mountable at any path of an Express app.
 * It translates HTTP into engine calls and back; every rule lives in the engine.
 */
import express, { type Request, type RequestHandler, type Router } from 'express'
import type { Caller, Engine } from '../engine/types.js'
import { ServiceError } from '../errors.js'
import { basicAuth } from './auth.js'
import { bodyReadError, errorHandler } from './errors.js'
import { openApiDocument } from './openapi.js'
import { AGENTS_PATH, ROUTES, pathMatcher, type Input, type Route } from './routes.js'

/** Options of {@link apiRouter}. */
export interface ApiRouterOptions {
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
}

/** Rejects query parameters on endpoints that take none, naming the first. */
function noQuery(req: Request): void {
  const [first] = Object.keys(req.query)
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
    return req.query
  }
  noQuery(req)
  if (input === 'none') {
    noBody(req.body)
    return undefined
  }
  // express.json leaves an absent body undefined; a required body is then reported by its schema.
  return req.body
}

function handler(engine: Engine, route: Route): RequestHandler {
  return async (req, res) => {
    const params = Object.values(req.params as Record<string, string>)
    const api = engine.as(res.locals.caller as Caller)
    const result = await route.run(api, params, inputOf(req, route.input))
    if (route.success === 'empty') res.status(204).end()
    else res.status(200).json(result)
  }
}

/** 405 with Allow for a known path and another method; 404 otherwise. */
function fallback(notFound: boolean): RequestHandler {
  const known = [...ROUTES.map(({ method, path }) => ({ method, path })), { method: 'GET', path: AGENTS_PATH }].map(
    ({ method, path }) => ({ method, matches: pathMatcher(path) }),
  )
  return (req, res, next) => {
    const allowed = new Set(known.filter(({ matches }) => matches(req.path)).map(({ method }) => method))
    if (allowed.has('GET')) allowed.add('HEAD')
    if (allowed.size === 0) {
      if (!notFound) return next()
      throw new ServiceError('NotFound', `no endpoint at ${req.method} ${req.path}`)
    }
    res.set('Allow', [...allowed].join(', '))
    if (req.method === 'OPTIONS') {
      res.status(204).end()
      return
    }
    throw new ServiceError('MethodNotAllowed', `${req.method} is not allowed on ${req.path}; use ${[...allowed].join(', ')}`)
  }
}

/**
 * The HTTP API over an engine. Mount it anywhere: `app.use('/api', apiRouter(engine))`.
 * Authentication is HTTP Basic with a master account added by `engine.addMasterAccount`.
 */
export function apiRouter(engine: Engine, options: ApiRouterOptions = {}): Router {
  const router = express.Router({ caseSensitive: true })
  const auth = basicAuth(engine)
  // The API speaks JSON only, so a body is parsed as JSON whatever its Content-Type.
  const parse = express.json({ limit: options.bodyLimit ?? '1mb', type: () => true })
  const json: RequestHandler = (req, res, next) => {
    parse(req, res, (error?: unknown) => next(error === undefined ? undefined : bodyReadError(error)))
  }

  // The API description is public, like the documentation it is.
  const document = openApiDocument(options.openApiServerUrl)
  router.get('/openapi.json', (_req, res) => {
    res.json(document)
  })
  for (const route of ROUTES) {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'delete'
    router[method](route.path, auth, json, handler(engine, route))
  }
  router.get(AGENTS_PATH, auth, json, (req, res) => {
    noQuery(req)
    noBody(req.body)
    res.status(200).json(engine.getAgents())
  })
  router.use(fallback(options.notFound ?? true))
  router.use(errorHandler(options.onError ?? ((error) => console.error('mobisite: unexpected error', error))))
  return router
}
