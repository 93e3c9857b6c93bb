/**
 * `GET /redirect.js` over HTTP: from startServer and from redirectScript(engine)
 * mounted in a plain Express app. Headers, ETag and 304, gzip and its size,
 * HEAD, 405, a new body when the engine's agents change; then the served text
 * itself, run in node:vm (test/helpers/redirect-script.ts): the same verdict as
 * createAgentMatcher on every corpus UA, crawler, fixture, adversarial and
 * generated string, and ES2017 syntax. What it does on a page (opt-out, loop
 * guard, target, confirmation) is test/redirect/script-page.ts.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { gunzipSync } from 'node:zlib'
import crawlers from 'crawler-user-agents'
import { transform } from 'esbuild'
import express from 'express'
import fc from 'fast-check'
import t, { type Test } from 'tap'
import { createAgentMatcher, createEngine, DEFAULT_AGENTS, redirectScript, startServer } from '../../lib/index.js'
import { corpusUserAgents } from '../helpers/agents-corpus.js'
import { serveCli } from '../helpers/cli.js'
import { knownDisagreements, notPhones, phones } from '../helpers/agents-fixtures.js'
import { checkProperty, replayable } from '../helpers/fuzz-seed.js'
import { rawRequest, scriptVerdict } from '../helpers/redirect-script.js'

replayable(t, import.meta.url)

async function server(t: Test) {
  const engine = createEngine()
  const running = await startServer({ engine })
  t.teardown(async () => {
    await running.close()
    await engine.close()
  })
  return { engine, url: `${running.url}/redirect.js` }
}

/** The served text (identity) at `url`. */
async function scriptAt(url: string): Promise<string> {
  const answer = await rawRequest(url)
  if (answer.status !== 200) throw new Error(`GET ${url}: ${answer.status}`)
  return answer.body.toString('utf8')
}

t.test('startServer serves the script: headers, gzip within 4 KB, ETag and 304, HEAD, 405', async (t) => {
  const { url } = await server(t)
  const plain = await rawRequest(url)
  t.equal(plain.status, 200)
  t.equal(plain.headers['content-type'], 'text/javascript; charset=utf-8')
  t.equal(plain.headers['cache-control'], 'public, max-age=300')
  t.equal(plain.headers['x-content-type-options'], 'nosniff')
  t.equal(plain.headers['cross-origin-resource-policy'], 'cross-origin')
  t.equal(plain.headers.vary, 'Accept-Encoding')
  t.equal(plain.headers['content-encoding'], undefined, 'no Accept-Encoding: identity')
  t.equal(plain.headers['set-cookie'], undefined)
  t.equal(Number(plain.headers['content-length']), plain.body.length)
  const etag = plain.headers.etag as string
  t.match(etag, /^"[A-Za-z0-9_-]+"$/, 'a strong ETag')
  t.match(plain.body.toString(), /^\/\* mobisite redirect\.js [0-9a-f]{12}/)
  t.ok(/^[\x09\x0a\x0d\x20-\x7e]*$/.test(plain.body.toString('latin1')), 'ASCII only, whatever the page encoding')

  const zipped = await rawRequest(url, 'GET', { 'Accept-Encoding': 'gzip, deflate, br, zstd' })
  t.equal(zipped.headers['content-encoding'], 'gzip')
  t.equal(zipped.headers.vary, 'Accept-Encoding')
  t.not(zipped.headers.etag, etag, 'another representation, another strong ETag')
  t.same(gunzipSync(zipped.body), plain.body, 'the same text')
  t.ok(
    zipped.body.length <= 4096,
    `DEFAULT_AGENTS: ${zipped.body.length} bytes gzip (raw ${plain.body.length}) <= 4 KB`,
  )

  for (const [header, gzip] of [
    ['gzip', true],
    ['x-gzip', true],
    ['*', true],
    ['br;q=1, GZIP;q=0.4', true],
    ['gzip;q=0', false],
    ['*;q=0', false],
    ['gzip;q=0, *', false],
    ['identity;q=1, gzip;q=0.5', false],
    ['deflate, br', false],
    ['identity', false],
  ] as const)
    t.equal(
      (await rawRequest(url, 'GET', { 'Accept-Encoding': header })).headers['content-encoding'] === 'gzip',
      gzip,
      header,
    )

  for (const [header, status] of [
    [etag, 304],
    [`W/${etag}`, 304],
    [`"nope", ${etag}`, 304],
    [`"a,b",W/${etag}`, 304],
    ['*', 304],
    ['"nope"', 200],
    [zipped.headers.etag as string, 200],
    [etag.slice(0, -2) + '"', 200],
  ] as const) {
    const answer = await rawRequest(url, 'GET', { 'If-None-Match': header })
    t.equal(answer.status, status, `If-None-Match: ${header}`)
    if (status === 304) {
      t.equal(answer.body.length, 0)
      t.equal(answer.headers.etag, etag)
      t.equal(answer.headers['cache-control'], 'public, max-age=300')
      t.equal(answer.headers.vary, 'Accept-Encoding')
    }
  }
  const zipped304 = await rawRequest(url, 'GET', {
    'Accept-Encoding': 'gzip',
    'If-None-Match': zipped.headers.etag as string,
  })
  t.equal(zipped304.status, 304, 'the gzip ETag, asked with gzip')

  const head = await rawRequest(url, 'HEAD', { 'Accept-Encoding': 'gzip' })
  t.equal(head.status, 200)
  t.equal(head.body.length, 0)
  t.equal(Number(head.headers['content-length']), zipped.body.length)
  t.equal(head.headers.etag, zipped.headers.etag)

  for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
    const answer = await rawRequest(url, method)
    t.equal(answer.status, 405, method)
    t.equal(answer.headers.allow, 'GET, HEAD')
    t.match(JSON.parse(answer.body.toString()), { error_code: 'MethodNotAllowed', message: String })
  }
  t.equal((await rawRequest(`${url}/more`)).status, 404, 'nothing below it')
  t.equal((await rawRequest(url.replace('redirect.js', 'REDIRECT.JS'))).status, 200, 'Express paths ignore case')
})

