/**
 * The OpenAPI 3.1 document of the API, generated from the route table and the
 * same JSON Schemas the engine validates with and the responses are checked
 * against, so it cannot drift. Shared schemas become components reached by
 * `$ref`; every status an operation can return is listed with its error codes
 * (from the registry in lib/errors.ts) and the headers that come with it.
 */
import { ERROR_CODES, type ErrorCode } from '../errors.js'
import { createAccountSchema, updateAccountSchema } from '../schema/accounts.js'
import * as R from '../schema/responses.js'
import * as S from '../schema/sites.js'
import { siteEventSchema } from '../schema/events.js'
import { ADMIN_CALLS, type AdminCall } from '../testing/admin-calls.js'
import { ROUTES, SERVICE_ROUTES, type RouteDoc } from './routes.js'

/** Schemas named in components/schemas; anywhere else they appear, a `$ref` stands for them. */
export const COMPONENTS: Readonly<Record<string, object>> = {
  Error: R.errorSchema,
  Site: R.siteSchema,
  SiteSummary: R.siteSummarySchema,
  SiteNameRef: R.siteNameRefSchema,
  Account: R.accountSchema,
  TrafficMetrics: R.trafficMetricsSchema,
  ActivityMetrics: R.activityMetricsSchema,
  SystemDimension: R.systemDimensionSchema,
  GeoDimension: R.geoDimensionSchema,
  AnalyticsRow: R.analyticsRowSchema,
  SiteAnalytics: R.siteAnalyticsSchema,
  MostTrafficRow: R.mostTrafficRowSchema,
  SiteName: S.siteNameSchema,
  AutoSyncCacheTtl: S.ttlSchema,
  BusinessInfo: S.businessInfoSchema,
  Address: S.addressSchema,
  ReservationInfo: S.reservationInfoSchema,
  SiteData: S.siteDataSchema,
  CreateSiteBody: S.createSiteSchema,
  UpdateSiteBody: S.updateSiteSchema,
  RecreateSiteBody: S.recreateSiteSchema,
  GetManyBody: S.getManySchema,
  CreateAccountBody: createAccountSchema,
  UpdateAccountBody: updateAccountSchema,
  SiteEvent: siteEventSchema,
}

const NAME_OF = new Map<object, string>(Object.entries(COMPONENTS).map(([name, schema]) => [schema, name]))

/** The components/schemas name of a schema object, if it has one. */
export function componentName(schema: unknown): string | undefined {
  return typeof schema === 'object' && schema !== null ? NAME_OF.get(schema) : undefined
}

/** A copy of `schema` in which every known sub-schema (and the schema itself, unless `root`) is a `$ref`. */
function withRefs(schema: unknown, root = false): unknown {
  if (typeof schema !== 'object' || schema === null) return schema
  const name = root ? undefined : NAME_OF.get(schema)
  if (name !== undefined) return { $ref: `#/components/schemas/${name}` }
  if (Array.isArray(schema)) return schema.map((item) => withRefs(item))
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, withRefs(value)]))
}

/** The path parameters of the table, described once. */
export const PATH_PARAMETERS: Readonly<Record<string, { description: string; schema: object }>> = {
  site_name: { description: 'The site name (exact, case-sensitive).', schema: { type: 'string' } },
  account_name: { description: 'The sub-user account name.', schema: { type: 'string' } },
  external_uid: { description: 'The external_uid given to the site.', schema: { type: 'string' } },
}

/** Codes every authenticated request can be answered with, whatever the route. */
function baseCodes(route: RouteDoc): ErrorCode[] {
  // A public route reads no credentials, but refuses a body like every route: unreadable (415), malformed or non-empty (400), too large (413).
  if (route.public) return ['InvalidInput', 'UnsupportedMediaType']
  const codes: ErrorCode[] = [
    'InvalidInput',
    'Unauthorized',
    'UnsupportedMediaType',
    // Past the failed-login limits (on by default), and whenever the server sets a rate limit.
    'TooManyRequests',
    'InternalError',
    'ServiceUnavailable',
  ]
  if (route.method !== 'GET') codes.push('AccessForbidden')
  return codes
}

