/**
 * The order of the route tables does not matter (issue 35): the API's
 * dispatch and the admin router rank a literal path segment above a
 * parameter, left to right, so every request reaches its most specific route
 * however the operations are listed; and no two routes of one method have the
 * same shape, which no ranking could tell apart.
 *
 * A table is shuffled with several seeds and reversed; each route's own
 * example path must still reach it, and every path built from the tables'
 * literals must reach what today's hand-ordered tables reach, so behaviour
 * over HTTP is the one the API always had.
 */
import express from 'express'
import request from 'supertest'
import t, { type Test } from 'tap'
import { compileDispatch, type Endpoint } from '../../lib/http/dispatch.js'
import { ROUTES, SERVICE_ROUTES, type Route } from '../../lib/http/routes.js'
import { ADMIN_CALLS, type AdminCall } from '../../lib/testing/admin-calls.js'
import type { adminRouter as AdminRouter } from '../../lib/testing/admin.js'
import { createEngine } from '../../lib/index.js'

const SEEDS = [1, 2, 3, 42, 2024, 99991]

/** mulberry32: a small seeded generator, so a failing order can be replayed from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let x = Math.imul(a ^ (a >>> 15), 1 | a)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const next = random(seed)
  const copy = [...items]
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1))
    ;[copy[i], copy[j]] = [copy[j]!, copy[i]!]
  }
  return copy
}

/** The orders every table is tried in, named for the assertion messages. */
function ordersOf<T>(items: readonly T[]): [string, T[]][] {
  return [
    ['reversed', [...items].reverse()],
    ...SEEDS.map((seed): [string, T[]] => [`seed ${seed}`, shuffled(items, seed)]),
  ]
}

/** A route's path with each parameter filled with a value that is no literal of any route. */
const exampleOf = (path: string): string => path.replace(/:([a-z_]+)/g, 'ex-$1')

/** The shape of a path: what decides which requests it matches (parameter names do not). */
const shapeOf = (path: string): string => path.replace(/:[a-z_]+/g, ':')

/** Every literal segment of the given paths. */
function literalsOf(paths: readonly string[]): string[] {
  return [...new Set(paths.flatMap((path) => path.split('/').filter((part) => part !== '' && !part.startsWith(':'))))]
}

/**
 * Paths that put a literal of some route where a route has a parameter: the
 * requests where two routes both match and the ranking has to choose.
 */
function contestedPaths(paths: readonly string[]): string[] {
  const literals = literalsOf(paths)
  const out = new Set<string>()
  for (const path of paths) {
    let variants = ['']
    for (const part of path.split('/').slice(1)) {
      const values = part.startsWith(':') ? ['ex-value', ...literals] : [part]
      variants = variants.flatMap((prefix) => values.map((value) => `${prefix}/${value}`))
    }
    for (const variant of variants) out.add(variant)
  }
  return [...out]
}

/** The API's endpoints as apiRouter lists them: the document, the operations, /agents (never run here). */
const API: readonly Endpoint[] = [
  ...SERVICE_ROUTES.filter((route) => route.auth === 'none').map((route) => ({ route: route as Route, public: true })),
  ...ROUTES.map((route) => ({ route })),
  ...SERVICE_ROUTES.filter((route) => route.auth !== 'none').map((route) => ({ route: route as Route })),
]

const nameOf = (endpoint: Endpoint | undefined): string =>
  endpoint === undefined ? '(none)' : `${endpoint.route.method} ${endpoint.route.path}`

t.test('the API: each route is reached by its example path, whatever the table order', async (t) => {
  for (const [order, endpoints] of ordersOf(API)) {
    const dispatch = compileDispatch(endpoints)
    const missed = API.flatMap((endpoint) => {
      const got = dispatch.match(endpoint.route.method, exampleOf(endpoint.route.path))?.endpoint
      return got?.route === endpoint.route ? [] : [`${nameOf(endpoint)} gets ${nameOf(got)}`]
    })
    t.same(missed, [], `${order}: every operation reaches itself`)
  }
})

/**
 * What Express and the dispatch before issue 35 did: the first route of the
 * method, in table order, whose shape the path has. The table was ordered by
 * hand so that a static path came first; its answers are the behaviour to keep.
 */
function firstInTableOrder(method: string, path: string): Endpoint | undefined {
  const parts = path.split('/')
  return API.find(({ route }) => {
    const wanted = route.path.split('/')
    if (route.method !== method || wanted.length !== parts.length) return false
    return wanted.every((part, i) => (part.startsWith(':') ? parts[i] !== '' : part === parts[i]))
  })
}