t.test('the CLI serves it too, and the text tsx emits runs', async (t) => {
  // The CLI runs here under tsx, whose esbuild keeps function names with __name() calls:
  // the served text must not depend on them (lib/redirect/script/runtime.ts).
  const cli = await serveCli(t, ['--quiet'])
  const answer = await rawRequest(`${cli.url}/redirect.js`, 'GET', { 'Accept-Encoding': 'gzip' })
  t.equal(answer.status, 200)
  t.equal(answer.headers['cache-control'], 'public, max-age=300')
  const isMobile = scriptVerdict(gunzipSync(answer.body).toString('utf8'))
  t.equal(isMobile(phones['iPhone Safari'] as string), true)
  t.equal(isMobile(notPhones['iPad Safari'] as string), false)
})

t.test('a new agents source gives a new body, ETag and verdicts', async (t) => {
  const { engine, url } = await server(t)
  const first = await rawRequest(url)
  engine.setAgents('.*Nokia.*|.*Android.*Tablet.*')
  const second = await rawRequest(url)
  t.not(second.headers.etag, first.headers.etag)
  t.equal((await rawRequest(url, 'GET', { 'If-None-Match': first.headers.etag as string })).status, 200)
  const isMobile = scriptVerdict(second.body.toString())
  t.equal(isMobile('Nokia 3310'), true)
  t.equal(isMobile(phones['iPhone Safari'] as string), false)
  t.equal(isMobile('Android 14; Tablet'), true)
  t.equal(isMobile('Android 14\nTablet'), false)
  const again = await rawRequest(url)
  t.equal(again.headers.etag, second.headers.etag, 'built once per source')
  engine.setAgents(DEFAULT_AGENTS)
  t.equal((await rawRequest(url)).headers.etag, first.headers.etag, 'the same source, the same body')
})

