/**
 * The OpenAPI 3.1 document of the API, generated from the route table and
 * the same JSON Schemas the engine validates with, so it cannot drift.
 */
import { ROUTES, AGENTS_PATH, type Route } from './routes.js'

const errorBody = {
  type: 'object',
  required: ['error_code', 'message'],
  properties: { error_code: { type: 'string' }, message: { type: 'string' } },
} as const

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: errorBody } } })

/** `/sites/:site_name` → `/sites/{site_name}` and its parameter names. */
function openApiPath(path: string): { path: string; params: string[] } {
  const params = [...path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!)
  return { path: path.replace(/:([a-z_]+)/g, '{$1}'), params }
}

function queryParameters(schema: object | undefined): object[] {
  const properties = (schema as { properties?: Record<string, object> } | undefined)?.properties ?? {}
  return Object.entries(properties).map(([name, property]) => ({ name, in: 'query', required: false, schema: property }))
}

function operation(route: Route): object {
  const { params } = openApiPath(route.path)
  const parameters = [
    ...params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...(route.input === 'query' ? queryParameters(route.schema) : []),
  ]
  const body =
    route.schema && (route.input === 'body' || route.input === 'optional-body')
      ? { requestBody: { required: route.input === 'body', content: { 'application/json': { schema: route.schema } } } }
      : {}
  const success =
    route.success === 'empty'
      ? { 204: { description: 'Done; no content.' } }
      : { 200: { description: 'The result.', content: { 'application/json': {} } } }
  return {
    summary: route.summary,
    parameters,
    ...body,
    responses: {
      ...success,
      400: errorResponse('InvalidInput, ResourceNotExist or ResourceAlreadyExist'),
      401: errorResponse('Unauthorized'),
      ...(route.path.startsWith('/account') ? { 403: errorResponse('AccessForbidden: not a partner master account') } : {}),
      ...(route.path.startsWith('/analytics') ? { 429: errorResponse('DailyLimitExceeded; see Retry-After') } : {}),
      503: errorResponse('ServiceUnavailable'),
    },
  }
}

/** The OpenAPI document; `serverUrl` is where the router is mounted (default `/api`). */
export function openApiDocument(serverUrl = '/api'): object {
  const paths: Record<string, Record<string, object>> = {}
  for (const route of ROUTES) {
    const { path } = openApiPath(route.path)
    ;(paths[path] ??= {})[route.method.toLowerCase()] = operation(route)
  }
  paths[AGENTS_PATH] = {
    get: {
      summary: 'Retrieve Supported Agents',
      responses: {
        200: { description: 'The supported-agents regular expression source.', content: { 'application/json': { schema: { type: 'string' } } } },
        401: errorResponse('Unauthorized'),
      },
    },
  }
  return {
    openapi: '3.1.0',
    info: { title: 'mobisite', version: '0.1.0', description: 'Mobile-site management service' },
    servers: [{ url: serverUrl }],
    components: { securitySchemes: { basic: { type: 'http', scheme: 'basic' } } },
    security: [{ basic: [] }],
    paths,
  }
}
