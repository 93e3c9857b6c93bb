/**
 * Property-based fuzzing of the HTTP API (docs/api.md, docs/errors.md): for any
 * method, path, query, body, content type, encoding and Authorization header
 * the API answers one of its documented statuses with a well-formed body,
 * never a 500, a stack trace or a crash, and what it stored stays consistent.
 * Requests go over HTTP with supertest against the black-box fixture, which
 * collects in `errors` whatever the router reported as unexpected.
 */
import type { Server } from 'node:http'
import express from 'express'
import fc from 'fast-check'
import request from 'supertest'
import t, { type Test } from 'tap'
import { checkProperty, replayable } from '../helpers/fuzz-seed.js'
import { ROUTES } from '../../lib/http/routes.js'
import { apiRouter } from '../../lib/index.js'
import { type Client, createSite, type Fixture, isMissing, setup } from '../helpers/api.js'
import { problemsAgainstDocument } from '../helpers/openapi-check.js'
import {
  TEMPLATES,
  describeRequest,
  encodeBody,
  fuzzRequest,
  type FuzzRequest,
  type Profile,
} from '../helpers/fuzz-requests.js'

replayable(t, import.meta.url)

/** Runs per property (a run is 1-3 requests of about 2 ms each here); bounded so the file stays far below 30 s on a loaded 2-core machine. */
const RUNS = { routes: 400, hostile: 200, dates: 150 }

/** error_code(s) each status may carry (docs/errors.md). */
const CODES: ReadonlyMap<number, readonly string[]> = new Map([
  [400, ['InvalidInput', 'ResourceNotExist', 'ResourceAlreadyExist']],
  [401, ['Unauthorized']],
  [403, ['AccessForbidden']],
  [404, ['NotFound']],
  [405, ['MethodNotAllowed']],
  [413, ['InvalidInput']],
  [415, ['UnsupportedMediaType']],
  [429, ['DailyLimitExceeded']],
])
const SUCCESS = new Set([200, 204])

/** The response as it came off the wire: superagent's own parsers would hide a malformed body. */
interface Raw {
  status: number
  headers: Record<string, string | undefined>
  text: string
}

async function send(server: Server, req: FuzzRequest): Promise<Raw> {
  const http = request(server) as unknown as Record<string, (url: string) => request.Test>
  let test = http[req.method.toLowerCase()]!(`/api${req.path}${req.query}`)
  if (req.auth !== undefined) test = test.set('authorization', req.auth)
  if (Object.keys(req.browser).length > 0) test = test.set(req.browser)
  if (req.body.kind === 'text') {
    const { data, headers } = encodeBody(req.body)
    // The bytes as they are: superagent would JSON-encode a Buffer sent with a JSON content type.
    test = test
      .set(headers)
      .serialize((raw) => raw)
      .send(data)
  }
  // A hang is a failure too; the bound is far above any real answer.
  const res = await test
    .timeout(20_000)
    .buffer(true)
    .parse((stream, done) => {
      let text = ''
      stream.setEncoding('utf8')
      stream.on('data', (chunk: string) => (text += chunk))
      stream.on('end', () => done(null, text))
    })
  return {
    status: res.status,
    headers: res.headers as Raw['headers'],
    text: typeof res.body === 'string' ? res.body : '',
  }
}

/** Where `null` occurs in a JSON value, or undefined. */
function nullAt(value: unknown, path = 'body'): string | undefined {
  if (value === null) return path
  if (typeof value !== 'object') return undefined
  for (const [key, inner] of Object.entries(value)) {
    const found = nullAt(inner, `${path}.${key}`)
    if (found) return found
  }
  return undefined
}

/** Every property of a single response; returns what is wrong (empty when nothing is). */
function problemsOf(req: FuzzRequest, res: Raw): string[] {
  const { status, headers, text } = res
  // The OpenAPI document's own account of this answer, then the properties it cannot express.
  const problems = problemsAgainstDocument({ method: req.method, path: req.path + req.query, status, headers, text })
  if (!SUCCESS.has(status) && !CODES.has(status)) problems.push(`status ${status} is not a documented one`)
  if (text.includes('    at ') || /\.ts:\d+/.test(text)) problems.push('the body holds a stack trace')
  if (status === 204 && text !== '') problems.push('a 204 with a body')
  if (status === 401 && headers['www-authenticate'] !== 'Basic realm="mobisite"')
    problems.push('401 without WWW-Authenticate')
  if (status === 405) {
    const allow = (headers.allow ?? '').split(/,\s*/).filter(Boolean)
    if (allow.length === 0 || allow.includes(req.method)) problems.push(`405 with Allow "${headers.allow ?? ''}"`)
  }
  if (status === 429 && !/^[1-9]\d*$/.test(headers['retry-after'] ?? '')) problems.push('429 without Retry-After')
  // HEAD answers carry headers only.
  if (req.method === 'HEAD' || status === 204) return problems
  if (!/^application\/json/.test(headers['content-type'] ?? ''))
    problems.push(`content-type ${headers['content-type']}`)
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return [...problems, 'the body is not JSON']
  }
  if (SUCCESS.has(status)) {
    const at = nullAt(body)
    if (at) problems.push(`null at ${at}`)
    return problems
  }
  const error = body as Record<string, unknown>
  const keys =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? Object.keys(error).sort().join(',')
      : String(body)
  if (keys !== 'error_code,message') problems.push(`error body keys ${keys}`)
  if (typeof error.message !== 'string' || error.message === '')
    problems.push('error message is not a non-empty string')
  if (!CODES.get(status)?.includes(String(error.error_code)))
    problems.push(`error_code ${String(error.error_code)} with status ${status}`)
  return problems
}

