/**
 * mobileRedirect over HTTP: phones, tablets, desktops, bots, Client Hints,
 * methods, opt-out, loop guard, skip pattern, custom targets.
 */
import request from 'supertest'
import t from 'tap'
import { DEFAULT_AGENTS } from '../../lib/agents/default.js'
import { mobileRedirect } from '../../lib/redirect/middleware.js'
import { listen, notPhones, phones, rawGet, redirectApp } from '../helpers/redirect-app.js'

const IPHONE = phones['iPhone Safari'] as string
const ANDROID = phones['Chrome Android'] as string
const IPAD = notPhones['iPad Safari'] as string
const DESKTOP = notPhones['Ubuntu Firefox'] as string
const MOBILE = 'https://m.example.com'

const { app, mw } = redirectApp({ mobileUrl: MOBILE })

t.test('phones are redirected with 302, path and query kept', async (t) => {
  for (const ua of [IPHONE, ANDROID]) {
    const res = await request(app).get('/shop/item?id=7&ref=a%20b').set('User-Agent', ua)
    t.equal(res.status, 302)
    t.equal(res.headers.location, `${MOBILE}/shop/item?id=7&ref=a%20b`)
    t.match(res.headers.vary, /User-Agent/)
    t.equal(res.headers['content-length'], '0')
  }
  const root = await request(app).get('/').set('User-Agent', IPHONE)
  t.equal(root.headers.location, `${MOBILE}/`)
})

t.test('every phone fixture redirects; every non-phone passes with Vary set', async (t) => {
  for (const [name, ua] of Object.entries(phones)) {
    const res = await request(app).get('/p').set('User-Agent', ua)
    t.equal(res.status, 302, name)
  }
  for (const [name, ua] of Object.entries(notPhones)) {
    const res = await request(app).get('/p').set('User-Agent', ua)
    t.equal(res.status, 200, name)
    t.equal(
      res.headers.vary,
      'User-Agent, Sec-CH-UA-Mobile, Sec-Fetch-Dest, Cookie',
      `${name}: Vary on the pass-through`,
    )
    t.same(res.body.mobisite, { mobile: false, by: 'user-agent', optedOut: false })
  }
})

t.test('bots are not exempted: Googlebot smartphone is a phone, Googlebot desktop is not', async (t) => {
  const status = async (userAgent: string) => (await request(app).get('/').set('User-Agent', userAgent)).status
  t.equal(await status(phones['Googlebot smartphone'] as string), 302)
  t.equal(await status(notPhones['Googlebot desktop'] as string), 200)
})

t.test('a request without User-Agent passes', async (t) => {
  const res = await request(app).get('/').unset('User-Agent')
  t.equal(res.status, 200)
  t.equal(res.body.mobisite.mobile, false)
})

t.test('only GET and HEAD redirect; other methods still see the verdict', async (t) => {
  const head = await request(app).head('/x?q=1').set('User-Agent', IPHONE)
  t.equal(head.status, 302)
  t.equal(head.headers.location, `${MOBILE}/x?q=1`)
  for (const method of ['post', 'put', 'delete', 'patch'] as const) {
    const res = await request(app)[method]('/x').set('User-Agent', IPHONE)
    t.equal(res.status, 200, method)
    t.same(res.body.mobisite, { mobile: true, by: 'user-agent', optedOut: false }, method)
  }
})

t.test('Sec-CH-UA-Mobile: ?1 redirects and ?0 does not, whatever the UA', async (t) => {
  const hinted = await request(app).get('/a').set('User-Agent', DESKTOP).set('Sec-CH-UA-Mobile', '?1')
  t.equal(hinted.status, 302)
  const desktopMode = await request(app).get('/a').set('User-Agent', ANDROID).set('Sec-CH-UA-Mobile', '?0')
  t.equal(desktopMode.status, 200)
  t.same(desktopMode.body.mobisite, { mobile: false, by: 'client-hint', optedOut: false })
  const junk = await request(app).get('/a').set('User-Agent', ANDROID).set('Sec-CH-UA-Mobile', 'yes')
  t.equal(junk.status, 302, 'an unreadable hint falls back to the UA')
  const off = redirectApp({ mobileUrl: MOBILE, clientHints: false }).app
  const ignored = await request(off).get('/a').set('User-Agent', DESKTOP).set('Sec-CH-UA-Mobile', '?1')
  t.equal(ignored.status, 200)
  t.equal(ignored.headers.vary, 'User-Agent, Sec-Fetch-Dest, Cookie')
})

t.test('the status is configurable', async (t) => {
  for (const status of [301, 303, 307, 308] as const) {
    const res = await request(redirectApp({ mobileUrl: MOBILE, status }).app)
      .get('/s')
      .set('User-Agent', IPHONE)
    t.equal(res.status, status)
    t.equal(res.headers.location, `${MOBILE}/s`)
  }
})

