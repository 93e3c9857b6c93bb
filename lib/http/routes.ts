/**
 * The one shape every HTTP endpoint is described in: the API's routes (one
 * per operation of the engine's table, lib/engine/api/operations.ts, that
 * has an HTTP binding, plus the two endpoints the router serves itself,
 * SERVICE_ROUTES) and the calls of the test-double controls
 * (lib/testing/admin-calls.ts). apiRouter, adminRouter, the OpenAPI document
 * (lib/http/openapi.ts) and the reference in docs/api.md all read it, so one
 * builder describes both surfaces.
 *
 * The test suite checks every response it receives against the document, so
 * a route that answers something it does not declare fails the tests.
 */
import type { MasterApi } from '../engine/api/master-api.js'
import type { HttpBinding, Input, Operation } from '../engine/api/operation-definition.js'
import { OPERATIONS } from '../engine/api/operations.js'
import type { ErrorCode } from '../errors.js'

export type { Input }

/** What a route may need to know about the request besides its input. */
export interface RouteRequest {
  /** Where the sub-account dashboard is served for this request (no trailing slash). */
  readonly dashboardUrl: string
}

/**
 * How a caller proves who it is: `basic` a master account's credentials
 * (the API), `bearer` the admin token when the server has one (the
 * test-double controls), `none` nothing (the OpenAPI document).
 */
export type Auth = 'basic' | 'bearer' | 'none'

/** How an endpoint of the API or of the test-double controls is described: everything but how it runs. */
export interface RouteDoc {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE'
  /** Express path syntax, relative to where its router is mounted. */
  path: string
  summary: string
  /** Unique name of the operation: the OpenAPI operationId and the docs anchor. */
  operationId: string
  /** The group the operation is listed under. */
  tag: string
  /** What a caller must know beyond the schemas. */
  description?: string
  /** What the request carries; anything else it carries is refused (a body, a query parameter). */
  input: Input
  /** The JSON Schema of the body or query, which the input is validated with. */
  schema?: object
  /** The status of a success: 200 or 201 with `response` as JSON, 204 with no content. */
  success: 200 | 201 | 204
  /** The JSON Schema of a 200 or 201 body. */
  response?: object
  /**
   * Error codes answered besides those every request of its `auth` and
   * method can get (lib/http/openapi.ts lists those once).
   */
  errors?: readonly ErrorCode[]
  auth: Auth
  /**
   * Whether the answer reports an outage of the store, and is then sent
   * with status 503 (admin health). Such a route never answers
   * ServiceUnavailable: its own body says what is down.
   */
  outage?: (answer: never) => boolean
}

/**
 * How an API route runs. `params` are the decoded path parameters in order.
 * `input` is the request's body or query as received: the engine validates
 * it against the route's schema before reading it.
 */
export type ApiRun = (api: MasterApi, params: string[], input: unknown, request: RouteRequest) => Promise<unknown>

/**
 * One endpoint: its description and how it runs. `Run` is what it runs
 * against: an API route a caller's MasterApi (the default), an admin call
 * the test-double controls (`AdminCall`, lib/testing/admin-calls.ts).
 */
export interface Route<Run = ApiRun> extends RouteDoc {
  run: Run
}

/**
 * How a route calls its MasterApi method: the path parameters in order,
 * then the input if it takes one, then the request fact it asks for. One
 * closure per route, made once; for the shapes the table has, a request
 * allocates no argument list.
 */
function runnerOf(name: string, http: HttpBinding): ApiRun {
  // A member call, so a method of another Engine's MasterApi still gets its `this`.
  const methods = (api: MasterApi) => api as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>
  const params = http.path.split('/').filter((part) => part.startsWith(':')).length
  const shape = `${params}${http.input === 'none' ? '' : '+input'}${http.fact ? `+${http.fact}` : ''}`
  switch (shape) {
    case '0+input':
      return (api, _, input) => methods(api)[name]!(input)
    case '1':
      return (api, p) => methods(api)[name]!(p[0])
    case '1+input':
      return (api, p, input) => methods(api)[name]!(p[0], input)
    case '1+input+dashboardUrl':
      return (api, p, input, request) => methods(api)[name]!(p[0], input, request.dashboardUrl)
    case '2':
      return (api, p) => methods(api)[name]!(p[0], p[1])
    default:
      // Any other shape: the same arguments, gathered per request.
      return (api, p, input, request) =>
        methods(api)[name]!(...p, ...(http.input === 'none' ? [] : [input]), ...(http.fact ? [request[http.fact]] : []))
  }
}

/** An operation of the table that is served over HTTP. */
type ServedOperation = Extract<Operation, { http: HttpBinding }>

/** The route of an operation that has an HTTP binding. */
function routeOf(name: string, operation: ServedOperation): Route {
  const { http, summary, operationId, tag, description, request, response, errors } = operation
  return {
    method: http.method,
    path: http.path,
    summary,
    operationId,
    tag,
    ...(description === undefined ? {} : { description }),
    input: http.input,
    ...(request === undefined ? {} : { schema: request as object }),
    success: response === undefined ? 204 : 200,
    ...(response === undefined ? {} : { response: response as object }),
    ...(errors === undefined ? {} : { errors }),
    auth: 'basic',
    run: runnerOf(name, http),
  }
}

/** Every operation served over HTTP, in the table's order. */
export const ROUTES: readonly Route[] = (Object.entries(OPERATIONS) as [string, Operation][]).flatMap(
  ([name, operation]) => (operation.http ? [routeOf(name, operation)] : []),
)

/** GET /agents is served from the engine itself, not on behalf of a caller. */
export const AGENTS_PATH = '/agents'

/** Where the router serves the OpenAPI document, without credentials. */
export const OPENAPI_PATH = '/openapi.json'

/** The endpoints the router serves itself rather than through MasterApi, described like the others. */
export const SERVICE_ROUTES: readonly RouteDoc[] = [
  {
    method: 'GET',
    path: AGENTS_PATH,
    operationId: 'getSupportedAgents',
    tag: 'Agents',
    summary: 'Retrieve Supported Agents',
    description: 'The regular expression source (case-insensitive) matching the User-Agents sent to the mobile site.',
    input: 'none',
    success: 200,
    response: { type: 'string', description: 'a regular expression source' },
    auth: 'basic',
  },
  {
    method: 'GET',
    path: OPENAPI_PATH,
    operationId: 'getOpenApiDocument',
    tag: 'Meta',
    summary: 'The OpenAPI document',
    description:
      'The OpenAPI 3.1 description of this API, as JSON. Served without credentials. Like every GET, it takes no body: a non-empty one is InvalidInput (an empty object is none).',
    input: 'none',
    success: 200,
    response: { type: 'object', description: 'an OpenAPI 3.1 document' },
    auth: 'none',
  },
]
