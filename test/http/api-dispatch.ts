/**
 * The API's request pipeline as a client sees it: how bodies are framed
 * (none, Content-Length 0, chunked), direct JSON answers (no ETag, never
 * 304, compact whatever the host app's settings), Express's path rules
 * (trailing slash, HEAD), falling through to the host app, and the caller's
 * API object in-process keeping each caller's rights.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import request from 'supertest'
import { assertConforms, checkedRequest } from '../helpers/openapi-check.js'
import t from 'tap'
import { apiRouter, createEngine } from '../../lib/index.js'
import { PASSWORDS, createSite, isError, rejectsWith, setup, siteBody } from '../helpers/api.js'

interface RawAnswer {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

/** One request with exactly these headers and body framing (supertest adds its own). */
function raw(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  chunks: string[] = [],
): Promise<RawAnswer> {
  const url = new URL(base + path)
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (body += c))
        res.on('end', () => {
          const apiPath = url.pathname.startsWith('/api/') ? url.pathname.slice(4) : url.pathname
          try {
            assertConforms({
              method,
              path: apiPath + url.search,
              status: res.statusCode!,
              headers: res.headers,
              text: body,
            })
          } catch (error) {
            return reject(error)
          }
          resolve({ status: res.statusCode!, headers: res.headers, body })
        })
      },
    )
    req.on('error', reject)
    for (const chunk of chunks) req.write(chunk)
    req.end()
  })
}

const authOf = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
const ALICE = { authorization: authOf('alice', PASSWORDS.alice) }

t.test('body framing: no body, Content-Length 0, and chunked bodies', async (t) => {
  const f = await setup(t)
  await createSite(t, f.alice, 'framing')
  // No body at all on an endpoint that takes none.
  t.equal(
    (await raw(f.base, 'POST', '/sites/unpublish/framing', { ...ALICE })).status,
    204,
    'no Content-Length, no body',
  )
  t.equal(
    (await raw(f.base, 'POST', '/sites/unpublish/framing', { ...ALICE, 'content-length': '0' })).status,
    204,
    'Content-Length 0',
  )
  // Content-Length 0 on an endpoint that needs a body reads as the empty object: its schema names what is missing.
  const emptyCreate = await raw(f.base, 'POST', '/sites/create', { ...ALICE, 'content-length': '0' })
  t.equal(emptyCreate.status, 400)
  const viaEmptyObject = await f.alice.post('/sites/create', {})
  t.same(JSON.parse(emptyCreate.body), viaEmptyObject.body, 'Content-Length 0 answers like {}')
  // No body at all: the schema reports a missing body, as before.
  const noneCreate = await raw(f.base, 'POST', '/sites/create', { ...ALICE })
  t.equal(noneCreate.status, 400)
  t.equal(JSON.parse(noneCreate.body).error_code, 'InvalidInput')
  // A chunked body is read and parsed.
  const chunked = await raw(
    f.base,
    'POST',
    '/sites/create',
    { ...ALICE, 'transfer-encoding': 'chunked', 'content-type': 'application/json' },
    ['{"site_data":{"site_name":"chunked1",', '"original_site_url":"https://c.example.com"}}'],
  )
  t.equal(chunked.status, 200, 'chunked create')
  t.same(JSON.parse(chunked.body), { site_name: 'chunked1' })
  // A body sent to an endpoint that takes none is still read, and refused.
  const extra = await raw(
    f.base,
    'GET',
    '/sites/framing',
    { ...ALICE, 'content-type': 'application/json', 'content-length': '7' },
    ['{"a":1}'],
  )
  t.equal(extra.status, 400)
  t.match(JSON.parse(extra.body).message, /unknown field a/)
  // Content-Length 0 with a charset other than utf-8 is still refused (415: JSON bodies are utf-8 only).
  const charset = await raw(f.base, 'POST', '/sites/unpublish/framing', {
    ...ALICE,
    'content-length': '0',
    'content-type': 'application/json; charset=koi8-z',
  })
  t.equal(charset.status, 415, 'an unsupported charset on an empty body')
})