/** Every error code a route can answer with, in registry order. */
export function errorCodesOf(route: RouteDoc): ErrorCode[] {
  const codes = new Set([...baseCodes(route), ...(route.errors ?? [])])
  return (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => codes.has(code))
}

/** The statuses of these error codes and, for each, the codes and what they mean there, by status. */
function statusesOf(codes: readonly ErrorCode[]): Map<number, { code: ErrorCode; meaning: string }[]> {
  const statuses = new Map<number, { code: ErrorCode; meaning: string }[]>()
  const add = (status: number, code: ErrorCode, meaning: string) => {
    statuses.set(status, [...(statuses.get(status) ?? []), { code, meaning }])
  }
  for (const code of codes) {
    const info = ERROR_CODES[code]
    add(info.status, code, info.meaning)
    for (const [status, meaning] of Object.entries('alsoStatus' in info ? info.alsoStatus : {})) {
      add(Number(status), code, meaning)
    }
  }
  return new Map([...statuses].sort(([a], [b]) => a - b))
}

/** Error statuses of a route and, for each, the codes and what they mean there. */
export function errorStatusesOf(route: RouteDoc): Map<number, { code: ErrorCode; meaning: string }[]> {
  return statusesOf(errorCodesOf(route))
}

/** Response headers by status, as components/headers names them. */
const HEADERS_OF_STATUS: Record<number, Record<string, object>> = {
  401: { 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' } },
  429: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
}

const json = (schema: unknown) => ({ 'application/json': { schema } })

function errorResponse(status: number, causes: { code: ErrorCode; meaning: string }[]): object {
  const codes = [...new Set(causes.map(({ code }) => code))]
  return {
    description: causes.map(({ code, meaning }) => `${code}: ${meaning}`).join('\n\n'),
    ...(HEADERS_OF_STATUS[status] ? { headers: HEADERS_OF_STATUS[status] } : {}),
    content: json({
      allOf: [
        { $ref: '#/components/schemas/Error' },
        { type: 'object', properties: { error_code: { type: 'string', enum: codes } } },
      ],
    }),
  }
}

/** `/sites/:site_name` → `/sites/{site_name}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([a-z_]+)/g, '{$1}')
}

function parametersOf(route: RouteDoc): object[] {
  const path = [...route.path.matchAll(/:([a-z_]+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    ...PATH_PARAMETERS[name!],
  }))
  const properties = route.input === 'query' ? ((route.schema as { properties?: object })?.properties ?? {}) : {}
  const query = Object.entries(properties).map(([name, schema]) => ({
    name,
    in: 'query',
    required: false,
    ...((schema as { description?: string }).description
      ? { description: (schema as { description: string }).description }
      : {}),
    schema: withRefs(schema),
  }))
  return [...path, ...query]
}

function operation(route: RouteDoc): object {
  if (!route.operationId || !route.tag) throw new Error(`route ${route.method} ${route.path} has no operationId or tag`)
  const parameters = parametersOf(route)
  const body =
    route.schema && (route.input === 'body' || route.input === 'optional-body')
      ? { requestBody: { required: route.input === 'body', content: json(withRefs(route.schema)) } }
      : {}
  const success =
    route.success === 'empty'
      ? { 204: { description: 'Done; no content.' } }
      : { 200: { description: 'The result.', content: json(withRefs(route.response ?? {})) } }
  const errors = Object.fromEntries(
    [...errorStatusesOf(route)].map(([status, causes]) => [status, errorResponse(status, causes)]),
  )
  return {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(route.public ? { security: [] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...body,
    responses: { ...success, ...errors },
  }
}

/** Where the standalone server mounts the test-double controls, beside the API. */
export const ADMIN_MOUNT = '/__admin'

/** Codes every admin call can answer with; writes also 403 (cross-site) like the API. */
export function adminErrorCodesOf(call: AdminCall): ErrorCode[] {
  const codes = new Set<ErrorCode>([
    'InvalidInput',
    'Unauthorized',
    'UnsupportedMediaType',
    'InternalError',
    ...(call.errors ?? []),
  ])
  if (call.method !== 'GET') codes.add('AccessForbidden')
  // Health answers 503 with its own body; every other call fails with ServiceUnavailable when the store is down.
  if (!call.outage) codes.add('ServiceUnavailable')
  return (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => codes.has(code))
}

/** The body schema of an admin call, or undefined. */
export function adminBodyOf(call: AdminCall): object | undefined {
  return call.input === 'body' || call.input === 'optional-body' ? call.schema : undefined
}

/** The query schema of an admin call, or undefined. */
export function adminQueryOf(call: AdminCall): object | undefined {
  return call.input === 'query' ? call.schema : undefined
}

function adminOperation(call: AdminCall): object {
  const errors = Object.fromEntries(
    [...statusesOf(adminErrorCodesOf(call))].map(([status, list]) => {
      const response = errorResponse(status, list) as { headers?: object }
      // The admin token is a bearer token, not the API's Basic credentials.
      return [
        status,
        status === 401
          ? { ...response, headers: { 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate-Bearer' } } }
          : response,
      ]
    }),
  )
  const success =
    call.success === 204
      ? { 204: { description: 'Done; no content.' } }
      : {
          [call.success]: {
            description: call.success === 201 ? 'Created.' : 'The result.',
            content: json(withRefs(call.response)),
          },
        }
  const health = call.outage
    ? { 503: { description: 'The store cannot be reached.', content: json(withRefs(call.response)) } }
    : {}
  const path = [...call.path.matchAll(/:([a-z_]+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }))
  const query = Object.entries((adminQueryOf(call) as { properties?: object } | undefined)?.properties ?? {}).map(
    ([name, schema]) => ({
      name,
      in: 'query',
      required: false,
      schema: withRefs(schema),
    }),
  )
  const parameters = [...path, ...query]
  return {
    operationId: call.operationId,
    tags: [ADMIN_TAG.name],
    summary: call.summary,
    // Open unless the server was given an admin token; then the bearer token is needed.
    security: [{ bearerAuth: [] }, {}],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(adminBodyOf(call)
      ? { requestBody: { required: call.input === 'body', content: json(withRefs(adminBodyOf(call))) } }
      : {}),
    responses: { ...success, ...health, ...errors },
  }
}

/**
 * The admin calls as path items. They live beside the API, not under it, so each
 * path item overrides `servers` with the server root (the origin of `serverUrl`
 * when it is absolute) and the paths carry the `/__admin` mount.
 */
function adminPaths(serverUrl: string): Record<string, Record<string, unknown>> {
  const root = /^[a-z][a-z0-9+.-]*:/i.test(serverUrl) ? `${new URL(serverUrl).origin}/` : '/'
  const paths: Record<string, Record<string, unknown>> = {}
  for (const call of ADMIN_CALLS) {
    const item = (paths[`${ADMIN_MOUNT}${openApiPath(call.path)}`] ??= {
      servers: [
        {
          url: root,
          description: 'The server root: the test-double controls are mounted beside the API, not under it.',
        },
      ],
    })
    item[call.method.toLowerCase()] = adminOperation(call)
  }
  return paths
}

/** The tag of the test-double controls (`startServer({ admin: true })`). */
export const ADMIN_TAG = {
  name: 'Test-double controls',
  description: `Steer a test double: reset, seed, snapshot, clock, builder, journal (with counts and near misses), faults, webhooks and the rate limit. Served only when the server was started with admin on, at ${ADMIN_MOUNT} beside the API (these path items override servers with the server root). With an admin token every call needs Authorization: Bearer <token>.`,
}

const TAGS = [
  { name: 'Sites', description: 'Create, read, change, publish and delete mobile sites.' },
  { name: 'Accounts', description: 'Sub-user accounts and their access to sites; partner master accounts only.' },
  {
    name: 'Sites (Duda)',
    description:
      "Today's Duda paths for sites and site reporting (`/sites/multiscreen/...`), as `@dudadev/partner-api` calls them: the same sites and rules as the Sites paths. See docs/duda-api.md.",
  },
  {
    name: 'Analytics',
    description: 'Traffic and activity figures; 300 calls per UTC day per master account per method.',
  },
  { name: 'Agents', description: 'The User-Agents sent to the mobile site.' },
  { name: 'Meta', description: 'This description.' },
  ADMIN_TAG,
]

const DESCRIPTION = `Mobile-site management service.

Every endpoint but this document needs HTTP Basic credentials of a master account. Dates in are UTC
\`YYYY-MM-DD\` (start of that day) or \`YYYY-MM-DDThh:mm:ss\`; dates out are \`YYYY-MM-DDThh:mm:ss\` UTC.
Absent fields are absent, never null. Every failure answers \`{ "error_code", "message" }\`.
A path nothing serves answers 404 (components/responses/NotFound); a known path with another method
answers 405 with \`Allow\` (components/responses/MethodNotAllowed), and OPTIONS answers 204 with \`Allow\`.`

/** The OpenAPI document; `serverUrl` is where the router is mounted (default `/api`). */
export function openApiDocument(
  serverUrl = '/api',
  routes: readonly RouteDoc[] = [...ROUTES, ...SERVICE_ROUTES],
): object {
  const paths: Record<string, Record<string, object>> = {}
  for (const route of routes) (paths[openApiPath(route.path)] ??= {})[route.method.toLowerCase()] = operation(route)
  Object.assign(paths, adminPaths(serverUrl))
  const schemas = Object.fromEntries(Object.entries(COMPONENTS).map(([name, schema]) => [name, withRefs(schema, true)]))
  return {
    openapi: '3.1.0',
    info: {
      title: 'mobisite',
      version: '0.1.0',
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: serverUrl }],
    tags: TAGS,
    security: [{ basic: [] }],
    paths,
    components: {
      securitySchemes: {
        basic: { type: 'http', scheme: 'basic', description: 'A master account: user and password.' },
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'The admin token of the test-double controls (adminToken, MOBISITE_ADMIN_TOKEN).',
        },
      },
      schemas,
      headers: {
        'WWW-Authenticate': {
          description: 'The authentication scheme to use.',
          required: true,
          schema: { type: 'string', const: 'Basic realm="mobisite"' },
        },
        'WWW-Authenticate-Bearer': {
          description: 'The admin calls ask for the bearer token.',
          required: true,
          schema: { type: 'string', const: 'Bearer realm="mobisite admin"' },
        },
        'Retry-After': {
          description:
            'Seconds to wait: to the next UTC midnight for the daily analytics limit (DailyLimitExceeded), to the end of the second for the rate limit, to the end of the failed-login window for the failed-login limits (TooManyRequests).',
          required: true,
          schema: { type: 'integer', minimum: 1 },
        },
        Allow: { description: 'The methods the path takes.', required: true, schema: { type: 'string' } },
      },
      responses: {
        NotFound: errorResponse(404, [{ code: 'NotFound', meaning: ERROR_CODES.NotFound.meaning }]),
        MethodNotAllowed: {
          ...errorResponse(405, [{ code: 'MethodNotAllowed', meaning: ERROR_CODES.MethodNotAllowed.meaning }]),
          headers: { Allow: { $ref: '#/components/headers/Allow' } },
        },
        Options: {
          description: 'OPTIONS on a known path: no content.',
          headers: { Allow: { $ref: '#/components/headers/Allow' } },
        },
        RequestTimeout: errorResponse(408, [{ code: 'RequestTimeout', meaning: ERROR_CODES.RequestTimeout.meaning }]),
      },
    },
  }
}
