/**
 * The OpenAPI document: a third-party validator (@seriousme/openapi-schema-
 * validator) accepts it; it describes every route of the table with an
 * operationId, tags, a summary and a schema for every status; the router
 * serves it; the response check every HTTP test goes through
 * (test/helpers/openapi-check.ts) refuses what the document does not allow;
 * and a client generated from it with openapi-typescript compiles under
 * strict TypeScript with a typed body for every JSON response.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Validator } from '@seriousme/openapi-schema-validator'
import openapiTS, { astToString } from 'openapi-typescript'
import t from 'tap'
import { ERROR_CODES } from '../../lib/errors.js'
import { ROUTES, SERVICE_ROUTES } from '../../lib/http/routes.js'
import { openApiDocument } from '../../lib/index.js'
import { clockSetSchema, faultSchema } from '../../lib/schema/admin.js'
import { ADMIN_CALLS } from '../../lib/testing/admin-calls.js'
import { PASSWORDS, createSite, setup } from '../helpers/api.js'
import { DOCUMENT, checkedRequest, problemsAgainstDocument, type Exchange } from '../helpers/openapi-check.js'

type Operation = {
  operationId: string
  tags: string[]
  summary: string
  responses: Record<string, { content?: Record<string, { schema: unknown }>; headers?: Record<string, unknown> }>
}
const doc = openApiDocument('/api', { admin: true }) as {
  paths: Record<string, Record<string, Operation>>
  components: Record<string, Record<string, unknown>>
}
const allOperations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => method !== 'servers')
    .map(([method, op]) => ({ path, method, op })),
)
const ADMIN = 'Test-double controls'
const operations = allOperations.filter(({ op }) => !op.tags.includes(ADMIN))
const adminOperations = allOperations.filter(({ op }) => op.tags.includes(ADMIN))

t.test('a third-party validator accepts the document', async (t) => {
  const result = await new Validator().validate(doc as never)
  t.same(result, { valid: true }, JSON.stringify(result.errors ?? '').slice(0, 2000))
})

t.test(
  'every route of the table is an operation with an id, a tag, a summary and every status it returns',
  async (t) => {
    t.equal(operations.length, ROUTES.length + SERVICE_ROUTES.length, 'one operation per route')
    const ids = allOperations.map(({ op }) => op.operationId)
    t.equal(new Set(ids).size, ids.length, 'operationIds are unique')
    for (const { path, method, op } of operations) {
      const name = `${method.toUpperCase()} ${path}`
      t.match(op.operationId, /^[a-z][A-Za-z]+$/, `${name}: camelCase operationId`)
      t.ok(op.tags.length === 1 && op.summary.length > 0, `${name}: a tag and a summary`)
      const statuses = Object.keys(op.responses)
      const json = op.responses['200']?.content?.['application/json']
      if (json) t.not(JSON.stringify(json.schema), '{}', `${name}: the 200 body has a schema`)
      else t.ok(op.responses['204'], `${name}: 200 with a schema or 204`)
      for (const status of statuses.filter((s) => Number(s) >= 400)) {
        t.ok(op.responses[status]!.content?.['application/json'], `${name}: ${status} has the error body`)
      }
      if (path === '/openapi.json') continue
      for (const status of ['400', '401', '413', '415', '500', '503'])
        t.ok(statuses.includes(status), `${name}: documents ${status}`)
      t.ok(op.responses['401']!.headers?.['WWW-Authenticate'], `${name}: 401 has WWW-Authenticate`)
      if (path.startsWith('/analytics'))
        t.ok(op.responses['429']?.headers?.['Retry-After'], `${name}: 429 with Retry-After`)
      if (path.startsWith('/account')) t.ok(statuses.includes('403'), `${name}: 403 for non-partners`)
    }
    const errorSchema = doc.components.schemas!.Error as { properties: { error_code: { enum: string[] } } }
    t.same(errorSchema.properties.error_code.enum, Object.keys(ERROR_CODES), 'error_code is an enum of the registry')
    for (const name of [
      'Site',
      'SiteSummary',
      'Account',
      'TrafficMetrics',
      'ActivityMetrics',
      'AnalyticsRow',
      'MostTrafficRow',
      'Error',
    ]) {
      t.ok(doc.components.schemas![name], `components/schemas/${name}`)
    }
    const getSite = doc.paths['/sites/{site_name}']!.get!
    t.same(
      getSite.responses['200']!.content!['application/json']!.schema,
      { $ref: '#/components/schemas/Site' },
      'resources by $ref',
    )
    t.ok(doc.components.securitySchemes!.basic, 'HTTP Basic security scheme')
    const created = doc.components.schemas!.CreateSiteBody as { properties: Record<string, { default?: unknown }> }
    t.equal(created.properties.create_now!.default, true, 'defaults are documented')
    const site = doc.components.schemas!.SiteData as {
      properties: Record<string, { maxLength?: number; $ref?: string }>
    }
    t.equal(site.properties.original_site_url!.maxLength, 2048, 'limits are the validators’ own')
  },
)

t.test(
  'every admin call is an operation under its own tag, beside the API, with its schemas and the bearer scheme',
  async (t) => {
    t.equal(adminOperations.length, ADMIN_CALLS.length, 'one operation per admin call')
    t.ok(
      (doc as unknown as { tags: { name: string }[] }).tags.some(({ name }) => name === ADMIN),
      'the tag is declared',
    )
    t.same(doc.components.securitySchemes!.bearerAuth, {
      type: 'http',
      scheme: 'bearer',
      description: (doc.components.securitySchemes!.bearerAuth as { description: string }).description,
    })
    for (const { path, method, op } of adminOperations) {
      const name = `${method.toUpperCase()} ${path}`
      t.match(path, /^\/__admin\//, `${name}: under /__admin`)
      t.same(
        (doc.paths[path] as unknown as { servers: { url: string }[] }).servers.map(({ url }) => url),
        ['/'],
        `${name}: served from the server root, not /api`,
      )
      t.match(op.operationId, /^admin[A-Z][A-Za-z]+$/, `${name}: operationId`)
      t.ok(op.summary.length > 0, `${name}: a summary`)
      t.same(
        (op as unknown as { security: unknown }).security,
        [{ bearerAuth: [] }, {}],
        `${name}: bearer when a token is set`,
      )
      const statuses = Object.keys(op.responses)
      t.ok(
        ['200', '201', '204'].some((s) => statuses.includes(s)),
        `${name}: a success status`,
      )
      for (const s of ['200', '201'])
        if (op.responses[s])
          t.not(
            JSON.stringify(op.responses[s]!.content?.['application/json']?.schema ?? {}),
            '{}',
            `${name}: ${s} body schema`,
          )
      for (const s of ['400', '401', '415', '500']) {
        t.same(
          op.responses[s]?.content?.['application/json']?.schema,
          {
            allOf: [
              { $ref: '#/components/schemas/Error' },
              {
                type: 'object',
                properties: {
                  error_code: {
                    type: 'string',
                    enum: (
                      op.responses[s]!.content!['application/json']!.schema as {
                        allOf: [unknown, { properties: { error_code: { enum: string[] } } }]
                      }
                    ).allOf[1].properties.error_code.enum,
                  },
                },
              },
            ],
          },
          `${name}: ${s} is the Error body`,
        )
      }
      t.same(
        op.responses['401']!.headers,
        { 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate-Bearer' } },
        `${name}: 401 asks for Bearer`,
      )
      t.ok(op.responses['503']?.content, `${name}: 503 documented`)
      if (method !== 'get') t.ok(op.responses['403'], `${name}: 403 for cross-site writes`)
    }
    const body = (path: string, method: string) =>
      (doc.paths[path]![method] as unknown as { requestBody: { content: Record<string, { schema: unknown }> } })
        .requestBody.content['application/json']!.schema
    t.same(
      resolved(body('/__admin/faults', 'post')),
      faultSchema,
      'the fault body is the schema the router validates with',
    )
    t.same(resolved(body('/__admin/clock', 'put')), clockSetSchema, 'the clock body too')
    t.ok(doc.paths['/__admin/faults/{id}']!.delete!.responses['404'], 'deleting an unknown fault: 404')
    t.ok(doc.paths['/__admin/faults']!.post!.responses['201'], 'a fault is created: 201 { id }')
  },
)

/** A schema of the document with every `$ref` replaced by the component it names. */
const resolved = (schema: unknown): unknown => {
  if (typeof schema !== 'object' || schema === null) return schema
  const ref = (schema as { $ref?: string }).$ref
  if (ref) return resolved(doc.components.schemas![ref.replace('#/components/schemas/', '')])
  if (Array.isArray(schema)) return schema.map(resolved)
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, resolved(value)]))
}

