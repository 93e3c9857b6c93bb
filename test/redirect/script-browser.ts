/**
 * `/redirect.js` in a real browser: headless Chromium (puppeteer-core) with
 * the device descriptors of an iPhone, a Pixel, an iPad and a desktop, and
 * client hints set through CDP. A desktop site (127.0.0.1) pastes the tag
 * first in its `<head>`, the script comes from startServer (another origin)
 * and the mobile site answers on another host (localhost). Covered: path,
 * query and fragment kept, no history entry, the opt-out round trip, the loop
 * guard with a base path in another letter case, a desktop page with
 * `Cross-Origin-Embedder-Policy: require-corp`, and the confirmation reaching
 * the site's `last_confirmed_redirected_date`.
 * Skips, saying so, without a browser (test/helpers/browser.ts).
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { type Browser, type BrowserContext, KnownDevices, type Page } from 'puppeteer-core'
import t, { type Test } from 'tap'
import { puppeteerOrSkip } from '../helpers/browser.js'
import { serverWithSite } from '../helpers/site-server.js'

const browser = await puppeteerOrSkip(t, 'the /redirect.js browser test')

async function serve(t: Test, app: express.Express): Promise<string> {
  const server = http.createServer(app)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const page = (where: string, head = '') =>
  `<!doctype html><html><head>${head}<title>${where}</title></head><body><h1 id="where">${where}</h1></body></html>`

/**
 * The mobisite service (with alice's site), a mobile site on localhost and a
 * desktop site on 127.0.0.1 whose every page starts with the tag. Under
 * `/coep/` the desktop pages require CORP of what they load; `/same/` pages
 * name a mobile URL on the desktop host itself, `/same/M` in another case
 * than the `/same/m/…` pages they are sent to.
 */