t.test('answers are direct JSON: exact headers, no ETag, never 304', async (t) => {
  const f = await setup(t)
  await createSite(t, f.alice, 'etagsite')
  const first = await raw(f.base, 'GET', '/sites/etagsite', { ...ALICE })
  t.equal(first.status, 200)
  t.equal(first.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(Number(first.headers['content-length']), Buffer.byteLength(first.body), 'Content-Length is the byte length')
  t.equal(first.headers.etag, undefined, 'no ETag')
  t.equal(JSON.parse(first.body).site_name, 'etagsite')
  for (const tag of ['*', 'W/"x"', `W/"${first.body.length.toString(16)}"`]) {
    const again = await raw(f.base, 'GET', '/sites/etagsite', { ...ALICE, 'if-none-match': tag })
    t.equal(again.status, 200, `If-None-Match ${tag} still gets the answer`)
    t.equal(again.body, first.body)
  }
  const error = await raw(f.base, 'GET', '/sites/nosuchsite', { ...ALICE })
  t.equal(error.headers.etag, undefined, 'no ETag on errors either')
  t.equal(Number(error.headers['content-length']), Buffer.byteLength(error.body))
  // Non-ASCII text: Content-Length counts bytes, not characters.
  t.equal(
    (
      await f.alice.post(
        '/sites/create',
        siteBody('unicode1', { site_business_info: { business_name: 'Café ünïcødé 東京' } }),
      )
    ).status,
    200,
  )
  const text = await raw(f.base, 'GET', '/sites/unicode1', { ...ALICE })
  t.equal(Number(text.headers['content-length']), Buffer.byteLength(text.body))
  t.equal(JSON.parse(text.body).site_business_info.business_name, 'Café ünïcødé 東京')
  const head = await raw(f.base, 'HEAD', '/sites/unicode1', { ...ALICE })
  t.equal(head.status, 200)
  t.equal(head.body, '', 'HEAD: no body')
  t.equal(head.headers['content-length'], text.headers['content-length'], "HEAD: the GET answer's length")
})

t.test("the host app's JSON settings do not change the API's wire format", async (t) => {
  const engine = createEngine()
  t.teardown(() => engine.close())
  await engine.addMasterAccount({ user: 'host', password: 'pw' })
  const app = express()
  app.set('json spaces', 4)
  app.set('json replacer', () => 'replaced')
  app.use('/api', apiRouter(engine))
  const created = await checkedRequest(app).post('/api/sites/create').auth('host', 'pw').send(siteBody('compact1'))
  t.equal(created.status, 200)
  t.equal(created.text, '{"site_name":"compact1"}')
  const missing = await checkedRequest(app).get('/api/sites/nothere').auth('host', 'pw')
  t.equal(missing.text.includes('\n'), false, 'errors are compact too')
  t.equal(JSON.parse(missing.text).error_code, 'ResourceNotExist')
})

t.test('paths: trailing slash, percent-encoded names, case, and falling through to the host app', async (t) => {
  const f = await setup(t)
  await createSite(t, f.alice, 'Path_site-1')
  t.equal((await f.alice.get('/sites/Path_site-1/')).body.site_name, 'Path_site-1', 'one trailing slash')
  isError(t, await f.alice.get('/sites/Path_site-1//'), 404, 'NotFound', 'two trailing slashes')
  t.equal((await f.alice.get('/sites/Path%5Fsite-1')).body.site_name, 'Path_site-1', 'percent-encoded parameter')
  t.same(
    (await f.alice.get('/sites/create%64')).status,
    400,
    'an encoded literal is a parameter, not the literal route',
  )
  isError(t, await f.alice.get('/Sites/Path_site-1'), 404, 'NotFound', 'paths are case-sensitive')
  isError(
    t,
    await f.anon.get('/sites/%ZZ'),
    400,
    'InvalidInput',
    'a bad escape is refused before authentication, as Express did',
  )

  const engine = createEngine()
  t.teardown(() => engine.close())
  await engine.addMasterAccount({ user: 'host', password: 'pw' })
  const app = express()
  app.use(apiRouter(engine, { notFound: false }))
  app.get('/home', (_req, res) => {
    res.send('host page')
  })
  t.equal((await request(app).get('/home')).text, 'host page', 'unknown paths reach the host app')
  t.equal((await checkedRequest(app, '').get('/agents').auth('host', 'pw')).status, 200, 'the API still answers')
  t.equal(
    (await checkedRequest(app, '').put('/agents').auth('host', 'pw')).status,
    405,
    'a known path with another method is still 405',
  )
  const extended = apiRouter(engine, { notFound: false })
  extended.use((_req, res) => {
    res.send('added to the router')
  })
  const withLayer = express().use('/api', extended)
  t.equal(
    (await request(withLayer).get('/api/elsewhere')).text,
    'added to the router',
    'a layer added to the returned router runs after the API',
  )
  t.equal(
    (await checkedRequest(withLayer).get('/api/agents').auth('host', 'pw')).status,
    200,
    'and the API still answers',
  )
  const server = app.listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const options = await raw(base, 'OPTIONS', '/sites/anything', {})
  t.equal(options.status, 204)
  t.same(String(options.headers.allow).split(', ').sort(), ['DELETE', 'GET', 'HEAD'])
})

t.test("in-process: each caller's API keeps its own rights, and reads the engine's live context", async (t) => {
  let now = Date.UTC(2025, 0, 2, 3, 4, 5)
  const engine = createEngine({ now: () => new Date(now) })
  t.teardown(() => engine.close())
  await engine.addMasterAccount({ user: 'pat', password: 'pw', partner: true })
  const asPlain = engine.as({ user: 'pat', partner: false })
  const asPartner = engine.as({ user: 'pat', partner: true })
  t.equal(engine.as({ user: 'pat', partner: false }), asPlain, 'one API object per caller')
  await rejectsWith(
    t,
    asPlain.createAccount({ account_name: 'sub1', email: 'a@b.example', first_name: 'A', last_name: 'B' }),
    'AccessForbidden',
  )
  await asPartner.createAccount({ account_name: 'sub1', email: 'a@b.example', first_name: 'A', last_name: 'B' })
  await rejectsWith(
    t,
    engine.as({ user: 'pat', partner: false }).getAccount('sub1'),
    'AccessForbidden',
    'the plain caller stays plain',
  )
  t.equal((await asPartner.getAccount('sub1')).account_name, 'sub1')
  await asPartner.createSite(siteBody('clocksite'))
  now += 86_400_000
  await asPartner.updateSite('clocksite', { site_domain: 'm.example.com' })
  t.equal(
    (await asPartner.sitesModified({ from: '2025-01-03' })).length,
    1,
    'the cached API reads the clock at each call',
  )
  // Many callers: the cache is bounded and an evicted caller still works.
  for (let i = 0; i < 1100; i++) engine.as({ user: `u${i}`, partner: false })
  t.equal((await engine.as({ user: 'pat', partner: true }).getSite('clocksite')).site_name, 'clocksite')
  await rejectsWith(
    t,
    engine.as('nobody').getSite('clocksite'),
    'Unauthorized',
    'a user name is looked up on each call',
  )
})