t.test('redirectScript(engine) in a plain Express app', async (t) => {
  const engine = createEngine()
  t.teardown(() => engine.close())
  const app = express()
  app.use('/assets/redirect.js', redirectScript(engine))
  app.get('/r.js', redirectScript(engine))
  const listening = http.createServer(app).listen(0, '127.0.0.1')
  await new Promise((resolve) => listening.once('listening', resolve))
  t.teardown(() => listening.close())
  const origin = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`
  const mounted = await rawRequest(`${origin}/assets/redirect.js`)
  t.equal(mounted.status, 200)
  t.equal(mounted.headers['content-type'], 'text/javascript; charset=utf-8')
  const routed = await rawRequest(`${origin}/r.js`, 'GET', { 'Accept-Encoding': 'gzip' })
  t.equal(routed.status, 200)
  t.same(gunzipSync(routed.body), mounted.body)
  t.equal((await rawRequest(`${origin}/assets/redirect.js`, 'DELETE')).status, 405)
  t.equal((await rawRequest(`${origin}/assets/redirect.js/x`)).status, 404, 'other paths go to next()')
  t.throws(() => redirectScript({} as never), TypeError)

  // Anything with getAgents() will do; a source it cannot describe as linear lets only the hint decide.
  let source = '.*iPhone.*'
  let calls = 0
  const custom = express()
  custom.use('/redirect.js', redirectScript({ getAgents: () => (calls++, source) }))
  const other = http.createServer(custom).listen(0, '127.0.0.1')
  await new Promise((resolve) => other.once('listening', resolve))
  t.teardown(() => other.close())
  const customUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/redirect.js`
  t.equal(scriptVerdict(await scriptAt(customUrl))('iPhone'), true)
  source = '(iPhone|iPad)'
  const general = await scriptAt(customUrl)
  t.match(general, /"agents":null/)
  t.equal(scriptVerdict(general)('iPhone'), false, 'not linear: the UA never decides')
  t.ok(calls >= 3, 'getAgents() is read on every request')
  source = '.*Nokia.*'
  const nokia = await scriptAt(customUrl)
  for (const broken of [
    () => 42,
    () => {
      throw new Error('store down')
    },
  ]) {
    const app = express()
    let first = true
    app.use(
      '/redirect.js',
      redirectScript({ getAgents: () => (first ? ((first = false), '.*Nokia.*') : broken()) as string }),
    )
    const listening = http.createServer(app).listen(0, '127.0.0.1')
    await new Promise((resolve) => listening.once('listening', resolve))
    t.teardown(() => listening.close())
    const brokenUrl = `http://127.0.0.1:${(listening.address() as AddressInfo).port}/redirect.js`
    t.equal(await scriptAt(brokenUrl), nokia, 'a getAgents() that fails or returns no string: the last body stays')
  }
})

/** Linear sources with chains, escapes, `\d`, `\w`, `.` and `.+` gaps, as the engine accepts them. */
const SOURCES = [
  DEFAULT_AGENTS,
  '.*iPhone.*|.*Android.*Mobile.*',
  '.*Android.*?Mobile.*?Safari.*|.*iP.d.*|.*Opera M.+i.*|.*BB10\\;.*',
  '.*Windows.*NT.*Touch.*|.*Linux.*\\d\\d.*Build.*|.*\\w\\wOS .*like.*Mac.*',
  'iPhone|Android.+Mobile|Mobile.*Android|.*KAIOS',
]

/** Strings where a reimplementation of the matcher could go wrong. */
const ADVERSARIAL = [
  '',
  '\n',
  'Android\nMobile',
  'Android\rMobile',
  'Android\u2028Mobile',
  'Android\u2029Mobile',
  'Android\r\nx Android Mobile',
  'Mobile Android',
  'Mobile\nAndroid Mobile',
  'AndroidMobile',
  'ANDROID mobile',
  'IPHONE',
  '\u0130phone',
  '\u0131phone',
  'Blac\u212Aberry',
  '\u017Fymbian',
  'BB10',
  'Opera\nMini',
  'iPh\u0000one',
  '\uD83DiPod',
  'Windows NT 10.0\nTouch',
  'Linux 12 Build',
  'Linux 1 Build',
  'Android' + 'x'.repeat(3000) + 'Mobile',
  'Android' + 'x'.repeat(3000) + '\nMobile',
  'android'.repeat(300) + 'mobile',
  'android\n'.repeat(300) + 'mobile',
  'Mobile'.repeat(300) + 'Android',
  'Android Mobile Safari'.repeat(50) + '\n',
]