t.test('the API: contested paths reach what the hand-ordered table reached, in any order', async (t) => {
  const methods = [...new Set(API.map(({ route }) => route.method))]
  const paths = contestedPaths(API.map(({ route }) => route.path))
  t.ok(paths.length > 1000, `${paths.length} contested paths`)
  const today = compileDispatch(API)
  for (const [order, endpoints] of [['as listed', [...API]] as [string, Endpoint[]], ...ordersOf(API)]) {
    const dispatch = compileDispatch(endpoints)
    const differing: string[] = []
    for (const method of methods) {
      for (const path of paths) {
        const want = firstInTableOrder(method, path)
        const got = dispatch.match(method, path)?.endpoint
        if (want?.route !== got?.route) differing.push(`${method} ${path}: ${nameOf(got)}, not ${nameOf(want)}`)
      }
    }
    t.same(differing.slice(0, 10), [], `${order}: the same route for every contested path`)
    // 405 answers read the same table: the methods allowed at a path do not depend on its order either.
    const allowChanged = paths.filter(
      (path) => [...dispatch.allowed(path)].sort().join() !== [...today.allowed(path)].sort().join(),
    )
    t.same(allowChanged.slice(0, 10), [], `${order}: the same methods allowed at every contested path`)
  }
})

t.test('the API: the most specific route wins, left to right', async (t) => {
  const dispatch = compileDispatch([...API].reverse())
  const cases: [string, string, string][] = [
    ['GET', '/sites/created', '/sites/created'],
    ['GET', '/sites/multiscreen', '/sites/multiscreen'],
    ['GET', '/sites/multiscreen/created', '/sites/multiscreen/created'],
    ['GET', '/sites/multiscreen/byexternalid/activities', '/sites/multiscreen/byexternalid/:external_uid'],
    ['POST', '/accounts/reset-password/welcome', '/accounts/reset-password/:account_name'],
    ['POST', '/accounts/update/welcome', '/accounts/update/:account_name'],
    ['GET', '/sites/shop1', '/sites/:site_name'],
  ]
  for (const [method, path, route] of cases)
    t.equal(dispatch.match(method, path)?.endpoint.route.path, route, `${method} ${path}`)
})

/** Groups of routes of one method whose paths match exactly the same requests. */
function shadowed(routes: readonly { method: string; path: string }[]): string[][] {
  const byShape = new Map<string, string[]>()
  for (const { method, path } of routes) {
    const key = `${method} ${shapeOf(path)}`
    byShape.set(key, [...(byShape.get(key) ?? []), `${method} ${path}`])
  }
  return [...byShape.values()].filter((group) => group.length > 1)
}

t.test('no route is shadowed by another of the same method and shape', async (t) => {
  t.same(shadowed(API.map(({ route }) => route)), [], 'the API')
  t.same(shadowed(ADMIN_CALLS), [], 'the test-double controls')
  t.same(
    shadowed([
      { method: 'GET', path: '/sites/:site_name' },
      { method: 'GET', path: '/sites/:name' },
      { method: 'DELETE', path: '/sites/:site_name' },
    ]),
    [['GET /sites/:site_name', 'GET /sites/:name']],
    'the check finds two routes that differ only in a parameter name',
  )
})

/**
 * adminRouter built from a reordered ADMIN_CALLS, every call answering its own
 * operationId: the router itself, not a copy of its ranking, is what is tried.
 */
async function adminWith(t: Test, calls: readonly AdminCall[]) {
  const stubbed = calls.map(
    (call): AdminCall => ({ ...call, input: 'optional-body', success: 200, run: () => ({ op: call.operationId }) }),
  )
  const { adminRouter } = await t.mockImport<{ adminRouter: typeof AdminRouter }>('../../lib/testing/admin.js', {
    '../../lib/testing/admin-calls.js': { ADMIN_CALLS: stubbed },
  })
  const engine = createEngine()
  t.teardown(() => engine.close())
  const app = express()
  app.use('/__admin', adminRouter(engine))
  return app
}

t.test('the admin routes: each call is reached by its example path, whatever the table order', async (t) => {
  for (const [order, calls] of ordersOf(ADMIN_CALLS)) {
    const app = await adminWith(t, calls)
    const missed: string[] = []
    for (const call of ADMIN_CALLS) {
      const method = call.method.toLowerCase() as 'get' | 'put' | 'post' | 'delete'
      const res = await request(app)[method](`/__admin${exampleOf(call.path)}`)
      if (res.body?.op !== call.operationId)
        missed.push(`${call.method} ${call.path} gets ${res.status} ${JSON.stringify(res.body)}`)
    }
    t.same(missed, [], `${order}: every admin call reaches itself`)
  }
  const app = await adminWith(t, [...ADMIN_CALLS].reverse())
  t.equal(
    (await request(app).delete('/__admin/webhooks/deliveries')).body.op,
    ADMIN_CALLS.find((call) => call.method === 'DELETE' && call.path === '/webhooks/deliveries')?.operationId,
    'DELETE /webhooks/deliveries is not taken by DELETE /webhooks/:id',
  )
})
