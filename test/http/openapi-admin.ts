/**
 * The OpenAPI document lists the test-double controls only where they are
 * mounted (issue 35, item 6): apiRouter's document has no `/__admin` path
 * unless told that adminRouter is beside it; startServer({ admin: true })
 * tells it, and then every call adminRouter registers is in the document.
 * Without admin the document is the one with admin less the admin paths and
 * what only they use, so the API's own description is unchanged (checked
 * against the document from before the change while it was made).
 */
import { Validator } from '@seriousme/openapi-schema-validator'
import express from 'express'
import request from 'supertest'
import t from 'tap'
import { openApiDocument, openApiPath } from '../../lib/http/openapi.js'
import { apiRouter, createEngine, startServer } from '../../lib/index.js'
import { adminRouter } from '../../lib/testing/admin.js'
import { ADMIN_CALLS, ADMIN_MOUNT, ADMIN_TAG } from '../../lib/testing/admin-calls.js'

interface Doc {
  tags: { name: string }[]
  paths: Record<string, Record<string, { tags?: string[] }>>
  components: Record<string, Record<string, unknown>>
}

const METHODS = ['get', 'put', 'post', 'delete'] as const

/** `METHOD /path` of every operation of a document. */
function operationsOf(doc: Doc): string[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method] !== undefined).map((method) => `${method.toUpperCase()} ${path}`),
  )
}

/** Every `$ref` of a value. */
function refsOf(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') into.push(inner)
      else refsOf(inner, into)
    }
  }
  return into
}

/** The calls adminRouter itself registers (its index `GET /` aside), as documented paths. */
function registeredAdminCalls(): string[] {
  const engine = createEngine()
  const router = adminRouter(engine) as unknown as {
    stack: { route?: { path: string; methods: Record<string, boolean> } }[]
  }
  void engine.close()
  return router.stack.flatMap(({ route }) =>
    route === undefined || route.path === '/'
      ? []
      : Object.keys(route.methods).map((method) => `${method.toUpperCase()} ${ADMIN_MOUNT}${openApiPath(route.path)}`),
  )
}

const without = openApiDocument('/api') as Doc
const withAdmin = openApiDocument('/api', { admin: true }) as Doc

t.test('without admin: no /__admin path, and nothing only the admin calls use', async (t) => {
  t.same(
    Object.keys(without.paths).filter((path) => path.startsWith(ADMIN_MOUNT)),
    [],
    'no path under /__admin',
  )
  t.notOk(
    without.tags.some(({ name }) => name === ADMIN_TAG.name),
    'no test-double controls tag',
  )
  t.notOk(without.components.securitySchemes!.bearerAuth, 'no bearer scheme')
  t.notOk(without.components.headers!['WWW-Authenticate-Bearer'], 'no bearer challenge header')
  t.notOk(without.components.schemas!.SiteEvent, 'no schema only the webhook calls answer with')
  const dangling = refsOf(without).filter((ref) => {
    const [, , group, name] = ref.split('/')
    return without.components[group!]?.[name!] === undefined
  })
  t.same(dangling, [], 'every $ref resolves')
  const result = await new Validator().validate(without as never)
  t.same(result, { valid: true }, JSON.stringify(result.errors ?? '').slice(0, 2000))
})

t.test('with admin: every call adminRouter registers is an operation, under /__admin', async (t) => {
  const registered = registeredAdminCalls()
  t.equal(registered.length, ADMIN_CALLS.length, 'adminRouter registers one route per admin call')
  const documented = operationsOf(withAdmin).filter((operation) => operation.includes(` ${ADMIN_MOUNT}/`))
  t.same([...documented].sort(), [...registered].sort(), 'the documented admin operations are the registered ones')
  for (const [path, item] of Object.entries(withAdmin.paths).filter(([path]) => path.startsWith(ADMIN_MOUNT))) {
    for (const method of METHODS.filter((m) => item[m]))
      t.same(item[method]!.tags, [ADMIN_TAG.name], `${method.toUpperCase()} ${path}: tagged`)
  }
})

t.test('without admin the document is the one with admin less its admin paths and what only they use', async (t) => {
  const expected = structuredClone(withAdmin) as Doc
  for (const path of Object.keys(expected.paths)) if (path.startsWith(ADMIN_MOUNT)) delete expected.paths[path]
  expected.tags = expected.tags.filter(({ name }) => name !== ADMIN_TAG.name)
  delete expected.components.securitySchemes!.bearerAuth
  delete expected.components.headers!['WWW-Authenticate-Bearer']
  delete expected.components.schemas!.SiteEvent
  // Key order too: the JSON served is byte for byte what it was before the admin paths left it.
  t.equal(JSON.stringify(without), JSON.stringify(expected))
  t.same(
    operationsOf(withAdmin).length - operationsOf(without).length,
    ADMIN_CALLS.length,
    'the admin calls are all the difference',
  )
})

t.test('an absolute server URL puts the admin calls on its origin, and only with admin', async (t) => {
  const url = 'https://sites.example:8443/api'
  const admin = openApiDocument(url, { admin: true }) as Doc
  const servers = (admin.paths[`${ADMIN_MOUNT}/clock`] as unknown as { servers: { url: string }[] }).servers
  t.same(
    servers.map((server) => server.url),
    ['https://sites.example:8443/'],
  )
  t.same(
    Object.keys((openApiDocument(url) as Doc).paths).filter((path) => path.startsWith(ADMIN_MOUNT)),
    [],
  )
})

t.test('apiRouter serves the admin paths only when told adminRouter is beside it', async (t) => {
  const engine = createEngine()
  t.teardown(() => engine.close())
  for (const openApiAdmin of [undefined, false, true]) {
    const app = express()
    app.use('/api', apiRouter(engine, openApiAdmin === undefined ? {} : { openApiAdmin }))
    const served = (await request(app).get('/api/openapi.json').expect(200)).body
    t.same(served, openApiAdmin ? withAdmin : without, `openApiAdmin: ${openApiAdmin}`)
  }
})

t.test('startServer: the document lists /__admin with admin, and not without', async (t) => {
  for (const admin of [false, true]) {
    const server = await startServer({ admin })
    t.teardown(() => server.close())
    const served = (await request(server.url).get('/api/openapi.json').expect(200)).body as Doc
    t.same(served, admin ? withAdmin : without, `admin: ${admin}`)
    if (admin) {
      // What the document lists is what the server answers: each admin path is served (no 404).
      const answered = await Promise.all(
        Object.keys(served.paths)
          .filter((path) => path.startsWith(ADMIN_MOUNT) && !path.includes('{'))
          .map(async (path) => [path, (await request(server.url).options(path)).status] as const),
      )
      t.same(
        answered.filter(([, status]) => status === 404),
        [],
        'every listed admin path is served',
      )
    } else {
      t.equal((await request(server.url).get(`${ADMIN_MOUNT}/clock`)).status, 404, 'no admin path is served')
    }
  }
})
