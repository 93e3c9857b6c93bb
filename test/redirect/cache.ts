/**
 * Caches stay correct: a real shared cache that honours Vary
 * (test/helpers/caching-proxy.ts) sits in front of a desktop site whose every
 * page is publicly cacheable, and no phone ever gets the desktop page
 * because another phone with the same User-Agent opted out; opting back in
 * is not answered from a stale entry.
 */
import t, { type Test } from 'tap'
import { startCachingProxy } from '../helpers/caching-proxy.js'
import { listen, notPhones, phones, redirectApp } from '../helpers/redirect-app.js'

const IPHONE = phones['iPhone Safari'] as string
const DESKTOP = notPhones['Ubuntu Firefox'] as string
const MOBILE = 'https://m.example.com'
/** What a browser sends for a page navigation. */
const NAVIGATION = {
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'sec-fetch-dest': 'document',
}

async function cachedSite(t: Tap) {
  const { app } = redirectApp({ mobileUrl: MOBILE }, (_req, res, next) => {
    // The worst case for the middleware: the site lets shared caches keep everything for 5 minutes.
    res.setHeader('Cache-Control', 'public, max-age=300')
    next()
  })
  const origin = await listen(app)
  t.teardown(origin.close)
  const proxy = await startCachingProxy(`http://127.0.0.1:${origin.port}`)
  t.teardown(proxy.close)
  const get = async (path: string, ua: string, cookie?: string, extra: Record<string, string> = {}) => {
    const res = await fetch(`${proxy.url}${path}`, {
      redirect: 'manual',
      headers: { ...NAVIGATION, 'user-agent': ua, ...(cookie ? { cookie } : {}), ...extra },
    })
    await res.arrayBuffer()
    return {
      status: res.status,
      cache: res.headers.get('x-cache'),
      vary: res.headers.get('vary'),
      setCookie: res.headers.get('set-cookie'),
      location: res.headers.get('location'),
    }
  }
  return { proxy, get }
}
type Tap = Test

t.test('one phone opting out never gives another phone with the same UA the desktop page', async (t) => {
  const { proxy, get } = await cachedSite(t)
  const optOut = await get('/page?no_redirect=true', IPHONE)
  t.equal(optOut.status, 200, 'phone A opts out')
  const cookie = (optOut.setCookie ?? '').split(';')[0] as string
  t.equal(cookie, 'mobisite_no_redirect=1')
  const a = await get('/page', IPHONE, cookie)
  t.equal(a.status, 200, 'phone A, with its cookie, gets the desktop page')
  t.equal(a.cache, 'MISS')
  t.equal(a.vary, 'User-Agent, Sec-CH-UA-Mobile, Sec-Fetch-Dest, Cookie')
  const again = await get('/page', IPHONE, cookie)
  t.equal(again.cache, 'HIT', 'the cache does keep pages: the test would catch a missing Vary')
  const b = await get('/page', IPHONE)
  t.equal(b.status, 302, 'phone B, same UA, no cookie: redirected, not the cached desktop page')
  t.equal(b.location, `${MOBILE}/page`)
  const b2 = await get('/page', IPHONE, 'other=1')
  t.equal(b2.status, 302, 'phone C with unrelated cookies: redirected')
  t.ok(proxy.hits >= 1)
})

t.test('opting back in is not answered from a stale cache entry', async (t) => {
  const { get } = await cachedSite(t)
  const cookie = 'mobisite_no_redirect=1'
  t.equal((await get('/shop', IPHONE, cookie)).status, 200, 'opted out: the desktop page, now cached')
  t.equal((await get('/shop', IPHONE, cookie)).cache, 'HIT')
  const back = await get('/shop?no_redirect=false', IPHONE, cookie)
  t.equal(back.status, 302, 'opting back in redirects')
  t.equal(back.location, `${MOBILE}/shop`, 'without the opt-out parameter')
  t.match(back.setCookie, /^mobisite_no_redirect=; Path=\/; Max-Age=0/)
  t.equal(
    (await get('/shop', IPHONE)).status,
    302,
    'the same phone without the cookie: redirected, not the cached desktop page',
  )
})

t.test('desktops share cached pages; every judged answer varies on the device headers and the cookie', async (t) => {
  const { get } = await cachedSite(t)
  t.equal((await get('/home', DESKTOP)).cache, 'MISS')
  const second = await get('/home', DESKTOP)
  t.equal(second.cache, 'HIT', 'a second desktop visit comes from the cache')
  t.equal(second.status, 200)
  const phone = await get('/home', IPHONE)
  t.equal(phone.status, 302, 'a phone is not given the cached desktop page')
  t.equal(
    phone.vary,
    'User-Agent, Sec-CH-UA-Mobile, Sec-Fetch-Dest, Cookie, X-Requested-With',
    'the redirect varies too, on the navigation test as well (Sec-Fetch-Dest sent: Accept is not read)',
  )
  const hinted = await get('/home', DESKTOP, undefined, { 'sec-ch-ua-mobile': '?1' })
  t.equal(hinted.status, 302, 'a desktop UA that says Sec-CH-UA-Mobile: ?1 is not given the cached desktop page')
})

t.test('without Sec-Fetch-Dest, Accept and X-Requested-With decide, and the cache keys on them', async (t) => {
  const { proxy } = await cachedSite(t)
  // An older browser or client: no Sec-Fetch-Dest at all.
  const get = async (headers: Record<string, string>) => {
    const res = await fetch(`${proxy.url}/data`, { redirect: 'manual', headers: { 'user-agent': IPHONE, ...headers } })
    await res.arrayBuffer()
    return { status: res.status, vary: res.headers.get('vary'), cache: res.headers.get('x-cache') }
  }
  const json = await get({ accept: 'application/json' })
  t.equal(json.status, 200, 'a JSON request from a phone is not redirected')
  t.equal(
    json.vary,
    'User-Agent, Sec-CH-UA-Mobile, Sec-Fetch-Dest, Cookie, X-Requested-With, Accept',
    'varies on Accept',
  )
  t.equal((await get({ accept: 'application/json' })).cache, 'HIT', 'the cache does keep it')
  const page = await get({ accept: 'text/html' })
  t.equal(page.status, 302, 'the same phone navigating is not given the cached JSON answer')
  t.equal((await get({ accept: 'text/html' })).status, 302)
  const xhr = await get({ accept: 'text/html', 'x-requested-with': 'XMLHttpRequest' })
  t.equal(xhr.status, 200, 'nor is an XHR given the cached redirect')
  t.equal(xhr.vary, 'User-Agent, Sec-CH-UA-Mobile, Sec-Fetch-Dest, Cookie, X-Requested-With')
})

t.test('an image request of a page URL does not poison the page for phones', async (t) => {
  const { get } = await cachedSite(t)
  const img = await get('/banner', IPHONE, undefined, {
    accept: 'image/avif,image/webp,*/*;q=0.8',
    'sec-fetch-dest': 'image',
  })
  t.equal(img.status, 200, 'an <img> of an extensionless URL gets what it asked for')
  t.equal(
    (await get('/banner', IPHONE, undefined, { accept: 'image/avif,image/webp,*/*;q=0.8', 'sec-fetch-dest': 'image' }))
      .cache,
    'HIT',
  )
  t.equal(
    (await get('/banner', IPHONE)).status,
    302,
    'the navigation to the same URL is redirected, not served the cached image answer',
  )
})
