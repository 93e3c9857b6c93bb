/**
 * The endpoints of the API as the router, the OpenAPI document
 * (lib/http/openapi.ts) and the reference in docs/api.md read them: one
 * route per operation of the engine's table (lib/engine/api/operations.ts, where
 * an endpoint is declared) that has an HTTP binding, in the table's order,
 * plus the two endpoints the router serves itself (SERVICE_ROUTES).
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

/** How an endpoint is described: everything but how it runs. */
export interface RouteDoc {
  method: 'GET' | 'POST' | 'DELETE'
  /** Express path syntax, relative to where the router is mounted. */
  path: string
  summary: string
  /** Unique name of the operation: the OpenAPI operationId and the docs anchor. */
  operationId?: string
  /** The group the operation is listed under. */
  tag?: string
  /** What a caller must know beyond the schemas. */
  description?: string
  input: Input
  /** The JSON Schema of the body or query the engine validates it with. */
  schema?: object
  /** 'json': 200 with the result; 'empty': 204 with no content. */
  success: 'json' | 'empty'
  /** The JSON Schema of the 200 body. */
  response?: object
  /** Error codes answered besides those of every authenticated request. */
  errors?: readonly ErrorCode[]
  /** Served without credentials. */
  public?: boolean
}

/** One endpoint. */
export interface Route extends RouteDoc {
  /**
   * Runs the operation; `params` are the decoded path parameters in order.
   * `input` is the request's body or query as received: the engine validates
   * it against the route's schema before reading it.
   */
  run: (api: MasterApi, params: string[], input: unknown, request: RouteRequest) => Promise<unknown>
}

/**
 * How a route calls its MasterApi method: the path parameters in order,
 * then the input if it takes one, then the request fact it asks for. One
 * closure per route, made once; for the shapes the table has, a request
 * allocates no argument list.
 */
function runnerOf(name: string, http: HttpBinding): Route['run'] {
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

/** The route of an operation that has an HTTP binding. */
function routeOf(name: string, operation: Operation, http: HttpBinding): Route {
  const { summary, operationId, tag, description, request, response, errors } = operation
  return {
    method: http.method,
    path: http.path,
    summary,
    ...(operationId === undefined ? {} : { operationId }),
    ...(tag === undefined ? {} : { tag }),
    ...(description === undefined ? {} : { description }),
    input: http.input,
    ...(request === undefined ? {} : { schema: request as object }),
    success: response === undefined ? 'empty' : 'json',
    ...(response === undefined ? {} : { response: response as object }),
    ...(errors === undefined ? {} : { errors }),
    run: runnerOf(name, http),
  }
}

/** Every operation served over HTTP, in the table's order. */
export const ROUTES: readonly Route[] = (Object.entries(OPERATIONS) as [string, Operation][]).flatMap(
  ([name, operation]) => (operation.http ? [routeOf(name, operation, operation.http)] : []),
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
    success: 'json',
    response: { type: 'string', description: 'a regular expression source' },
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
    success: 'json',
    response: { type: 'object', description: 'an OpenAPI 3.1 document' },
    public: true,
  },
]