t.test('opt-out: ?no_redirect=true sets a sticky cookie; the cookie stops redirects; =false clears it', async (t) => {
  const optOut = await request(app).get('/page?no_redirect=true').set('User-Agent', IPHONE)
  t.equal(optOut.status, 200)
  t.equal(optOut.body.mobisite.optedOut, true)
  const cookie = (optOut.headers['set-cookie'] as unknown as string[])[0] as string
  t.match(cookie, /^mobisite_no_redirect=1; Path=\/; Max-Age=2592000; SameSite=Lax; HttpOnly$/)
  const later = await request(app)
    .get('/other')
    .set('User-Agent', IPHONE)
    .set('Cookie', 'a=b; mobisite_no_redirect=1; c=d')
  t.equal(later.status, 200, 'the cookie stops the redirect')
  t.equal(later.body.mobisite.optedOut, true)
  const back = await request(app)
    .get('/other?no_redirect=false')
    .set('User-Agent', IPHONE)
    .set('Cookie', 'mobisite_no_redirect=1')
  t.equal(back.status, 302, 'opting back in redirects again')
  t.match((back.headers['set-cookie'] as unknown as string[])[0], /^mobisite_no_redirect=; Path=\/; Max-Age=0/)
  const other = await request(app).get('/other').set('User-Agent', IPHONE).set('Cookie', 'xmobisite_no_redirect=1')
  t.equal(other.status, 302, 'a cookie with a similar name does not count')
  const custom = redirectApp({ mobileUrl: MOBILE, optOut: { param: 'desktop', cookie: 'stay', maxAge: 60 } }).app
  const c = await request(custom).get('/?desktop=1').set('User-Agent', IPHONE)
  t.equal(c.status, 200)
  t.match((c.headers['set-cookie'] as unknown as string[])[0], /^stay=1; Path=\/; Max-Age=60;/)
  const disabled = redirectApp({ mobileUrl: MOBILE, optOut: false }).app
  t.equal((await request(disabled).get('/?no_redirect=true').set('User-Agent', IPHONE)).status, 302)
})

t.test('loop guard: never redirects a request already on the mobile host', async (t) => {
  const onMobile = await request(app).get('/x').set('User-Agent', IPHONE).set('Host', 'm.example.com')
  t.equal(onMobile.status, 200)
  t.equal(onMobile.body.mobisite.mobile, true)
  const withPort = await request(app).get('/x').set('User-Agent', IPHONE).set('Host', 'M.Example.com:443')
  t.equal(withPort.status, 302, 'https default port only matches an https request')
  const sameHost = redirectApp({ mobileUrl: 'http://www.example.com/m/' }).app
  const under = await request(sameHost).get('/m/page').set('User-Agent', IPHONE).set('Host', 'www.example.com')
  t.equal(under.status, 200, 'a mobile site under a path of the same host')
  const outside = await request(sameHost).get('/mx?a=1').set('User-Agent', IPHONE).set('Host', 'www.example.com')
  t.equal(outside.status, 302)
  t.equal(outside.headers.location, 'http://www.example.com/m/mx?a=1')
  const fn = redirectApp({ mobileUrl: (req) => `https://${req.host}/elsewhere` }).app
  t.equal(
    (await request(fn).get('/').set('User-Agent', IPHONE).set('Host', 'www.example.com')).status,
    200,
    'a function target on the request host',
  )
})

t.test('skip pattern: static assets and /api are never judged nor redirected', async (t) => {
  for (const path of [
    '/api',
    '/api/sites',
    '/style.css',
    '/js/app.js?v=3',
    '/img/logo.PNG',
    '/favicon.ico',
    '/robots.txt',
  ]) {
    const res = await request(app).get(path).set('User-Agent', IPHONE)
    t.equal(res.status, 200, path)
    t.equal(res.headers.vary, undefined, `${path}: no Vary on skipped paths`)
    t.equal(res.body.mobisite, null)
  }
  t.equal((await request(app).get('/apiary').set('User-Agent', IPHONE)).status, 302, '/apiary is not /api')
  const custom = redirectApp({ mobileUrl: MOBILE, skip: /^\/health$/g }).app
  for (let i = 0; i < 3; i++)
    t.equal(
      (await request(custom).get('/health').set('User-Agent', IPHONE)).status,
      200,
      'a g flag does not make it stateful',
    )
  t.equal(
    (await request(custom).get('/style.css').set('User-Agent', IPHONE)).status,
    302,
    'a custom pattern replaces the default',
  )
  const byFn = redirectApp({ mobileUrl: MOBILE, skip: (req) => req.get('x-no-redirect') === '1' }).app
  t.equal((await request(byFn).get('/').set('User-Agent', IPHONE).set('X-No-Redirect', '1')).status, 200)
})