t.test('the router serves the document without credentials', async (t) => {
  const f = await setup(t)
  const res = await checkedRequest(f.server).get('/api/openapi.json')
  t.equal(res.status, 200)
  t.same(res.body, openApiDocument('/api'))
  t.equal((await checkedRequest(f.server).get('/api/openapi.json').auth('alice', PASSWORDS.alice)).status, 200)
})

t.test('the response check refuses what the document does not allow', async (t) => {
  const f = await setup(t)
  await createSite(t, f.alice, 'checked')
  const site = await f.alice.get('/sites/checked')
  const ok: Exchange = { method: 'GET', path: '/sites/checked', status: 200, headers: site.headers, text: site.text }
  t.same(problemsAgainstDocument(ok), [], 'a real answer conforms')
  const cases: [string, Partial<Exchange>, RegExp][] = [
    ['an undocumented status', { status: 418 }, /status 418 is not documented for getSite/],
    [
      'a field the schema does not have',
      { text: JSON.stringify({ ...site.body, extra: 1 }) },
      /must NOT have additional properties/,
    ],
    ['a missing required field', { text: JSON.stringify({ site_name: 'checked' }) }, /must have required property/],
    ['null instead of an absent key', { text: JSON.stringify({ ...site.body, site_domain: null }) }, /must be string/],
    [
      'a bad date',
      { text: JSON.stringify({ ...site.body, last_published_date: '2025-01-01T00:00:00Z' }) },
      /must match pattern/,
    ],
    ['not JSON', { text: '<html>' }, /not JSON/],
    ['an unknown path answered 200', { path: '/nothing/here' }, /expected the documented 404/],
    ['a wrong method answered 200', { method: 'PUT' }, /expected the documented 405/],
    [
      'a 401 without WWW-Authenticate',
      { status: 401, text: '{"error_code":"Unauthorized","message":"x"}', headers: {} },
      /WWW-Authenticate is missing/,
    ],
    [
      'an error code another status owns',
      { status: 400, text: '{"error_code":"Unauthorized","message":"x"}' },
      /must be equal to one of the allowed values/,
    ],
    [
      'a code the route does not answer',
      { status: 429, text: '{"error_code":"DailyLimitExceeded","message":"x"}' },
      /must be equal to one of the allowed values/,
    ],
    ['a 204 with a body', { method: 'DELETE', status: 204 }, /a body where the document says none/],
    [
      'a 405 without Allow',
      { method: 'PUT', status: 405, text: '{"error_code":"MethodNotAllowed","message":"x"}' },
      /Allow is missing/,
    ],
  ]
  for (const [label, change, expected] of cases) {
    const problems = problemsAgainstDocument({ ...ok, ...change })
    t.match(problems.join('\n'), expected, label)
  }
})

