/**
 * The opt-out and the loop guard, at their edges: the verdict says
 * `optedOut` on every method, the opt-out parameter never travels to the
 * mobile site, and the loop guard ignores letter case in hosts and paths.
 */
import request from 'supertest'
import t from 'tap'
import { phones, redirectApp } from '../helpers/redirect-app.js'

const IPHONE = phones['iPhone Safari'] as string
const MOBILE = 'https://m.example.com'
const { app } = redirectApp({ mobileUrl: MOBILE })

t.test('req.mobisite.optedOut is true on every method with the cookie', async (t) => {
  for (const method of ['post', 'put', 'patch', 'delete', 'get'] as const) {
    const res = await request(app)[method]('/form').set('User-Agent', IPHONE).set('Cookie', 'mobisite_no_redirect=1')
    t.equal(res.status, 200, method)
    t.same(res.body.mobisite, { mobile: true, by: 'user-agent', optedOut: true }, `${method}: opted out`)
  }
  const post = await request(app).post('/form').set('User-Agent', IPHONE)
  t.equal(post.body.mobisite.optedOut, false, 'no cookie: not opted out')
  const off = redirectApp({ mobileUrl: MOBILE, optOut: false }).app
  const ignored = await request(off).post('/form').set('User-Agent', IPHONE).set('Cookie', 'mobisite_no_redirect=1')
  t.equal(ignored.body.mobisite.optedOut, false, 'opt-out disabled: never opted out')
})

t.test('the opt-out parameter never travels to the mobile site', async (t) => {
  const cases: Array<[string, string]> = [
    ['/p?no_redirect=false', '/p'],
    ['/p?no_redirect=0&a=1', '/p?a=1'],
    ['/p?a=1&no_redirect=false&b=%20x', '/p?a=1&b=%20x'],
    ['/p?a=1&no_redirect=maybe', '/p?a=1'],
    ['/p?no%5Fredirect=false&x=y', '/p?x=y'],
    ['/p?no_redirect=false&no_redirect=0', '/p'],
    ['/p?no_redirect_x=1', '/p?no_redirect_x=1'],
    ['/p?q=no_redirect', '/p?q=no_redirect'],
  ]
  for (const [target, kept] of cases) {
    const res = await request(app).get(target).set('User-Agent', IPHONE)
    t.equal(res.status, 302, target)
    t.equal(res.headers.location, `${MOBILE}${kept}`, target)
  }
  const encoded = await request(app).get('/p?no%5Fredirect=1').set('User-Agent', IPHONE)
  t.equal(encoded.status, 200, 'a percent-encoded parameter name opts out too')
  const custom = redirectApp({ mobileUrl: MOBILE, optOut: { param: 'desktop' } }).app
  t.equal(
    (await request(custom).get('/p?desktop=0&no_redirect=1').set('User-Agent', IPHONE)).headers.location,
    `${MOBILE}/p?no_redirect=1`,
    'a custom name is the one removed',
  )
  const fn = redirectApp({ mobileUrl: (req) => `https://m.example.com/landing${req.originalUrl}#top` }).app
  t.equal(
    (await request(fn).get('/x?no_redirect=false&k=v').set('User-Agent', IPHONE)).headers.location,
    'https://m.example.com/landing/x?k=v#top',
    'also from a mobileUrl function',
  )
  t.equal(
    (await request(app).get('/p?a&&b').set('User-Agent', IPHONE)).headers.location,
    `${MOBILE}/p?a&&b`,
    'a query without it is untouched',
  )
})

t.test('the loop guard ignores letter case in the host and the path prefix', async (t) => {
  const sameHost = redirectApp({ mobileUrl: 'http://www.example.com/m/' }).app
  for (const path of ['/M/page', '/m/page', '/M', '/m']) {
    const res = await request(sameHost).get(path).set('User-Agent', IPHONE).set('Host', 'WWW.Example.COM')
    t.equal(res.status, 200, `${path} on WWW.Example.COM`)
  }
  t.equal(
    (await request(sameHost).get('/Mx').set('User-Agent', IPHONE).set('Host', 'www.example.com')).status,
    302,
    '/Mx is not under /m',
  )
  const upper = redirectApp({ mobileUrl: 'http://www.example.com/Mobile' }).app
  t.equal((await request(upper).get('/mobile/a').set('User-Agent', IPHONE).set('Host', 'www.example.com')).status, 200)
  const loc = await request(upper).get('/a').set('User-Agent', IPHONE).set('Host', 'www.example.com')
  t.equal(loc.headers.location, 'http://www.example.com/Mobile/a', 'the target keeps the configured case')
  t.equal(
    (await request(app).get('/x').set('User-Agent', IPHONE).set('Host', 'M.EXAMPLE.COM')).status,
    200,
    'host case',
  )
})
