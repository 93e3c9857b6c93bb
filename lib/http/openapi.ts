/**
 * The OpenAPI 3.1 document of the API, generated from the route table and the
 * same JSON Schemas the engine validates with and the responses are checked
 * against, so it cannot drift. Shared schemas become components reached by
 * `$ref`; every status an operation can return is listed with its error codes
 * (from the registry in lib/errors.ts) and the headers that come with it.
 *
 * The API's routes and the test-double controls' calls are one shape
 * (RouteDoc, routes.ts) and go through one builder. The controls are in the
 * document only when asked for, as where adminRouter is mounted: a document
 * lists no path its server does not serve.
 */
import { ERROR_CODES, type ErrorCode } from '../errors.js'
import { createAccountSchema, updateAccountSchema } from '../schema/accounts.js'
import * as R from '../schema/responses.js'
import * as S from '../schema/sites.js'
import { siteEventSchema } from '../schema/events.js'
import { ADMIN_CALLS, ADMIN_MOUNT, ADMIN_TAG } from '../testing/admin-calls.js'
import { ROUTES, SERVICE_ROUTES, type Auth, type RouteDoc } from './routes.js'

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

/**
 * The codes any route can answer with besides its own `errors`, from how it
 * authenticates and its method: the one list of them, for the API and the
 * test-double controls alike.
 */
