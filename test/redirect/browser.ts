/**
 * mobileRedirect in a real browser: headless Chromium (playwright-core) with
 * the device descriptors of an iPhone, a Pixel, an iPad and a desktop, in
 * front of a desktop site and a mobile site on two hosts. Covered: a page
 * navigation (path and query kept), an <img> of an extensionless URL and a
 * fetch() of the desktop site from the mobile page (never redirected), an
 * opt-out followed by an opt-in, and a page kept by a shared cache.
 * Skips, saying so, without a browser (test/helpers/browser.ts).
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { devices, type Browser, type BrowserContext, type Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { mobileRedirect } from '../../lib/redirect/middleware.js'
import { browserOrSkip } from '../helpers/browser.js'
import { startCachingProxy } from '../helpers/caching-proxy.js'

const browser = await browserOrSkip(t, 'the mobileRedirect browser test')

/** Name → redirected or not. */
const DEVICES: ReadonlyArray<[name: string, phone: boolean]> = [
  ['iPhone 15', true],
  ['Pixel 7', true],
  ['iPad Pro 11', false],
  ['Desktop Chrome', false],
]
/** A 1×1 transparent PNG. */
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
)

async function serve(app: express.Express): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer(app)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/**
 * The mobile site answers on `localhost`, the desktop site on `127.0.0.1`:
 * two hosts, both secure contexts, so Chromium sends Sec-CH-UA-Mobile to both.
 */
async function sites(t: Tap, cacheable: boolean) {
  const mobile = express()
  let desktopUrl = ''
  mobile.use((req, res) => {
    res
      .type('html')
      .send(
        `<!doctype html><title>mobile</title><h1 id="where">mobile ${req.originalUrl}</h1>` +
          `<img id="avatar" src="${desktopUrl}/avatar">` +
          `<script>window.data = fetch('${desktopUrl}/data').then((r) => r.json())</script>`,
      )
  })
  const mobileSite = await serve(mobile)
  const mobileUrl = mobileSite.url.replace('127.0.0.1', 'localhost')
  const desktop = express()
  desktop.use((_req, res, next) => {
    if (cacheable) res.setHeader('Cache-Control', 'public, max-age=300')
    res.setHeader('Access-Control-Allow-Origin', '*')
    next()
  })
  desktop.use(mobileRedirect({ mobileUrl }))
  desktop.get('/avatar', (_req, res) => void res.type('png').send(PIXEL))
  desktop.get('/data', (req, res) => void res.json({ from: 'desktop', mobile: req.mobisite?.mobile }))
  desktop.use(
    (req, res) =>
      void res.type('html').send(`<!doctype html><title>desktop</title><h1 id="where">desktop ${req.originalUrl}</h1>`),
  )
  const desktopSite = await serve(desktop)
  desktopUrl = desktopSite.url
  t.teardown(desktopSite.close)
  t.teardown(mobileSite.close)
  return { desktopUrl, mobileUrl }
}
type Tap = Test

/** Contexts of WebKit devices (iPhone, iPad), whose pages must not send Client Hints. */
const webkit = new WeakSet<BrowserContext>()

/** A browser context emulating the device. */
async function context(b: Browser, name: string): Promise<BrowserContext> {
  const { defaultBrowserType, ...descriptor } = devices[name] as (typeof devices)[string]
  const ctx = await b.newContext(descriptor)
  if (defaultBrowserType === 'webkit') webkit.add(ctx)
  return ctx
}

/**
 * A page of the context. Chromium emulating an iPhone or iPad still sends
 * User-Agent Client Hints (`Sec-CH-UA-Mobile: ?1` even for the iPad); Safari,
 * like every iOS browser (all WebKit), sends none. Overriding the UA through
 * CDP without metadata turns the hints off, so the request is what the
 * device really sends, and the HTTP cache stays on.
 */
async function newPage(ctx: BrowserContext): Promise<Page> {
  const page = await ctx.newPage()
  if (webkit.has(ctx)) {
    const cdp = await ctx.newCDPSession(page)
    await cdp.send('Emulation.setUserAgentOverride', {
      userAgent: (await page.evaluate('navigator.userAgent')) as string,
    })
  }
  return page
}

async function where(ctx: BrowserContext, url: string): Promise<{ url: string; heading: string }> {
  const page = await newPage(ctx)
  await page.goto(url)
  const heading = (await page.textContent('#where')) ?? ''
  const at = page.url()
  await page.close()
  return { url: at, heading }
}