/** Pieces of UA text, line terminators and the characters case folding treats apart. */
const TOKENS = [
  'iPhone',
  'iPad',
  'Android',
  'Mobile',
  'mobi',
  'Safari',
  'Opera Mini',
  'BB10;',
  'Windows NT',
  'Touch',
  'Linux',
  'Build',
  'iOS like Mac',
  'KAIOS',
  ' ',
  ';',
  '7',
  '42',
  '\n',
  '\r',
  '\u2028',
  '\u0130',
  '\u212A',
  '\u017F',
]
const generatedUa = fc.array(fc.constantFrom(...TOKENS), { maxLength: 20 }).map((a) => a.join(''))

t.test('the served script judges every UA as createAgentMatcher does', async (t) => {
  const { engine, url } = await server(t)
  const bots = crawlers.flatMap((c) => c.instances)
  const fixtures = [...Object.values(phones), ...Object.values(notPhones), ...knownDisagreements.map((d) => d.ua)]
  const uas = [...corpusUserAgents, ...bots, ...fixtures, ...ADVERSARIAL]
  t.ok(
    corpusUserAgents.length > 500 && bots.length > 1000,
    `${corpusUserAgents.length} corpus UAs, ${bots.length} bots`,
  )
  for (const source of SOURCES) {
    engine.setAgents(source)
    const served = scriptVerdict(await scriptAt(url))
    const server = createAgentMatcher(source, { cache: false })
    const naive = new RegExp(source, 'i')
    const differ = uas.filter((ua) => served(ua) !== server(ua))
    t.same(differ, [], `${uas.length} UAs, ${source.slice(0, 50)}`)
    t.same(
      ADVERSARIAL.filter((ua) => served(ua) !== naive.test(ua)),
      [],
      'the naive regex agrees on the adversarial strings',
    )
    checkProperty(
      import.meta.url,
      fc.property(generatedUa, (ua) => served(ua) === server(ua)),
      { numRuns: 400 },
    )
  }
})

// Generated linear sources (as lib/agents accepts them) with generated subjects.
const atom = fc.constantFrom('a', 'b', 'A', 'k', 's', ' ', ';', '\\.', '\\(', '\\-', '.', '\\d', '\\w', '1')
const piece = fc.array(atom, { minLength: 1, maxLength: 3 }).map((a) => a.join(''))
const gap = fc.constantFrom('.*', '.*?', '.+')
const alternative = fc
  .tuple(fc.boolean(), fc.array(piece, { minLength: 0, maxLength: 3 }), gap, fc.boolean())
  .map(([lead, pieces, g, trail]) => (lead ? '.*' : '') + pieces.join(g) + (trail ? '.*' : ''))
const linearSource = fc.array(alternative, { minLength: 1, maxLength: 4 }).map((a) => a.join('|'))
const subject = fc
  .array(
    fc.constantFrom('a', 'b', 'A', 'k', 's', 'S', 'K', ' ', ';', '.', '(', '-', '1', '\n', '\r', '\u017F', '\u212A'),
    {
      maxLength: 16,
    },
  )
  .map((a) => a.join(''))

t.test('generated linear sources: the served script agrees with the matcher', async (t) => {
  let source = DEFAULT_AGENTS
  const app = express()
  app.use('/redirect.js', redirectScript({ getAgents: () => source }))
  const listening = http.createServer(app).listen(0, '127.0.0.1')
  await new Promise((resolve) => listening.once('listening', resolve))
  t.teardown(() => listening.close())
  const url = `http://127.0.0.1:${(listening.address() as AddressInfo).port}/redirect.js`
  await checkProperty(
    import.meta.url,
    fc.asyncProperty(linearSource, fc.array(subject, { minLength: 20, maxLength: 20 }), async (s, subjects) => {
      source = s
      const served = scriptVerdict(await scriptAt(url))
      const server = createAgentMatcher(s, { cache: false, trusted: true })
      return subjects.every((ua) => served(ua) === server(ua))
    }),
    { numRuns: 150 },
  )
  t.pass('150 generated sources, 20 subjects each')
})

t.test('the served text is ES2017 and self-contained', async (t) => {
  const { url } = await server(t)
  const text = await scriptAt(url)
  t.notMatch(text, /__name|__defProp|require\(|import[ (]/, 'no loader helper or module syntax')
  // esbuild lowers whatever is newer than its target: nothing to lower means ES2017 syntax throughout.
  const at = async (target: string) => (await transform(text, { target, loader: 'js' })).code
  t.equal(await at('es2017'), await at('esnext'), 'nothing newer than ES2017')
})