function baseCodes(route: RouteDoc): ErrorCode[] {
  // Every route refuses a body it cannot read (415) and one that is malformed, too large or not wanted (400, 413).
  const codes: ErrorCode[] = ['InvalidInput', 'UnsupportedMediaType']
  // A public route reads no credentials and no store.
  if (route.auth === 'none') return codes
  codes.push('Unauthorized', 'InternalError')
  // Master accounts' credentials meet the failed-login limits (on by default) and any rate limit; the admin token neither.
  if (route.auth === 'basic') codes.push('TooManyRequests')
  // A route that reports an outage in its own answer (admin health) never answers ServiceUnavailable.
  if (!route.outage) codes.push('ServiceUnavailable')
  // A write from another site's page (403); see docs/security.md.
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

/** The header a 401 asks for credentials with, as components/headers names it, by how the route authenticates. */
const CHALLENGE: Readonly<Record<Exclude<Auth, 'none'>, string>> = {
  basic: 'WWW-Authenticate',
  bearer: 'WWW-Authenticate-Bearer',
}

/** The headers documented with an error status, as components/headers names them. */
function headersOf(status: number, auth: Auth): Record<string, object> | undefined {
  if (status === 401 && auth !== 'none')
    return { 'WWW-Authenticate': { $ref: `#/components/headers/${CHALLENGE[auth]}` } }
  if (status === 429) return { 'Retry-After': { $ref: '#/components/headers/Retry-After' } }
  return undefined
}

const json = (schema: unknown) => ({ 'application/json': { schema } })

function errorResponse(status: number, causes: { code: ErrorCode; meaning: string }[], auth: Auth = 'basic'): object {
  const codes = [...new Set(causes.map(({ code }) => code))]
  const headers = headersOf(status, auth)
  return {
    description: causes.map(({ code, meaning }) => `${code}: ${meaning}`).join('\n\n'),
    ...(headers ? { headers } : {}),
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

/** The JSON Schema of a route's body, or undefined when it takes none. */
export function bodyOf(route: RouteDoc): object | undefined {
  return route.input === 'body' || route.input === 'optional-body' ? route.schema : undefined
}

/** The JSON Schema of a route's query, or undefined when it takes none. */
export function queryOf(route: RouteDoc): object | undefined {
  return route.input === 'query' ? route.schema : undefined
}

function parametersOf(route: RouteDoc): object[] {
  const path = [...route.path.matchAll(/:([a-z_]+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    // A parameter the table does not describe is still a string.
    ...(PATH_PARAMETERS[name!] ?? { schema: { type: 'string' } }),
  }))
  const properties = (queryOf(route) as { properties?: object } | undefined)?.properties ?? {}
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

/** Who may call, where it differs from the document's default (Basic). */
const SECURITY: Readonly<Record<Auth, object>> = {
  basic: {},
  none: { security: [] },
  // Open unless the server was given an admin token; then the bearer token is needed.
  bearer: { security: [{ bearerAuth: [] }, {}] },
}

/** The operation object of a route, API or admin alike. */
function operation(route: RouteDoc): object {
  const parameters = parametersOf(route)
  const body = bodyOf(route)
  const success =
    route.success === 204
      ? { 204: { description: 'Done; no content.' } }
      : {
          [route.success]: {
            description: route.success === 201 ? 'Created.' : 'The result.',
            content: json(withRefs(route.response ?? {})),
          },
        }
  const outage = route.outage
    ? { 503: { description: 'The store cannot be reached.', content: json(withRefs(route.response)) } }
    : {}
  const errors = Object.fromEntries(
    [...errorStatusesOf(route)].map(([status, causes]) => [status, errorResponse(status, causes, route.auth)]),
  )
  return {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...SECURITY[route.auth],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body ? { requestBody: { required: route.input === 'body', content: json(withRefs(body)) } } : {}),
    responses: { ...success, ...outage, ...errors },
  }
}

type PathItems = Record<string, Record<string, unknown>>

/** Adds the routes of one router to `paths`, below `mount`; `servers`, if given, overrides the document's. */
function addPaths(paths: PathItems, routes: readonly RouteDoc[], mount = '', servers?: object[]): void {
  for (const route of routes) {
    const item = (paths[`${mount}${openApiPath(route.path)}`] ??= servers ? { servers } : {})
    item[route.method.toLowerCase()] = operation(route)
  }
}

/**
 * Where the admin calls are served from. They live beside the API, not under
 * it, so their path items override `servers` with the server root (the
 * origin of `serverUrl` when it is absolute) and carry the `/__admin` mount.
 */
function adminServers(serverUrl: string): object[] {
  const root = /^[a-z][a-z0-9+.-]*:/i.test(serverUrl) ? `${new URL(serverUrl).origin}/` : '/'
  return [
    { url: root, description: 'The server root: the test-double controls are mounted beside the API, not under it.' },
  ]
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

/** Every header a response may document; the document keeps those its responses name. */
const HEADERS: Record<string, object> = {
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
}

/** Options of {@link openApiDocument}. */
export interface OpenApiOptions {
  /**
   * Also describe the test-double controls, at `/__admin` beside the API:
   * for a server that mounts adminRouter there (`startServer({ admin: true })`).
   * Default false: the document lists only what apiRouter serves.
   */
  admin?: boolean
}

/** Every `$ref` target in `value`, as `#/components/<group>/<name>`. */
function refsIn(value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value !== 'object' || value === null) return into
  for (const [key, inner] of Object.entries(value)) {
    if (key === '$ref' && typeof inner === 'string') into.add(inner)
    else refsIn(inner, into)
  }
  return into
}

/**
 * Keeps of `group` (components/schemas or components/headers) what `from`
 * reaches, directly or through other components: a component only the admin
 * calls use (SiteEvent, the bearer challenge) leaves a document without them.
 */
function reached<T>(group: string, all: Record<string, T>, from: unknown): Record<string, T> {
  const seen = refsIn(from)
  for (const ref of seen) {
    const [, , refGroup, name] = ref.split('/')
    if (refGroup === group && all[name!] !== undefined) refsIn(all[name!], seen)
  }
  return Object.fromEntries(Object.entries(all).filter(([name]) => seen.has(`#/components/${group}/${name}`)))
}

/**
 * The OpenAPI document; `serverUrl` is where the router is mounted (default
 * `/api`). With `admin`, the test-double controls are in it too.
 */
export function openApiDocument(serverUrl = '/api', options: OpenApiOptions = {}): object {
  const paths: PathItems = {}
  const routes: RouteDoc[] = [...ROUTES, ...SERVICE_ROUTES]
  addPaths(paths, routes)
  if (options.admin) {
    addPaths(paths, ADMIN_CALLS, ADMIN_MOUNT, adminServers(serverUrl))
    routes.push(...ADMIN_CALLS)
  }
  const used = new Set(routes.map(({ tag }) => tag))
  const auths = new Set(routes.map(({ auth }) => auth))
  const responses = {
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
  }
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
    tags: TAGS.filter(({ name }) => used.has(name)),
    security: [{ basic: [] }],
    paths,
    components: {
      securitySchemes: {
        basic: { type: 'http', scheme: 'basic', description: 'A master account: user and password.' },
        ...(auths.has('bearer')
          ? {
              bearerAuth: {
                type: 'http',
                scheme: 'bearer',
                description: 'The admin token of the test-double controls (adminToken, MOBISITE_ADMIN_TOKEN).',
              },
            }
          : {}),
      },
      schemas: reached('schemas', schemas, { paths, responses }),
      headers: reached('headers', HEADERS, { paths, responses }),
      responses,
    },
  }
}
