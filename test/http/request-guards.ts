/**
 * Cross-site request forgery and content types, over a real server: the probe's
 * forms (a text/plain form smuggling JSON, an empty urlencoded POST that would
 * publish and charge, a multipart POST) are refused with 415; a state-changing
 * request a browser sends for another site is refused with 403 (Sec-Fetch-Site,
 * Origin, Origin: null), unless the origin is the API's own or is listed in
 * `allowedOrigins`; and the order is 401, then 403, then 415.
 */
import type supertest from 'supertest'
import { checkedRequest as request } from '../helpers/openapi-check.js'
import t, { type Test as Tap } from 'tap'
import { createEngine, startServer, type RunningServer } from '../../lib/index.js'

const USER = 'alice'
const PASSWORD = 'alice-secret'
const AUTH = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`
const SITE = { site_data: { site_name: 'probesite', original_site_url: 'https://www.example.com/' } }

async function serve(t: Tap, allowedOrigins?: string[]): Promise<RunningServer> {
  const engine = createEngine()
  await engine.addMasterAccount({ user: USER, password: PASSWORD, partner: true })
  const server = await startServer({ engine, router: allowedOrigins ? { allowedOrigins } : {} })
  t.teardown(async () => {
    await server.close()
    await engine.close()
  })
  return server
}

function isError(t: Tap, res: supertest.Response, status: number, error_code: string, label: string): void {
  t.equal(res.status, status, `${label}: status ${status}`)
  t.equal(res.body?.error_code, error_code, `${label}: ${error_code}`)
  t.match(res.headers['content-type'], /^application\/json/, `${label}: a JSON body`)
}

t.test("the probe's forms are 415 and change nothing", async (t) => {
  const server = await serve(t)
  const api = request(`${server.url}/api`)
  await server.engine
    .as(USER)
    .createSite({ site_data: { site_name: 'mysite', original_site_url: 'https://www.example.com/' } })

  const smuggled = await api
    .post('/sites/create')
    .set('authorization', AUTH)
    .set('content-type', 'text/plain')
    .send(JSON.stringify(SITE))
  isError(t, smuggled, 415, 'UnsupportedMediaType', 'a text/plain form carrying JSON')
  const created = await api.get('/sites/probesite').set('authorization', AUTH)
  t.equal(created.body.error_code, 'ResourceNotExist', 'no site was created')

  // What <form method=post enctype=application/x-www-form-urlencoded> with no fields sends.
  const empty = await api
    .post('/sites/publish/mysite')
    .set('authorization', AUTH)
    .set('content-type', 'application/x-www-form-urlencoded')
    .send('')
  isError(t, empty, 415, 'UnsupportedMediaType', 'an empty urlencoded POST to publish')
  t.strictSame((await server.engine.billing(USER)).charges, [], 'publish did not charge')
  t.notOk((await server.engine.as(USER).getSite('mysite')).last_published_date, 'and did not publish')

  const multipart = await api
    .post('/sites/update/mysite')
    .set('authorization', AUTH)
    .field('site_data', JSON.stringify({ site_vertical: 'x' }))
  isError(t, multipart, 415, 'UnsupportedMediaType', 'a multipart POST')
  t.notOk((await server.engine.as(USER).getSite('mysite')).site_vertical, 'the site was not updated')

  for (const path of [
    '/sites/unpublish/mysite',
    '/sites/resetcache/mysite',
    '/accounts/grant-access/acc/sites/mysite',
  ]) {
    const res = await api.post(path).set('authorization', AUTH).set('content-type', 'text/plain').send('')
    isError(t, res, 415, 'UnsupportedMediaType', `text/plain POST ${path}`)
  }
})

t.test('what a JSON body may be labelled', async (t) => {
  const server = await serve(t)
  const api = request(`${server.url}/api`)
  const accepted = [
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON;charset=UTF-8',
    'application/json; charset="utf-8"',
  ]
  for (const [i, type] of accepted.entries()) {
    const res = await api
      .post('/accounts/create')
      .set('authorization', AUTH)
      .set('content-type', type)
      .send(JSON.stringify({ account_name: `acc${i}` }))
    t.equal(res.status, 204, `${type}: accepted`)
  }
  const refused = [
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/json; foo=bar',
    'application/jsonx',
    'application/json-patch+json',
    'application/vnd.api+json',
    'text/json',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    '',
  ]
  for (const type of refused) {
    const res = await api
      .post('/accounts/create')
      .set('authorization', AUTH)
      .set('content-type', type)
      .send(JSON.stringify({ account_name: 'nope' }))
    isError(t, res, 415, 'UnsupportedMediaType', `Content-Type "${type}"`)
  }
  t.equal(
    (await api.get('/accounts/nope').set('authorization', AUTH)).body.error_code,
    'ResourceNotExist',
    'none of them created anything',
  )

  const publish = (headers: Record<string, string>, body?: string) => {
    const req = api.post('/sites/publish/mysite?test=true').set('authorization', AUTH).set(headers)
    return body === undefined ? req : req.send(body)
  }
  await server.engine
    .as(USER)
    .createSite({ site_data: { site_name: 'mysite', original_site_url: 'https://www.example.com/' } })
  t.equal((await publish({ 'content-length': '0' })).status, 204, 'Content-Length: 0 without a Content-Type is no body')
  t.equal((await publish({})).status, 204, 'no body, no Content-Type')
  isError(
    t,
    await publish({ 'content-type': 'text/plain', 'content-length': '0' }),
    415,
    'UnsupportedMediaType',
    'Content-Length: 0 with a text/plain Content-Type',
  )
  const noType = await request(`${server.url}/api`)
    .post('/sites/publish/mysite?test=true')
    .set('authorization', AUTH)
    .set('content-type', '')
    .send('{}')
  isError(t, noType, 415, 'UnsupportedMediaType', 'a body without a Content-Type')
  const getWithType = await api.get('/sites/mysite').set('authorization', AUTH).set('content-type', 'text/plain')
  isError(t, getWithType, 415, 'UnsupportedMediaType', 'a GET with a text/plain Content-Type')
})

t.test('the browser rule: state-changing requests from other sites are 403', async (t) => {
  const server = await serve(t, ['https://admin.example.com'])
  const api = request(`${server.url}/api`)
  await server.engine
    .as(USER)
    .createSite({ site_data: { site_name: 'mysite', original_site_url: 'https://www.example.com/' } })
  const own = server.url
  const post = (headers: Record<string, string>) =>
    api.post('/sites/resetcache/mysite').set('authorization', AUTH).set(headers)

  const refused: [string, Record<string, string>][] = [
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site', { 'sec-fetch-site': 'same-site' }],
    ['Sec-Fetch-Site: cross-site with our own Origin', { 'sec-fetch-site': 'cross-site', origin: own }],
    ['another Origin', { origin: 'https://evil.example' }],
    ['Origin: null', { origin: 'null' }],
    ['our host on another scheme', { origin: own.replace('http:', 'https:') }],
    ['our host on another port', { origin: `${own}1` }],
  ]
  for (const [label, headers] of refused) isError(t, await post(headers), 403, 'AccessForbidden', label)
  const allowed: [string, Record<string, string>][] = [
    ['no browser headers (an API client)', {}],
    ['Sec-Fetch-Site: same-origin with our own Origin', { 'sec-fetch-site': 'same-origin', origin: own }],
    ['Sec-Fetch-Site: none (typed by the user)', { 'sec-fetch-site': 'none' }],
    ['an allowed origin', { origin: 'https://admin.example.com', 'sec-fetch-site': 'cross-site' }],
    ['an allowed origin in other letter case', { origin: 'HTTPS://Admin.Example.com' }],
  ]
  for (const [label, headers] of allowed) t.equal((await post(headers)).status, 204, `${label}: allowed`)

  for (const [method, path] of [
    ['post', '/sites/create'],
    ['post', '/sites/publish/mysite'],
    ['post', '/sites/unpublish/mysite'],
    ['post', '/accounts/grant-access/acc/sites/mysite'],
    ['delete', '/sites/mysite'],
  ] as const) {
    const res = await api[method](path)
      .set('authorization', AUTH)
      .set({ 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' })
    isError(t, res, 403, 'AccessForbidden', `${method.toUpperCase()} ${path} from another site`)
  }
  t.strictSame((await server.engine.billing(USER)).charges, [], 'nothing was charged')
  t.ok(await server.engine.as(USER).getSite('mysite'), 'the site is still there')
  const read = await api
    .get('/sites/mysite')
    .set('authorization', AUTH)
    .set({ 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' })
  t.equal(
    read.status,
    200,
    'reads are not state-changing: a cross-site GET is answered (a page elsewhere cannot read it without CORS)',
  )
})

t.test('order: 401, then 403, then 415', async (t) => {
  const server = await serve(t)
  const api = request(`${server.url}/api`)
  const hostile = { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example', 'content-type': 'text/plain' }
  isError(t, await api.post('/sites/create').set(hostile).send('{}'), 401, 'Unauthorized', 'no credentials first')
  isError(
    t,
    await api.post('/sites/create').set(hostile).set('authorization', 'Basic d3Jvbmc6d3Jvbmc=').send('{}'),
    401,
    'Unauthorized',
    'wrong credentials first',
  )
  isError(
    t,
    await api.post('/sites/create').set(hostile).set('authorization', AUTH).send('{}'),
    403,
    'AccessForbidden',
    'then the browser rule',
  )
  const sameOrigin = { 'sec-fetch-site': 'same-origin', origin: server.url, 'content-type': 'text/plain' }
  isError(
    t,
    await api.post('/sites/create').set(sameOrigin).set('authorization', AUTH).send('{}'),
    415,
    'UnsupportedMediaType',
    'then the content type',
  )
})