if (browser !== undefined) {
  const b = browser

  t.test('page navigations: phones go to the mobile site with path and query; tablets and desktops stay', async (t) => {
    const { desktopUrl, mobileUrl } = await sites(t, false)
    for (const [name, phone] of DEVICES) {
      const ctx = await context(b, name)
      const got = await where(ctx, `${desktopUrl}/shop/item?id=7&ref=a%20b`)
      if (phone) {
        t.equal(got.url, `${mobileUrl}/shop/item?id=7&ref=a%20b`, `${name}: redirected`)
        t.equal(got.heading, 'mobile /shop/item?id=7&ref=a%20b')
      } else {
        t.equal(got.url, `${desktopUrl}/shop/item?id=7&ref=a%20b`, `${name}: not redirected`)
        t.equal(got.heading, 'desktop /shop/item?id=7&ref=a%20b')
      }
      await ctx.close()
    }
  })

  t.test('an <img> of an extensionless URL and a fetch() of the desktop site are never redirected', async (t) => {
    const { mobileUrl } = await sites(t, false)
    for (const [name, phone] of DEVICES) {
      const ctx = await context(b, name)
      const page = await newPage(ctx)
      await page.goto(`${mobileUrl}/gallery`)
      await page.waitForFunction('document.getElementById("avatar").complete')
      t.equal(await page.evaluate('document.getElementById("avatar").naturalWidth'), 1, `${name}: the image loaded`)
      t.same(await page.evaluate('window.data'), { from: 'desktop', mobile: phone }, `${name}: fetch() got the JSON`)
      await ctx.close()
    }
  })

  t.test('opt-out, then opt-in', async (t) => {
    const { desktopUrl, mobileUrl } = await sites(t, false)
    for (const name of ['iPhone 15', 'Pixel 7']) {
      const ctx = await context(b, name)
      t.equal(
        (await where(ctx, `${desktopUrl}/?no_redirect=true`)).heading,
        'desktop /?no_redirect=true',
        `${name}: the desktop version link`,
      )
      t.equal((await where(ctx, `${desktopUrl}/shop`)).heading, 'desktop /shop', `${name}: stays on the desktop site`)
      const back = await where(ctx, `${desktopUrl}/shop?no_redirect=false`)
      t.equal(back.url, `${mobileUrl}/shop`, `${name}: opting in redirects, without the parameter`)
      t.equal((await where(ctx, `${desktopUrl}/shop`)).url, `${mobileUrl}/shop`, `${name}: and keeps redirecting`)
      await ctx.close()
    }
  })

  t.test('a cached page: neither a shared cache nor the browser cache serves a phone the desktop page', async (t) => {
    const { desktopUrl, mobileUrl } = await sites(t, true)
    const proxy = await startCachingProxy(desktopUrl)
    t.teardown(proxy.close)
    const desktop = await context(b, 'Desktop Chrome')
    t.equal((await where(desktop, `${proxy.url}/news`)).heading, 'desktop /news')
    t.equal((await where(desktop, `${proxy.url}/news`)).heading, 'desktop /news')
    const phoneA = await context(b, 'iPhone 15')
    await where(phoneA, `${proxy.url}/?no_redirect=true`)
    t.equal((await where(phoneA, `${proxy.url}/news`)).heading, 'desktop /news', 'phone A opted out: the desktop page')
    const phoneB = await context(b, 'iPhone 15')
    t.equal(
      (await where(phoneB, `${proxy.url}/news`)).url,
      `${mobileUrl}/news`,
      'phone B, same UA: the mobile site, not the cached desktop page',
    )
    t.equal(
      (await where(phoneA, `${proxy.url}/news?no_redirect=false`)).url,
      `${mobileUrl}/news`,
      'phone A opts back in',
    )
    t.equal(
      (await where(phoneA, `${proxy.url}/news`)).url,
      `${mobileUrl}/news`,
      'phone A: not the desktop page from its own cache',
    )
    const fresh = await context(b, 'Desktop Chrome')
    const hits = proxy.hits
    t.equal((await where(fresh, `${proxy.url}/news`)).heading, 'desktop /news')
    t.ok(proxy.hits > hits, 'the shared cache does keep pages: another desktop got /news from it')
    await fresh.close()
    for (const ctx of [desktop, phoneA, phoneB]) await ctx.close()
  })
}
