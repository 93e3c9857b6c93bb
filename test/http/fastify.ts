/**
 * The Fastify app docs/api.md shows ("Mounting", "Fastify") as written, its
 * `mobisite` import pointed at the sources and its listen options at a free
 * loopback port: it type-checks, and over HTTP the basic API calls, their
 * documented errors, a dashboard sign-in and the mobile redirect behave as
 * under Express. Every answer under /api is checked against the OpenAPI
 * document. Then the claim of its note on bodies: with `expressHook:
 * 'preHandler'` Fastify answers a malformed body itself.
 */
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import fastifyExpress from '@fastify/express'
import Fastify, { type FastifyInstance } from 'fastify'
import t from 'tap'
import { apiRouter, type Engine } from '../../lib/index.js'
import { FASTIFY_HEADING } from '../../scripts/reference-mounting.js'
import { exampleFolder, fencedBlock, typeErrors, withLocalSources } from '../helpers/doc-examples.js'
import { checkedFetch } from '../helpers/openapi-check.js'
import { basic } from '../helpers/testing.js'

const documented = fencedBlock('docs/api.md', FASTIFY_HEADING)
const LISTEN = /app\.listen\(\{[^}]*\}\)/g
const PASSWORD = 'acme-fastify-pw'
const PHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1'
const DESKTOP =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36'

t.equal(documented.match(LISTEN)?.length, 1, 'the example listens once')
const dir = exampleFolder(t, {
  'app.ts': `${withLocalSources(documented).replace(LISTEN, "app.listen({ port: 0, host: '127.0.0.1' })")}export { app, engine }\n`,
})
// The example reads its master's password from the environment, as a deployed app would.
process.env.API_PASSWORD = PASSWORD
const { app, engine } = (await import(join(dir, 'app.ts'))) as { app: FastifyInstance; engine: Engine }
t.teardown(async () => {
  await app.close()
  await engine.close()
})
const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
const acme = basic('acme', PASSWORD)