async function sites(t: Test) {
  const { server, site_name } = await serverWithSite(t)
  const script = `${server.url}/redirect.js`
  const mobile = express()
  mobile.use((req, res) => void res.type('html').send(page(`mobile ${req.originalUrl}`)))
  const mobileUrl = (await serve(t, mobile)).replace('127.0.0.1', 'localhost')
  let desktopUrl = ''
  const desktop = express()
  desktop.use((req, res) => {
    const target = req.path.startsWith('/same/') ? `${desktopUrl}/same/M` : mobileUrl
    const tag = `<script src="${script}" data-mobile-url="${target}" data-site="${site_name}"></script>`
    if (req.path.startsWith('/coep/')) res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp')
    res.type('html').send(page(`desktop ${req.originalUrl}`, tag))
  })
  desktopUrl = await serve(t, desktop)
  /** `last_confirmed_redirected_date` through the API, once it is set (or after 5 s). */
  const confirmed = async (): Promise<string | undefined> => {
    const auth = `Basic ${Buffer.from('alice:pw').toString('base64')}`
    for (let i = 0; i < 100; i++) {
      const answer = await fetch(`${server.url}/api/sites/${site_name}`, { headers: { Authorization: auth } })
      const date = ((await answer.json()) as { last_confirmed_redirected_date?: string }).last_confirmed_redirected_date
      if (date !== undefined) return date
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    return undefined
  }
  return { desktopUrl, mobileUrl, confirmed }
}

/** Devices by puppeteer's descriptors, and whether they are sent to the mobile site. */
const DEVICES: ReadonlyArray<[name: string, phone: boolean]> = [
  ['iPhone 15', true],
  ['Pixel 5', true],
  ['iPad Pro 11', false],
  ['desktop', false],
]

/** A fresh browser profile (cookies, storage) with one page, emulating `device` ('desktop': none). */
async function device(b: Browser, name: string): Promise<{ ctx: BrowserContext; tab: Page }> {
  const ctx = await b.createBrowserContext()
  const tab = await ctx.newPage()
  if (name !== 'desktop') await tab.emulate(KnownDevices[name as keyof typeof KnownDevices])
  return { ctx, tab }
}

/** Opens `url` and waits until the page, redirected or not, has settled: what it shows and where. */
async function visit(tab: Page, url: string): Promise<{ url: string; heading: string }> {
  // goto follows a location.replace made before the load event, and the script makes it while
  // the desktop page parses its <head>: once the page goto waited for is complete, none can follow.
  // (Network idle would not do: the beacon of a page that left is never seen to finish.)
  await tab.goto(url)
  await tab.waitForFunction('document.readyState === "complete"')
  const heading = await tab.$eval('#where', (h) => h.textContent ?? '')
  return { url: tab.url(), heading }
}

if (browser !== undefined) {
  const b = browser

  t.test('phones go to the mobile site with path, query and fragment; tablets and desktops stay', async (t) => {
    const { desktopUrl, mobileUrl } = await sites(t)
    const path = '/shop/item?id=7&ref=a%20b'
    for (const [name, phone] of DEVICES) {
      const { ctx, tab } = await device(b, name)
      const got = await visit(tab, `${desktopUrl}${path}#reviews`)
      if (phone) {
        t.equal(got.url, `${mobileUrl}${path}#reviews`, `${name}: redirected`)
        t.equal(got.heading, `mobile ${path}`)
      } else {
        t.equal(got.url, `${desktopUrl}${path}#reviews`, `${name}: not redirected`)
        t.equal(got.heading, `desktop ${path}`)
        t.equal(await tab.evaluate('document.documentElement.style.display'), '', `${name}: the page shows`)
      }
      t.equal(await tab.evaluate('typeof window.mobisiteRedirect'), phone ? 'undefined' : 'object')
      await ctx.close()
    }
  })

  t.test('client hints set through CDP decide over the User-Agent', async (t) => {
    const { desktopUrl, mobileUrl } = await sites(t)
    const metadata = { platform: 'Linux', platformVersion: '', architecture: 'x86', model: '', brands: [] }
    const cases = [
      ['a desktop UA with mobile: true', 'Mozilla/5.0 (X11; Linux x86_64) Chrome/124.0.0.0 Safari/537.36', true],
      ['a phone UA with mobile: false', (KnownDevices['Pixel 5'] as { userAgent: string }).userAgent, false],
    ] as const
    for (const [what, userAgent, mobile] of cases) {
      const { ctx, tab } = await device(b, 'desktop')
      const cdp = await tab.createCDPSession()
      await cdp.send('Emulation.setUserAgentOverride', {
        userAgent,
        userAgentMetadata: { ...metadata, brands: [{ brand: 'Chromium', version: '124' }], mobile },
      })
      const got = await visit(tab, `${desktopUrl}/hint`)
      t.equal(got.url, mobile ? `${mobileUrl}/hint` : `${desktopUrl}/hint`, what)
      if (!mobile) t.equal(await tab.evaluate('window.mobisiteRedirect.isMobile()'), false, 'isMobile() agrees')
      if (!mobile) t.equal(await tab.evaluate(`window.mobisiteRedirect.isMobile(${JSON.stringify(userAgent)})`), true)
      await ctx.close()
    }
  })

  t.test('no history entry: Back from the mobile page skips the desktop page', async (t) => {
    const { desktopUrl, mobileUrl } = await sites(t)
    const { ctx, tab } = await device(b, 'iPhone 15')
    await visit(tab, `${mobileUrl}/start`)
    const before = (await tab.evaluate('history.length')) as number
    t.equal((await visit(tab, `${desktopUrl}/shop`)).url, `${mobileUrl}/shop`)
    t.equal(await tab.evaluate('history.length'), before + 1, 'one entry for the desktop page and the redirect')
    await tab.goBack()
    t.equal(tab.url(), `${mobileUrl}/start`)
    await ctx.close()
  })

  t.test('opt-out round trip: ?no_redirect=true stays, later pages stay, ?no_redirect=false redirects', async (t) => {
    const { desktopUrl, mobileUrl } = await sites(t)
    for (const name of ['iPhone 15', 'Pixel 5']) {
      const { ctx, tab } = await device(b, name)
      t.equal((await visit(tab, `${desktopUrl}/?no_redirect=true`)).heading, 'desktop /?no_redirect=true', name)
      t.match(await tab.evaluate('document.cookie'), /(^|; )mobisite_no_redirect=1(;|$)/, 'the cookie is set')
      const [cookie] = (await ctx.cookies()).filter((c) => c.name === 'mobisite_no_redirect')
      t.match(cookie, { path: '/', sameSite: 'Lax', httpOnly: false }, 'Path=/, SameSite=Lax')
      t.ok((cookie?.expires ?? 0) - Date.now() / 1000 > 2_591_000, 'for 30 days')
      t.equal((await visit(tab, `${desktopUrl}/shop`)).heading, 'desktop /shop', `${name}: later pages stay`)
      const back = await visit(tab, `${desktopUrl}/shop?a=1&no_redirect=false`)
      t.equal(back.url, `${mobileUrl}/shop?a=1`, `${name}: redirected again, without the parameter`)
      t.equal((await visit(tab, `${desktopUrl}/shop`)).url, `${mobileUrl}/shop`, `${name}: and keeps redirecting`)
      await ctx.close()
    }
  })

  t.test('loop guard: pages under the mobile base path, in another letter case, are never redirected', async (t) => {
    const { desktopUrl } = await sites(t)
    const { ctx, tab } = await device(b, 'iPhone 15')
    t.equal((await visit(tab, `${desktopUrl}/same/shop`)).url, `${desktopUrl}/same/M/same/shop`, 'sent once')
    for (const path of ['/same/m', '/same/m/page', '/same/M/page?x=1']) {
      const got = await visit(tab, `${desktopUrl}${path}`)
      t.equal(got.url, `${desktopUrl}${path}`, `${path} stays`)
      t.equal(got.heading, `desktop ${path}`)
    }
    await ctx.close()
  })

  t.test('a desktop page requiring CORP still loads the script from mobisite', async (t) => {
    const { desktopUrl, mobileUrl } = await sites(t)
    const { ctx, tab } = await device(b, 'Pixel 5')
    t.equal((await visit(tab, `${desktopUrl}/coep/page`)).url, `${mobileUrl}/coep/page`)
    await ctx.close()
  })

  t.test("data-site: the redirect reaches the site's last_confirmed_redirected_date", async (t) => {
    const { desktopUrl, mobileUrl, confirmed } = await sites(t)
    const { ctx, tab } = await device(b, 'iPhone 15')
    t.equal((await visit(tab, `${desktopUrl}/deal`)).url, `${mobileUrl}/deal`)
    t.match(await confirmed(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/, 'confirmed through the collector')
    await ctx.close()
  })
}