t.test('a custom mobileUrl(req) decides the target, or declines', async (t) => {
  const errors: Error[] = []
  const fnApp = redirectApp({
    mobileUrl: (req) => {
      if (req.path === '/boom') throw new Error('bad config')
      return req.path === '/private' ? undefined : `https://m.example.com/landing?from=${encodeURIComponent(req.path)}`
    },
    onError: (e) => errors.push(e),
  }).app
  const res = await request(fnApp).get('/a/b').set('User-Agent', IPHONE)
  t.equal(res.headers.location, 'https://m.example.com/landing?from=%2Fa%2Fb')
  t.equal((await request(fnApp).get('/private').set('User-Agent', IPHONE)).status, 200)
  t.equal(
    (await request(fnApp).get('/boom').set('User-Agent', IPHONE)).status,
    200,
    'a throwing function does not break the site',
  )
  t.match(
    errors.map((e) => e.message),
    ['bad config'],
  )
})

t.test('the redirect never leaves the mobile host, whatever the request target', async (t) => {
  const server = await listen(app)
  t.teardown(server.close)
  for (const target of ['http://evil.example/x?y=1', '//evil.example/x', '/\\evil.example/x', '/%2F%2Fevil.example']) {
    const res = await rawGet(server.port, target, { 'user-agent': IPHONE, host: 'www.example.com' })
    t.equal(res.statusCode, 302, target)
    t.equal(new URL(res.headers.location as string).host, 'm.example.com', `${target} -> ${res.headers.location}`)
  }
})

t.test('Vary merges with a Vary set earlier', async (t) => {
  const merged = redirectApp({ mobileUrl: MOBILE }, (_req, res, next) => {
    res.setHeader('Vary', 'Accept-Encoding')
    next()
  }).app
  const phone = await request(merged).get('/').set('User-Agent', IPHONE)
  t.equal(
    phone.headers.vary,
    'Accept-Encoding, User-Agent, Sec-CH-UA-Mobile, Sec-Fetch-Dest, Cookie, X-Requested-With, Accept',
    'a phone: the navigation test read X-Requested-With and (no Sec-Fetch-Dest) Accept',
  )
  const desktop = await request(merged).get('/').set('User-Agent', DESKTOP)
  t.equal(desktop.headers.vary, 'Accept-Encoding, User-Agent, Sec-CH-UA-Mobile, Sec-Fetch-Dest, Cookie')
})

t.test('agents: DEFAULT_AGENTS by default, or any source', async (t) => {
  t.equal(mw.matcher.source, DEFAULT_AGENTS)
  t.equal(mw.matcher.mode, 'linear')
  const tablets = redirectApp({ mobileUrl: MOBILE, agents: '.*iPad.*' }).app
  t.equal((await request(tablets).get('/').set('User-Agent', IPAD)).status, 302)
  t.equal((await request(tablets).get('/').set('User-Agent', IPHONE)).status, 200)
})

t.test('bad options are refused at construction', async (t) => {
  t.throws(() => mobileRedirect({ mobileUrl: 'm.example.com' }), TypeError)
  t.throws(() => mobileRedirect({ mobileUrl: 'ftp://m.example.com' }), TypeError)
  t.throws(() => mobileRedirect({ mobileUrl: 'https://m.example.com/?a=1' }), TypeError)
  t.throws(
    () =>
      mobileRedirect({ mobileUrl: MOBILE, agents: '.*a.*', remote: { baseUrl: 'http://x', user: 'u', password: 'p' } }),
    TypeError,
  )
  t.throws(() => mobileRedirect({ mobileUrl: MOBILE, siteName: 'examplecom' }), {
    name: 'TypeError',
    message: /`siteName` needs `engine` or `remote`/,
  })
  t.throws(
    () => mobileRedirect({ mobileUrl: MOBILE, site_name: 'examplecom' }),
    TypeError,
    'the deprecated site_name needs engine or remote too',
  )
  t.throws(() => mobileRedirect({ mobileUrl: MOBILE, status: 200 as 302 }), TypeError)
  t.throws(() => mobileRedirect({ mobileUrl: MOBILE, agents: '.*(a.*' }), {
    name: 'AgentsSourceError',
    reason: 'invalid',
  })
  t.throws(() => mobileRedirect({ mobileUrl: MOBILE, optOut: { cookie: 'a;b' } }), TypeError)
  t.throws(() => mobileRedirect({ mobileUrl: MOBILE, optOut: { maxAge: -1 } }), TypeError)
  t.doesNotThrow(
    () => mobileRedirect({ mobileUrl: MOBILE, optOut: { param: undefined } }),
    'undefined keeps the default',
  )
})