/** Sites, accounts, grants, a publication, visits and a spent daily limit, so generated requests find real resources and states. */
async function seed(t: Test, f: Fixture): Promise<void> {
  await createSite(t, f.alice, 'fuzzsite', { external_uid: 'ext-1' })
  await createSite(t, f.alice, 'fuzz_two', { external_uid: 'ext-2' }, { create_now: 'false' })
  await createSite(t, f.alice, 'fuzz-async', {}, { create_now: 'async', publish_now: true })
  await createSite(t, f.bob, 'bobsite', { external_uid: 'ext-1' })
  for (const account_name of ['ann', 'ann.b+c@x.io'])
    await f.alice.api.createAccount({ account_name, first_name: 'Ann', email: 'ann@example.com' })
  await f.alice.api.grantAccess('ann', 'fuzzsite')
  await f.alice.api.publishSite('fuzzsite')
  for (const visitor_id of ['v1', 'v2'])
    await f.engine.recordVisit({ site_name: 'fuzzsite', visitor_id, user_agent: 'Mozilla/5.0 (iPhone)', country: 'JP' })
  // Today's Most Traffic calls of alice and bob are used up: 429s until the clock passes midnight.
  for (let i = 0; i < 300; i++)
    await Promise.all([f.alice.api.sitesWithMostTraffic({}), f.bob.api.sitesWithMostTraffic({})])
}

/** The same engine behind a router in an app that parses queries with qs (`from[x]=` becomes an object). */
async function extendedServer(t: Test, f: Fixture): Promise<Server> {
  const app = express().set('query parser', 'extended')
  app.use('/api', apiRouter(f.engine, { onError: (error) => f.errors.push(error) }))
  const server = app.listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return server
}

/**
 * Runs the fuzz: each run sends one to three requests at once (so hostile
 * input also meets interleavings), checks every response and that nothing
 * reached onError. Returns how often each template and status came up.
 */
async function fuzz(
  t: Test,
  f: Fixture,
  templates: readonly string[],
  profile: Profile,
  numRuns: number,
): Promise<{ templates: Map<string, number>; statuses: Map<number, number> }> {
  const extended = await extendedServer(t, f)
  const seen = { templates: new Map<string, number>(), statuses: new Map<number, number>() }
  const batch = fc.array(fc.tuple(fuzzRequest(templates, profile), fc.boolean()), { minLength: 1, maxLength: 3 })
  await checkProperty(
    import.meta.url,
    fc.asyncProperty(batch, async (requests) => {
      // Only this run's reports count, so shrinking replays point at the request that caused one.
      const reported = f.errors.length
      f.builder.outcome = requests[0]![0].build
      f.clock.advance(requests[0]![0].advance)
      const answers = await Promise.all(requests.map(([req, qs]) => send(qs ? extended : f.server, req)))
      const problems: string[] = []
      requests.forEach(([req, qs], i) => {
        const res = answers[i]!
        seen.templates.set(req.template, (seen.templates.get(req.template) ?? 0) + 1)
        seen.statuses.set(res.status, (seen.statuses.get(res.status) ?? 0) + 1)
        const wrong = problemsOf(req, res)
        if (wrong.length > 0) {
          problems.push(
            `${wrong.join('; ')}\n  request: ${describeRequest(req)}${qs ? ' (qs query parser)' : ''}\n  response: ${res.status} ${res.text.slice(0, 300)}`,
          )
        }
      })
      for (const error of f.errors.slice(reported))
        problems.push(`onError was called: ${String((error as Error)?.stack ?? error)}`)
      if (problems.length > 0) throw new Error(problems.join('\n'))
    }),
    { numRuns },
  )
  f.builder.outcome = 'succeed'
  t.same(f.errors, [], 'nothing unexpected reached onError')
  t.comment(
    `statuses: ${[...seen.statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(' ')}`,
  )
  return seen
}