/** An API call as acme, checked against the OpenAPI document: status and parsed body (undefined when empty). */
async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const text = body === undefined || typeof body === 'string' ? body : JSON.stringify(body)
  const res = await checkedFetch(`${base}/api${path}`, {
    method,
    headers: {
      authorization: acme,
      ...(text === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(text === undefined ? {} : { body: text }),
  })
  const answer = await res.text()
  return { status: res.status, headers: res.headers, body: answer === '' ? undefined : JSON.parse(answer) }
}

t.test('the example type-checks (tsc --strict)', async (t) => {
  t.equal(await typeErrors(dir, 'app.ts'), '')
})

t.test('the basic API calls through Fastify', async (t) => {
  const site = { site_data: { site_name: 'fastify1', original_site_url: 'https://www.fastify.example/' } }
  t.match(await call('POST', '/sites/create', site), { status: 200, body: { site_name: 'fastify1' } })
  t.match(await call('GET', '/sites/fastify1'), {
    status: 200,
    body: { site_name: 'fastify1', original_site_url: 'https://www.fastify.example/' },
  })
  t.match(await call('POST', '/sites/update/fastify1', { site_domain: 'm.fastify.example' }), { status: 204 })
  t.match(await call('POST', '/sites/publish/fastify1'), { status: 204 })
  t.match(await call('GET', '/sites/fastify1'), { body: { site_domain: 'm.fastify.example' } })
  t.ok((await call('GET', '/sites/fastify1')).body.last_published_date, 'published')
  t.match(await call('GET', '/sites/created'), { status: 200, body: [{ site_name: 'fastify1' }] })
  t.match(await call('DELETE', '/sites/fastify1'), { status: 204 })
  t.match(await call('GET', '/sites/fastify1'), { status: 400, body: { error_code: 'ResourceNotExist' } })
})

t.test('errors: the documented statuses and JSON bodies, from the router rather than Fastify', async (t) => {
  t.match(await call('GET', '/no/such/path'), { status: 404, body: { error_code: 'NotFound' } })
  t.match(await call('PUT', '/sites/any1'), { status: 405, body: { error_code: 'MethodNotAllowed' } })
  t.match(await call('POST', '/sites/create', '{"site_data":'), { status: 400, body: { error_code: 'InvalidInput' } })
  t.match(await call('POST', '/sites/create', { site_data: {}, colour: 'red' }), {
    status: 400,
    body: { error_code: 'InvalidInput', message: /colour/ },
  })
  t.match(await call('POST', '/sites/create', 'x', { 'content-type': 'text/plain' }), {
    status: 415,
    body: { error_code: 'UnsupportedMediaType' },
  })
  const huge = { site_data: { original_site_url: `https://a.example/${'x'.repeat(1_100_000)}` } }
  t.match(await call('POST', '/sites/create', huge), { status: 413, body: { error_code: 'InvalidInput' } })
  const anonymous = await checkedFetch(`${base}/api/sites/any1`)
  t.equal(anonymous.status, 401)
  t.match(anonymous.headers.get('www-authenticate'), /^Basic/)
  t.match(await anonymous.json(), { error_code: 'Unauthorized' })
})

t.test('the dashboard: an SSO link from the API signs a sub-account in', async (t) => {
  await call('POST', '/sites/create', { site_data: { site_name: 'dash1', original_site_url: 'https://dash.example/' } })
  t.match(await call('POST', '/accounts/create', { account_name: 'sub-fastify' }), { status: 204 })
  t.match(await call('POST', '/accounts/grant-access/sub-fastify/sites/dash1'), { status: 204 })
  const { body: link } = await call('GET', '/accounts/sso/sub-fastify/link')
  t.match(link.url, `${base}/dashboard/sso?token=`)
  const landing = await fetch(link.url, { redirect: 'manual' })
  t.equal(landing.status, 303)
  t.equal(landing.headers.get('location'), '/dashboard/')
  const cookie = landing.headers.get('set-cookie')!.split(';')[0]!
  const page = await fetch(`${base}/dashboard/`, { headers: { cookie } })
  t.equal(page.status, 200)
  t.match(page.headers.get('content-type'), /^text\/html/)
  t.match(await page.text(), /dash1/, 'the granted site is listed')
})

t.test('the redirect: phones go to the mobile site, desktops get the Fastify page', async (t) => {
  const navigation = (agent: string) => ({ headers: { 'user-agent': agent, accept: 'text/html' } })
  const phone = await fetch(`${base}/?from=ad`, { ...navigation(PHONE), redirect: 'manual' })
  t.equal(phone.status, 302)
  t.equal(phone.headers.get('location'), 'https://m.example.com/?from=ad')
  const desktop = await fetch(`${base}/`, navigation(DESKTOP))
  t.equal(desktop.status, 200)
  t.equal(await desktop.text(), '<h1>The desktop site</h1>')
  t.match(desktop.headers.get('vary'), /User-Agent/)
  const dashboard = await fetch(`${base}/dashboard/signed-out`, { ...navigation(PHONE), redirect: 'manual' })
  t.equal(dashboard.status, 200, 'a phone opening the dashboard stays there')
})

t.test("with expressHook: 'preHandler' Fastify parses the body first and answers a bad one itself", async (t) => {
  const late = Fastify()
  await late.register(fastifyExpress, { expressHook: 'preHandler' })
  late.use('/api', apiRouter(engine))
  await late.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => late.close())
  const res = await fetch(`http://127.0.0.1:${(late.server.address() as AddressInfo).port}/api/sites/create`, {
    method: 'POST',
    headers: { authorization: acme, 'content-type': 'application/json' },
    body: '{"site_data":',
  })
  t.equal(res.status, 400)
  const body = (await res.json()) as Record<string, unknown>
  t.equal(body.code, 'FST_ERR_CTP_INVALID_JSON_BODY')
  t.notOk('error_code' in body, "not the API's error body")
})
