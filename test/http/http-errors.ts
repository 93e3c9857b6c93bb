/**
 * The HTTP layer: authentication (401 + WWW-Authenticate),
 * 404 NotFound, 405 MethodNotAllowed + Allow, malformed JSON, the 1 MiB body
 * limit, endpoints that take no body or query, GET /agents, HEAD, and JSON
 * error bodies without stack traces for unexpected failures.
 */
import express from 'express'
import type request from 'supertest'
import { checkedRequest } from '../helpers/openapi-check.js'
import t from 'tap'
import { MemoryStore, StoreUnavailableError, apiRouter, createEngine } from '../../lib/index.js'
import { createSite, isEmpty, isError, isInvalid, isMissing, PASSWORDS, setup } from '../helpers/api.js'

const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`

t.test('401 Unauthorized with WWW-Authenticate for missing, wrong and malformed credentials', async (t) => {
  const f = await setup(t)
  const headers: [string, string | undefined][] = [
    ['no header', undefined],
    ['wrong password', basic('alice:wrong')],
    ['unknown user', basic('mallory:alice-secret')],
    ['user in other case', basic(`Alice:${PASSWORDS.alice}`)],
    ['password cut at a colon', basic('bob:b')],
    ['password without its colons', basic('bob:bobsecret')],
    ['no colon', basic('alice')],
    ['empty credentials', basic(':')],
    ['empty Basic', 'Basic '],
    ['not base64', 'Basic !!!notbase64!!!'],
    ['Bearer scheme', `Bearer ${PASSWORDS.alice}`],
    ['raw user:password', `alice:${PASSWORDS.alice}`],
    ['password with trailing newline', basic(`alice:${PASSWORDS.alice}\n`)],
  ]
  for (const [label, header] of headers) {
    for (const path of ['/sites/created', '/agents', '/accounts/anyone']) {
      const req = f.anon.get(path)
      const res = await (header === undefined ? req : req.set('authorization', header))
      isError(t, res, 401, 'Unauthorized', `${label} ${path}`)
      t.equal(res.headers['www-authenticate'], 'Basic realm="mobisite"', `${label} ${path}: challenge`)
    }
  }
  isError(
    t,
    await f.anon.post('/sites/create', { site_data: { original_site_url: 'https://a.example.com' } }),
    401,
    'Unauthorized',
    'create',
  )
  t.same((await f.alice.get('/sites/created')).body, [], 'no site was created')
})

t.test('valid credentials: passwords may hold colons, the scheme is case-insensitive', async (t) => {
  const f = await setup(t)
  t.equal((await f.bob.get('/sites/created')).status, 200, 'bob, whose password holds colons')
  t.equal(
    (
      await f.anon
        .get('/sites/created')
        .set('authorization', `basic ${Buffer.from(`alice:${PASSWORDS.alice}`).toString('base64')}`)
    ).status,
    200,
    'lower-case scheme',
  )
  await f.engine.addMasterAccount({ user: 'dora', password: ':::' })
  t.equal((await f.as('dora', ':::').get('/sites/created')).status, 200, 'a password of colons only')
  await f.engine.addMasterAccount({ user: 'dora', password: 'rotated' })
  isError(t, await f.as('dora', ':::').get('/sites/created'), 401, 'Unauthorized', 'replaced password')
  t.equal((await f.as('dora', 'rotated').get('/sites/created')).status, 200, 'new password')
})

t.test('404 NotFound for unknown paths, JSON', async (t) => {
  const f = await setup(t)
  for (const path of [
    '/nope',
    '/sites',
    '/sites/a/b/c',
    '/Sites/created',
    '/accounts/grant-access/a/sites',
    '/analytics',
    '/agents/extra',
  ]) {
    isError(t, await f.alice.get(path), 404, 'NotFound', path)
  }
  isError(t, await f.alice.post('/sites/create/extra', {}), 404, 'NotFound', 'POST deeper path')
})

t.test('405 MethodNotAllowed with Allow for known paths', async (t) => {
  const f = await setup(t)
  const http = checkedRequest(f.server)
  const auth = `alice:${PASSWORDS.alice}`.split(':') as [string, string]
  const cases: [string, string, string[]][] = [
    ['put', '/sites/create', ['POST']],
    ['patch', '/sites/somesite', ['GET', 'DELETE', 'HEAD']],
    ['post', '/agents', ['GET', 'HEAD']],
    // DELETE /accounts/{name} is today's Duda Delete Account (docs/duda-api.md).
    ['patch', '/accounts/someone', ['GET', 'DELETE', 'HEAD']],
    ['get', '/account/someone', ['DELETE']],
    ['get', '/accounts/grant-access/ann/sites/siteone', ['POST']],
    ['get', '/sites/publish/siteone', ['POST']],
    ['put', '/sites/get-many', ['POST', 'GET', 'DELETE', 'HEAD']],
  ]
  for (const [method, path, allowed] of cases) {
    const res = await (http as unknown as Record<string, (p: string) => request.Test>)[method]!(`/api${path}`).auth(
      ...auth,
    )
    isError(t, res, 405, 'MethodNotAllowed', `${method.toUpperCase()} ${path}`)
    const allow = String(res.headers.allow ?? '')
      .split(/,\s*/)
      .sort()
    for (const m of allowed) t.ok(allow.includes(m), `${method.toUpperCase()} ${path}: Allow has ${m}`)
    t.notOk(
      allow.includes(method.toUpperCase()),
      `${method.toUpperCase()} ${path}: Allow omits ${method.toUpperCase()}`,
    )
  }
})

t.test('malformed JSON is 400 InvalidInput; nothing is created', async (t) => {
  const f = await setup(t)
  for (const body of ['{"site_data":', '{site_data: {}}', "{'a':1}", '[1,]', 'null', '"a string"', '42', 'a=b&c=d']) {
    const res = await f.alice.post('/sites/create').set('content-type', 'application/json').send(body)
    isInvalid(t, res, `body ${body}`)
  }
  const form = await f.alice.post('/accounts/create').type('form').send({ account_name: 'formuser' })
  isError(t, form, 415, 'UnsupportedMediaType', 'a form body is not JSON')
  const plain = await f.alice
    .post('/accounts/create')
    .set('content-type', 'text/plain')
    .send('{"account_name":"plainuser"}')
  isError(t, plain, 415, 'UnsupportedMediaType', 'JSON under another content-type is refused')
  isMissing(t, await f.alice.get('/accounts/plainuser'), 'and nothing was created')
  t.same((await f.alice.get('/sites/created')).body, [])
})

t.test(
  'an unreadable body (bad compression, unknown encoding or charset) is 400 InvalidInput, not logged',
  async (t) => {
    const f = await setup(t)
    const json = '{"account_name":"zipped"}'
    const cases: [string, Record<string, string>, string | Buffer][] = [
      ['gzip header on plain bytes', { 'content-encoding': 'gzip' }, json],
      ['deflate header on plain bytes', { 'content-encoding': 'deflate' }, json],
      ['an unknown content-encoding', { 'content-encoding': 'snappy' }, json],
    ]
    for (const [label, headers, body] of cases) {
      const res = await f.alice
        .post('/accounts/create')
        .set({ 'content-type': 'application/json', ...headers })
        .send(body)
      isInvalid(t, res, label)
      t.match(res.body.message, /request body/, `${label}: the message says what is wrong`)
    }
    t.same(f.errors, [], 'none of them reached onError')
    isMissing(t, await f.alice.get('/accounts/zipped'), 'nothing was created')
  },
)

t.test('a body over 1 MiB is 413 InvalidInput; exactly 1 MiB is read', async (t) => {
  const f = await setup(t)
  const frame = (n: number) => {
    const head = '{"site_data":{"original_site_url":"https://a.example.com","site_vertical":"'
    const tail = '"}}'
    return head + 'v'.repeat(n - head.length - tail.length) + tail
  }
  const mib = 1024 * 1024
  const exact = await f.alice.post('/sites/create').set('content-type', 'application/json').send(frame(mib))
  t.match(isInvalid(t, exact, 'exactly 1 MiB: read, then validated'), /site_vertical/)
  isError(
    t,
    await f.alice
      .post('/sites/create')
      .set('content-type', 'application/json')
      .send(frame(mib + 1)),
    413,
    'InvalidInput',
    '1 MiB + 1',
  )
  isError(
    t,
    await f.alice
      .post('/sites/get-many')
      .set('content-type', 'application/json')
      .send(`[${'{"site_name":"abcd"},'.repeat(60000)}{}]`),
    413,
    'InvalidInput',
    'a large array',
  )
})

t.test('endpoints without a body or query reject one, naming it', async (t) => {
  const f = await setup(t)
  await createSite(t, f.alice, 'quiet')
  await f.alice.api.createAccount({ account_name: 'ann' })
  const withBody: [string, () => request.Test][] = [
    ['publish', () => f.alice.post('/sites/publish/quiet', { now: true })],
    ['unpublish', () => f.alice.post('/sites/unpublish/quiet', { now: true })],
    ['resetcache', () => f.alice.post('/sites/resetcache/quiet', { now: true })],
    ['delete site', () => f.alice.del('/sites/quiet').send({ now: true })],
    ['retrieve site', () => f.alice.get('/sites/quiet').send({ now: true })],
    ['delete account', () => f.alice.del('/account/ann').send({ now: true })],
    ['agents', () => f.alice.get('/agents').send({ now: true })],
    ['listing', () => f.alice.get('/sites/created').send({ now: true })],
    ['publish with an array', () => f.alice.post('/sites/publish/quiet', [])],
  ]
  for (const [label, call] of withBody) {
    const message = isInvalid(t, await call(), `${label} with a body`)
    if (!label.endsWith('array')) t.match(message, /now/, `${label}: names the field`)
  }
  const withQuery: [string, () => request.Test][] = [
    ['unpublish', () => f.alice.post('/sites/unpublish/quiet?now=1')],
    ['retrieve', () => f.alice.get('/sites/quiet?fields=all')],
    [
      'create',
      () => f.alice.post('/sites/create?dry=1', { site_data: { original_site_url: 'https://q.example.com' } }),
    ],
    ['agents', () => f.alice.get('/agents?format=text')],
    ['delete account', () => f.alice.del('/account/ann?force=1')],
  ]
  for (const [label, call] of withQuery) isInvalid(t, await call(), `${label} with a query`)
  t.notOk('last_published_date' in (await f.alice.get('/sites/quiet')).body, 'nothing was published')
  t.equal((await f.alice.get('/accounts/ann')).status, 200, 'the account is still there')
  isEmpty(t, await f.alice.post('/sites/publish/quiet', {}), 'an empty object is no body')
})

t.test('GET /agents: 200 with a JSON string that is a regular expression', async (t) => {
  const f = await setup(t)
  const res = await f.carol.get('/agents')
  t.equal(res.status, 200)
  t.match(res.headers['content-type'], /^application\/json/)
  t.type(res.body, 'string')
  t.equal(res.body, f.engine.getAgents())
  const re = new RegExp(res.body, 'i')
  t.ok(
    re.test('Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148'),
    'matches an iPhone',
  )
  t.notOk(
    re.test('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36'),
    'not a desktop',
  )
  f.engine.setAgents('.*Nokia.*')
  t.equal((await f.carol.get('/agents')).body, '.*Nokia.*', 'serves the current source')
})

t.test('HEAD answers like GET without a body', async (t) => {
  const f = await setup(t)
  await createSite(t, f.alice, 'headsite')
  const http = checkedRequest(f.server)
  const site = await http.head('/api/sites/headsite').auth('alice', PASSWORDS.alice)
  t.equal(site.status, 200)
  t.match(site.headers['content-type'], /^application\/json/)
  t.equal(site.text ?? '', '', 'no body')
  t.equal((await http.head('/api/agents').auth('alice', PASSWORDS.alice)).status, 200)
  t.equal((await http.head('/api/sites/nosuchsite').auth('alice', PASSWORDS.alice)).status, 400)
  t.equal((await http.head('/api/agents')).status, 401)
})

t.test('undecodable path parameters are 400 InvalidInput', async (t) => {
  const f = await setup(t)
  isInvalid(t, await f.alice.get('/sites/%ZZbad'), 'bad escape')
  isInvalid(t, await f.alice.get('/accounts/%E0%A4%A'), 'truncated UTF-8')
})

t.test('store failures: 503 ServiceUnavailable; anything else 500 InternalError, no stack, reported', async (t) => {
  class FlakyStore extends MemoryStore {
    failure: Error | undefined
    override async getSite(name: string) {
      if (this.failure) throw this.failure
      return super.getSite(name)
    }
  }
  const store = new FlakyStore()
  const engine = createEngine({ store })
  await engine.addMasterAccount({ user: 'alice', password: 'pw' })
  const reported: unknown[] = []
  const app = express().use('/api', apiRouter(engine, { onError: (error) => reported.push(error) }))
  t.teardown(() => engine.close())
  const get = () => checkedRequest(app).get('/api/sites/anysite').auth('alice', 'pw')

  store.failure = new StoreUnavailableError('connection refused')
  isError(t, await get(), 503, 'ServiceUnavailable', 'unreachable store')
  store.failure = Object.assign(new Error('boom at /secret/path/file.ts:12:3'), { status: 400 })
  let res = await get()
  isError(t, res, 500, 'InternalError', 'unexpected error')
  t.notMatch(res.text, /boom|secret/, 'the internal message is not leaked')
  store.failure = new TypeError('undefined is not a function')
  res = await get()
  isError(t, res, 500, 'InternalError', 'a TypeError')
  t.notMatch(res.text, /undefined is not/)
  t.equal(reported.length, 2, 'both unexpected errors reached onError')
})

t.test('store outages are mapped in one place, the engine: lib/http does not know the store', async (t) => {
  const { readdirSync, readFileSync } = await import('node:fs')
  const dir = new URL('../../lib/http/', import.meta.url)
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.ts'))) {
    const source = readFileSync(new URL(file, dir), 'utf8')
    t.notMatch(source, /from '\.\.\/store\/|StoreUnavailableError/, `lib/http/${file} imports nothing from the store`)
  }
})