/** Every listed site can be read, by its owner only, by name, by external_uid and in get-many; subscriptions name live sites. */
async function consistent(t: Test, f: Fixture): Promise<void> {
  const clients: Client[] = [f.alice, f.bob, f.carol]
  for (const client of clients) {
    const created = await client.get('/sites/created?from=2000-01-01')
    const modified = await client.get('/sites/modified?from=2000-01-01')
    t.equal(created.status, 200, `${client.user}: created listing`)
    const names = (created.body as { site_name: string }[]).map((s) => s.site_name)
    t.same(
      [...names].sort(),
      (modified.body as { site_name: string }[]).map((s) => s.site_name).sort(),
      `${client.user}: created and modified list the same sites`,
    )
    t.equal(new Set(names).size, names.length, `${client.user}: no site listed twice`)
    const other = clients.find((c) => c !== client)!
    for (const name of names) {
      const site = await client.get(`/sites/${encodeURIComponent(name)}`)
      t.equal(site.status, 200, `${client.user}: ${name} can be retrieved`)
      t.equal(site.body.site_name, name, `${client.user}: ${name} is itself`)
      if (typeof site.body.external_uid === 'string') {
        const byUid = await client.get(`/sites/byexternal/${encodeURIComponent(site.body.external_uid)}`)
        t.equal(byUid.status, 200, `${client.user}: ${name} by external_uid`)
        t.equal(
          byUid.body.external_uid,
          site.body.external_uid,
          `${client.user}: ${name} by external_uid is a site with that uid`,
        )
      }
      isMissing(
        t,
        await other.get(`/sites/${encodeURIComponent(name)}`),
        `${other.user} cannot see ${client.user}'s ${name}`,
      )
    }
    for (let i = 0; i < names.length; i += 50) {
      const chunk = names.slice(i, i + 50)
      const many = await client.post(
        '/sites/get-many',
        chunk.map((site_name) => ({ site_name })),
      )
      t.same(
        (many.body as { site_name: string }[]).map((s) => s.site_name),
        chunk,
        `${client.user}: get-many returns the listed sites in order`,
      )
    }
    const active = (await f.engine.billing(client.user)).subscriptions
      .filter((s) => s.status === 'active')
      .map((s) => s.site_name)
    t.ok(
      active.every((name) => names.includes(name)),
      `${client.user}: every active subscription is of a live site`,
    )
    t.equal(new Set(active).size, active.length, `${client.user}: at most one active subscription per site`)
  }
  t.same(f.errors, [], 'the checks reported nothing unexpected either')
}

/** The probe's forgeries created nothing, and no two stored names differ only in letter case. */
async function probeLeftNoTrace(t: Test, f: Fixture): Promise<void> {
  for (const client of [f.alice, f.bob]) {
    isMissing(t, await client.get('/sites/probeform'), `${client.user}: the text/plain form created no site`)
  }
  const names: string[] = []
  for (const client of [f.alice, f.bob, f.carol]) {
    const listed = (await client.get('/sites/created?from=2000-01-01')).body as { site_name: string }[]
    names.push(...listed.map((s) => s.site_name))
  }
  t.equal(new Set(names.map((n) => n.toLowerCase())).size, names.length, 'no two site names differ only in letter case')
  t.ok(
    names.every((n) => !/[\u0000-\u001f]/.test(n)),
    'no site name holds a control character',
  )
}

t.test('authenticated-mostly requests to every route: documented statuses and bodies, consistent state', async (t) => {
  const f = await setup(t)
  await seed(t, f)
  const seen = await fuzz(t, f, [...ROUTES.map((r) => r.path), '/agents'], 'routes', RUNS.routes)
  for (const route of ROUTES) t.ok(seen.templates.has(route.path), `${route.method} ${route.path} was exercised`)
  t.ok((seen.statuses.get(200) ?? 0) + (seen.statuses.get(204) ?? 0) > 0, 'some requests got through to a success')
  await consistent(t, f)
})

t.test('hostile requests anywhere: unknown paths, any method, auth, content types and encodings', async (t) => {
  const f = await setup(t)
  await seed(t, f)
  const seen = await fuzz(t, f, TEMPLATES, 'hostile', RUNS.hostile)
  t.ok(seen.templates.size > ROUTES.length / 2, 'many paths were tried')
  await consistent(t, f)
  await probeLeftNoTrace(t, f)
})

/** Epoch ms of an input date as the API reads it (a bare day is its UTC midnight). */
const epochOf = (date: string): number => Date.parse(date.length === 10 ? `${date}T00:00:00Z` : `${date}Z`)

t.test('listings accept every real date from year 1 to 9999; from after to is InvalidInput', async (t) => {
  const f = await setup(t)
  const real = fc.oneof(
    fc
      .tuple(
        fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
        fc.boolean(),
      )
      .map(([date, withTime]) => date.toISOString().slice(0, withTime ? 19 : 10)),
    fc.constantFrom(
      '0001-01-01',
      '0099-12-31T23:59:59',
      '0100-01-01',
      '1899-12-31',
      '1969-12-31T23:59:59',
      '1970-01-01',
      '2024-02-29',
      '9999-12-31T23:59:59',
    ),
  )
  await checkProperty(
    import.meta.url,
    fc.asyncProperty(real, real, fc.constantFrom('created', 'modified'), async (from, to, listing) => {
      const res = await f.alice.get(`/sites/${listing}?from=${from}&to=${to}`)
      const expected = epochOf(from) <= epochOf(to) ? 200 : 400
      if (res.status !== expected)
        throw new Error(`from=${from} to=${to}: ${res.status} ${res.text}, expected ${expected}`)
      if (expected === 400 && res.body.error_code !== 'InvalidInput') throw new Error(`from after to: ${res.text}`)
    }),
    { numRuns: RUNS.dates },
  )
  t.same(f.errors, [], 'nothing unexpected reached onError')
})
