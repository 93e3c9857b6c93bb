/**
 * `mobisite/edge` as a web-platform user calls it, here in Node: what
 * `handle` does to `next()`'s response (Vary merged, immutable headers
 * copied, skipped paths untouched), what `decide` returns, and remote agents
 * and confirmations going through `ctx.waitUntil`, never through a timer.
 * test/edge/ compares its answers with the Express middleware's in workerd
 * and in Vercel's edge runtime.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { AgentsSourceError, createMobileRedirect, DEFAULT_AGENTS } from '../../lib/edge.js'

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1'
const DESKTOP = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/130.0 Safari/537.36'
const NAVIGATION = { 'sec-fetch-dest': 'document' }
const page = (url: string, ua: string, extra: Record<string, string> = {}) =>
  new Request(url, { headers: { 'user-agent': ua, ...NAVIGATION, ...extra } })
const desktopPage = () => new Response('desktop', { headers: { vary: 'Accept-Encoding', 'cache-control': 'public' } })

/** A local origin: `/api/agents` serves `agents.source`, `/collect/…` counts beacons, anything else is a page. */
async function origin(t: Test) {
  const state = { source: '.*Nokia.*', agentFetches: 0, beacons: [] as string[] }
  const server = http.createServer((req, res) => {
    if (req.url === '/api/agents') {
      state.agentFetches++
      res.setHeader('content-type', 'application/json')
      return res.end(JSON.stringify(state.source))
    }
    if (req.url?.startsWith('/collect/')) {
      state.beacons.push(`${req.method} ${req.url}`)
      res.statusCode = 204
      return res.end()
    }
    res.setHeader('vary', 'Accept-Encoding')
    res.end('from the origin')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { state, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

/** A `ctx` that keeps what it was handed, so a test can wait for it. */
function context() {
  const pending: Promise<unknown>[] = []
  return { waitUntil: (p: Promise<unknown>) => void pending.push(p), settled: () => Promise.all(pending.splice(0)) }
}

t.test('a phone navigation is redirected with the same headers as Express', async (t) => {
  const redirect = createMobileRedirect({ mobileUrl: 'https://m.example.com' })
  const res = await redirect.handle(page('https://www.example.com/shop?id=7', IPHONE), desktopPage)
  t.equal(res.status, 302)
  t.equal(res.headers.get('location'), 'https://m.example.com/shop?id=7')
  t.equal(res.headers.get('vary'), 'User-Agent, Sec-CH-UA-Mobile, Sec-Fetch-Dest, Cookie, X-Requested-With')
  t.equal(await res.text(), '', 'an empty body')
})

t.test("a desktop page keeps next()'s response, with Vary merged", async (t) => {
  const redirect = createMobileRedirect({ mobileUrl: 'https://m.example.com', alternateLink: true })
  const res = await redirect.handle(page('https://www.example.com/a', DESKTOP), desktopPage)
  t.equal(res.status, 200)
  t.equal(await res.text(), 'desktop')
  t.equal(
    res.headers.get('vary'),
    'Accept-Encoding, User-Agent, Sec-CH-UA-Mobile, Sec-Fetch-Dest, Cookie, X-Requested-With',
  )
  t.equal(
    res.headers.get('link'),
    '<https://m.example.com/a>; rel="alternate"; media="only screen and (max-width: 640px)"',
  )
  t.equal(res.headers.get('cache-control'), 'public', "next()'s own headers stay")
})

t.test('a response with immutable headers (fetch) is copied before headers are added', async (t) => {
  const { url } = await origin(t)
  const redirect = createMobileRedirect({ mobileUrl: 'https://m.example.com' })
  const upstream = await fetch(`${url}/x`)
  t.throws(() => upstream.headers.set('x', '1'), TypeError, 'fetch() headers are immutable')
  const res = await redirect.handle(page(`${url}/x?no_redirect=1`, IPHONE), () => fetch(`${url}/x`))
  t.equal(await res.text(), 'from the origin')
  t.match(res.headers.get('vary'), /^Accept-Encoding, User-Agent/)
  t.match(res.headers.get('set-cookie'), /^mobisite_no_redirect=1; Path=\/; Max-Age=2592000; SameSite=Lax; HttpOnly$/)
})

t.test('Secure goes on the opt-out cookie over https only', async (t) => {
  const redirect = createMobileRedirect({ mobileUrl: 'https://m.example.com' })
  const secure = await redirect.handle(page('https://www.example.com/?no_redirect', IPHONE), desktopPage)
  t.match(secure.headers.get('set-cookie'), /; Secure$/)
  const plain = await redirect.handle(page('http://www.example.com/?no_redirect', IPHONE), desktopPage)
  t.notMatch(plain.headers.get('set-cookie'), /Secure/)
})

t.test('a skipped path gets exactly what next() returned', async (t) => {
  const redirect = createMobileRedirect({ mobileUrl: 'https://m.example.com' })
  const answer = desktopPage()
  t.equal(await redirect.handle(page('https://www.example.com/app.css', IPHONE), () => answer), answer)
  const decision = redirect.decide(page('https://www.example.com/api/x', IPHONE))
  t.same(decision, { mobile: false, by: 'user-agent', optedOut: false, skipped: true, headers: new Headers() })
})

t.test('decide returns the verdict, the redirect and the headers to add', async (t) => {
  const redirect = createMobileRedirect({ mobileUrl: 'https://m.example.com/m', status: 307 })
  const phone = redirect.decide(page('https://www.example.com/p?no_redirect=0&q=1', IPHONE))
  t.same(phone.redirect, { status: 307, location: 'https://m.example.com/m/p?q=1' }, 'the opt-out parameter stays')
  t.match(phone, { mobile: true, by: 'user-agent', optedOut: false, skipped: false })
  t.equal(phone.headers.get('set-cookie'), 'mobisite_no_redirect=; Path=/; Max-Age=0; SameSite=Lax; HttpOnly')
  const hinted = redirect.decide(page('https://www.example.com/p', IPHONE, { 'sec-ch-ua-mobile': '?0' }))
  t.match(hinted, { mobile: false, by: 'client-hint', redirect: undefined })
  const image = redirect.decide(page('https://www.example.com/banner', IPHONE, { 'sec-fetch-dest': 'image' }))
  t.equal(image.redirect, undefined, 'an image is not a navigation')
  t.equal(image.headers.get('vary'), 'User-Agent, Sec-CH-UA-Mobile, Sec-Fetch-Dest, Cookie, X-Requested-With')
})

t.test('a mobileUrl function gets the URL and the request; throwing passes through and is reported', async (t) => {
  const errors: Error[] = []
  const redirect = createMobileRedirect({
    mobileUrl: (url, request) => {
      if (url.pathname === '/boom') throw new Error('boom')
      return `https://m.example.com/${request.method.toLowerCase()}${url.pathname}`
    },
    onError: (error) => errors.push(error),
  })
  t.equal(redirect.decide(page('https://www.example.com/x', IPHONE)).redirect?.location, 'https://m.example.com/get/x')
  t.equal(redirect.decide(page('https://www.example.com/boom', IPHONE)).redirect, undefined)
  t.same(
    errors.map((e) => e.message),
    ['boom'],
  )
})

t.test('bad options and sources are refused at once, as in Node', async (t) => {
  t.throws(() => createMobileRedirect({ mobileUrl: 'ftp://m.example.com' }), TypeError)
  t.throws(() => createMobileRedirect({ mobileUrl: 'https://m.example.com', status: 200 as 302 }), TypeError)
  t.throws(() => createMobileRedirect({ mobileUrl: 'https://m.example.com', siteName: 'shop' }), /needs `remote`/)
  t.throws(() => createMobileRedirect({ mobileUrl: 'https://m.example.com', agents: '(a+)+$' }), AgentsSourceError)
  t.equal(createMobileRedirect({ mobileUrl: 'https://m.example.com' }).matcher.source, DEFAULT_AGENTS)
})

t.test(
  'remote agents: fetched on the first request through waitUntil, then at most every refreshInterval',
  async (t) => {
    const { state, url } = await origin(t)
    let now = 1_000_000
    const nokia = 'Nokia6300/2.0'
    const redirect = createMobileRedirect({
      mobileUrl: 'https://m.example.com',
      remote: { baseUrl: `${url}/api`, user: 'u', password: 'p', refreshInterval: 60_000 },
      now: () => now,
    })
    t.equal(state.agentFetches, 0, 'nothing is fetched before a request (no timer at module scope)')
    const ctx = context()
    t.equal(
      redirect.decide(page('https://www.example.com/', nokia), ctx).redirect,
      undefined,
      'DEFAULT_AGENTS until then',
    )
    await ctx.settled()
    t.equal(state.agentFetches, 1)
    t.equal(redirect.decide(page('https://www.example.com/', nokia), ctx).mobile, true, 'the served source decides')
    await ctx.settled()
    t.equal(state.agentFetches, 1, 'not again within the interval')
    now += 60_000
    redirect.decide(page('https://www.example.com/', DESKTOP), ctx)
    await ctx.settled()
    t.equal(state.agentFetches, 2, 'again once the interval is over')
  },
)

t.test('confirmations go to the collector through waitUntil, once a minute per site', async (t) => {
  const { state, url } = await origin(t)
  state.source = '.*iPhone.*'
  let now = 5_000_000
  const redirect = createMobileRedirect({
    mobileUrl: 'https://m.example.com',
    remote: { baseUrl: `${url}/api`, user: 'u', password: 'p' },
    siteName: 'edge-shop',
    now: () => now,
  })
  const ctx = context()
  const first = await redirect.handle(page('https://www.example.com/', IPHONE), desktopPage, ctx)
  t.equal(first.status, 302, 'the redirect does not wait for the confirmation')
  await ctx.settled()
  await redirect.handle(page('https://www.example.com/', IPHONE), desktopPage, ctx)
  await ctx.settled()
  t.same(state.beacons, ['POST /collect/edge-shop?e=redirect'])
  now += 60_000
  await redirect.handle(page('https://www.example.com/', IPHONE), desktopPage, ctx)
  await ctx.settled()
  t.same(state.beacons.length, 2, 'again a minute later')
})

t.test('a redirecting agents service is a failed fetch: the credentials never follow it', async (t) => {
  const elsewhere: string[] = []
  const server = http.createServer((req, res) => {
    if (req.url === '/api/agents') {
      res.statusCode = 302
      res.setHeader('location', '/other/agents')
      return res.end()
    }
    elsewhere.push(req.headers.authorization ?? '')
    res.end(JSON.stringify('.*Nokia.*'))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const errors: Error[] = []
  const redirect = createMobileRedirect({
    mobileUrl: 'https://m.example.com',
    remote: { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`, user: 'u', password: 'p' },
    onError: (error) => errors.push(error),
  })
  await redirect.refresh()
  t.same(elsewhere, [], 'nothing was asked of the redirect target')
  t.match(errors[0], { name: 'AgentsSourceError', reason: 'fetch', message: /HTTP 302/ })
  t.equal(redirect.matcher.source, DEFAULT_AGENTS)
})