const root = fileURLToPath(new URL('../..', import.meta.url))
const exec = promisify(execFile)

/** Reads one typed field of every JSON response; fails to compile if any body were `unknown` or `any`. */
const CLIENT = `import type { paths } from './api.js'

type Body<P extends keyof paths, M extends keyof paths[P], S extends number = 200> = paths[P][M] extends {
  responses: infer R
}
  ? S extends keyof R
    ? R[S] extends { content: { 'application/json': infer B } }
      ? B
      : never
    : never
  : never

declare function call<P extends keyof paths, M extends keyof paths[P], S extends number = 200>(
  method: M,
  path: P,
  status?: S,
): Promise<Body<P, M, S>>

type OkBody<O> = O extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : 'none'
type Loose<T> = 0 extends 1 & T ? 'any' : unknown extends T ? 'unknown' : 'typed'
type Untyped = {
  [P in keyof paths]: {
    [M in 'get' | 'post' | 'delete']: Loose<OkBody<NonNullable<paths[P][M]>>> extends 'typed' ? never : [P, M]
  }['get' | 'post' | 'delete']
}[keyof paths]
export const everyJsonResponseIsTyped: [Untyped] extends [never] ? true : Untyped = true

export async function readAll(): Promise<string[]> {
  const out: string[] = []
  out.push((await call('post', '/sites/create')).site_name)
  for (const ref of await call('get', '/sites/created')) out.push(ref.site_name)
  for (const ref of await call('get', '/sites/modified')) out.push(ref.site_name)
  for (const summary of await call('post', '/sites/get-many')) out.push(summary.original_site_url)
  const byExternal = await call('get', '/sites/byexternal/{external_uid}')
  out.push(byExternal.external_uid ?? '', byExternal.last_published_date ?? '')
  const site = await call('get', '/sites/{site_name}')
  const ttl: 'VERY_SHORT' | 'SHORT' | 'LONG' | 'VERY_LONG' = site.auto_sync_cache_ttl
  const status: 'UNDER_CONSTRUCTION' | undefined = site.status
  out.push(ttl, status ?? '', site.site_business_info?.address?.zip_code ?? '', site.preview_site_url ?? '')
  // @ts-expect-error a Site has no such field
  out.push(site.no_such_field)
  const account = await call('get', '/accounts/{account_name}')
  out.push(account.account_name, account.email ?? '')
  // @ts-expect-error Retrieve Account never returns lang
  out.push(account.lang)
  for (const row of await call('get', '/analytics/sites/withmosttraffic')) out.push(row.site_name, String(row.data.VISITS))
  const analytics = await call('get', '/analytics/site/{site_name}')
  if (Array.isArray(analytics)) {
    for (const row of analytics) {
      // With today's Duda dateGranularity the answer is buckets, each of a date and what the period answers.
      if ('date' in row) out.push(row.date)
      else out.push('browser' in row.dimension ? row.dimension.browser : row.dimension.country)
    }
  } else if ('VISITS' in analytics) {
    out.push(String(analytics.UNIQUE_VISITORS + analytics.PAGE_VIEWS))
  } else {
    out.push(String(analytics.CLICK_TO_CALLS + analytics.FORM_SUBMITS))
  }
  const agents: string = await call('get', '/agents')
  out.push(agents)
  const error = await call('get', '/analytics/site/{site_name}', 429)
  const code: 'InvalidInput' | 'Unauthorized' | 'AccessForbidden' | 'NotFound' | 'MethodNotAllowed' | 'RequestTimeout'
    | 'UnsupportedMediaType' | 'DailyLimitExceeded' | 'TooManyRequests' | 'InternalError' | 'ServiceUnavailable'
    | 'ResourceNotExist' | 'ResourceAlreadyExist' = error.error_code
  out.push(code, error.message)
  return out
}
`

t.test('a client generated with openapi-typescript compiles with a typed body for every JSON response', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mobisite-client-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const types = astToString(await openapiTS(DOCUMENT as never))
  t.notMatch(types, /"application\/json": unknown/, 'no JSON body typed unknown')
  writeFileSync(join(dir, 'api.ts'), types)
  writeFileSync(join(dir, 'client.ts'), CLIENT)
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        skipLibCheck: false,
        types: [],
      },
      files: ['client.ts'],
    }),
  )
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
  const output = await exec(process.execPath, [tsc, '-p', dir]).then(
    ({ stdout }) => stdout,
    (error: { stdout?: string }) => error.stdout ?? String(error),
  )
  t.equal(output, '', 'tsc --strict: no diagnostics')
})
