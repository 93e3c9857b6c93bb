/**
 * `alternateLink: true`: every page navigation served the desktop page
 * carries `Link: <mobile url>; rel="alternate"; media="only screen and
 * (max-width: 640px)"`, the annotation search engines expect on a desktop
 * page with a separate mobile URL.
 */
import request from 'supertest'
import t from 'tap'
import { notPhones, phones, redirectApp } from '../helpers/redirect-app.js'

const IPHONE = phones['iPhone Safari'] as string
const DESKTOP = notPhones['Ubuntu Firefox'] as string
const GOOGLEBOT = notPhones['Googlebot desktop'] as string
const MOBILE = 'https://m.example.com'
const MEDIA = 'rel="alternate"; media="only screen and (max-width: 640px)"'
const { app } = redirectApp({ mobileUrl: MOBILE, alternateLink: true })

t.test('desktop navigations get the alternate link to the same page on the mobile site', async (t) => {
  for (const ua of [DESKTOP, GOOGLEBOT]) {
    const res = await request(app).get('/shop/item?id=7').set('User-Agent', ua).set('Accept', 'text/html')
    t.equal(res.status, 200)
    t.equal(res.headers.link, `<${MOBILE}/shop/item?id=7>; ${MEDIA}`, ua)
  }
  const head = await request(app).head('/').set('User-Agent', DESKTOP)
  t.equal(head.headers.link, `<${MOBILE}/>; ${MEDIA}`, 'HEAD too')
  const optedOut = await request(app).get('/a?no_redirect=true&b=1').set('User-Agent', IPHONE)
  t.equal(optedOut.status, 200)
  t.equal(
    optedOut.headers.link,
    `<${MOBILE}/a?b=1>; ${MEDIA}`,
    'a phone served the desktop page gets it too, without the opt-out parameter',
  )
})

t.test('no link where there is no desktop page navigation', async (t) => {
  t.equal((await request(app).get('/p').set('User-Agent', IPHONE)).headers.link, undefined, 'the redirect itself')
  t.equal(
    (await request(app).get('/p').set('User-Agent', DESKTOP).set('Sec-Fetch-Dest', 'image')).headers.link,
    undefined,
    'an image',
  )
  t.equal(
    (await request(app).get('/p').set('User-Agent', DESKTOP).set('Accept', 'application/json')).headers.link,
    undefined,
    'JSON',
  )
  t.equal((await request(app).post('/p').set('User-Agent', DESKTOP)).headers.link, undefined, 'POST')
  t.equal((await request(app).get('/style.css').set('User-Agent', DESKTOP)).headers.link, undefined, 'a skipped path')
  t.equal(
    (await request(app).get('/p').set('User-Agent', DESKTOP).set('Host', 'm.example.com')).headers.link,
    undefined,
    'the mobile host itself',
  )
  const off = redirectApp({ mobileUrl: MOBILE }).app
  t.equal((await request(off).get('/p').set('User-Agent', DESKTOP)).headers.link, undefined, 'off by default')
})

t.test('with a mobileUrl function: only when it returns a URL', async (t) => {
  const fn = redirectApp({
    alternateLink: true,
    mobileUrl: (req) => (req.path.startsWith('/blog') ? `https://m.example.com/b${req.path.slice(5)}` : undefined),
  }).app
  t.equal(
    (await request(fn).get('/blog/post-1').set('User-Agent', DESKTOP)).headers.link,
    `<https://m.example.com/b/post-1>; ${MEDIA}`,
  )
  t.equal((await request(fn).get('/about').set('User-Agent', DESKTOP)).headers.link, undefined)
  const odd = redirectApp({ alternateLink: true, mobileUrl: () => 'https://m.example.com/a b/<x>/é' }).app
  t.equal(
    (await request(odd).get('/').set('User-Agent', DESKTOP)).headers.link,
    `<https://m.example.com/a%20b/%3Cx%3E/%C3%A9>; ${MEDIA}`,
    'what could break the header is encoded',
  )
})

t.test('an earlier Link header is kept', async (t) => {
  const withLink = redirectApp({ mobileUrl: MOBILE, alternateLink: true }, (_req, res, next) => {
    res.append('Link', '</style.css>; rel=preload; as=style')
    next()
  }).app
  const res = await request(withLink).get('/p').set('User-Agent', DESKTOP)
  t.equal(res.headers.link, `</style.css>; rel=preload; as=style, <${MOBILE}/p>; ${MEDIA}`)
})
