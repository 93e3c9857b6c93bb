/**
 * The dashboard's accessibility in Chromium (puppeteer-core), page by page as
 * a sub-account meets them: the SSO landing and a link that does not work,
 * the list of sites (with sites and empty), the site page (7, 30 and 90 days
 * of analytics with its charts and tables, and a site without visits), and
 * the error pages (400, 401 signed out and session expired, 403 sign-out from
 * another site, 404, 405, 503) and the signed-out page. On each, at a phone
 * (375×812) and a desktop (1280×900) width:
 *
 * - axe-core's rules tagged WCAG 2.0/2.1 A and AA and best practice find no
 *   violation (a failure names each rule, its impact and the nodes);
 * - Tab, pressed from the top of the page, reaches every visible control
 *   (`a[href], button, input, select, textarea, [tabindex="0"]`) and every
 *   scrollable region, stops nowhere else, and each scrollable region it
 *   reaches is a named region that an arrow key scrolls.
 *
 * axe needs script in the page: it is evaluated through the DevTools
 * protocol, which the pages' Content-Security-Policy (no script at all) does
 * not govern, so the pages are checked exactly as served.
 * Skips, saying so, without a browser (test/helpers/browser.ts).
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { HTTPRequest, Page } from 'puppeteer-core'
import t, { type Test } from 'tap'
import { puppeteerOrSkip } from '../helpers/browser.js'
import { type DashboardFixture, dashboardFixture, grantedSites } from '../helpers/dashboard.js'

const browser = await puppeteerOrSkip(t, 'dashboard accessibility test')

const VIEWPORTS = { phone: { width: 375, height: 812 }, desktop: { width: 1280, height: 900 } } as const
/** axe-core's tags for WCAG 2.0 and 2.1, levels A and AA, and its best practices. */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']
/** What a keyboard user must be able to reach. */
const CONTROLS = 'a[href], button, input, select, textarea, [tabindex="0"]'
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/**
 * The in-page half, as plain JavaScript text: handed to Chromium as written,
 * so neither the compiler's helpers nor the DOM typings (the project compiles
 * without them) come into it.
 */
const IN_PAGE = `globalThis.a11y = (() => {
  const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden'
  // The key that scrolls the element, if it scrolls: down first, as the longer tables do.
  const scrollKey = (el) => {
    const style = getComputedStyle(el)
    const scrolls = (overflow) => overflow === 'auto' || overflow === 'scroll'
    if (scrolls(style.overflowY) && el.scrollHeight > el.clientHeight) return 'ArrowDown'
    if (scrolls(style.overflowX) && el.scrollWidth > el.clientWidth) return 'ArrowRight'
    return null
  }
  const describe = (el) => {
    const text = (el.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 40)
    const classes = [...el.classList].map((c) => '.' + c).join('')
    return el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + classes + (text ? ' "' + text + '"' : '')
  }
  let targets = []
  return {
    async axe(tags) {
      const result = await axe.run(document, { runOnly: { type: 'tag', values: tags } })
      return result.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.map((n) => ({ target: n.target.join(' '), summary: n.failureSummary })),
      }))
    },
    targets(controls) {
      const scrollers = [...document.body.querySelectorAll('*')].filter((el) => visible(el) && scrollKey(el))
      targets = [...new Set([...document.querySelectorAll(controls)].filter(visible).concat(scrollers))]
      return targets.map(describe)
    },
    focused() {
      const el = document.activeElement
      if (!el || el === document.body || el === document.documentElement) return null
      return { index: targets.indexOf(el), name: describe(el), scrollKey: scrollKey(el) }
    },
    scrollOffset() {
      return document.activeElement.scrollTop + document.activeElement.scrollLeft
    },
  }
})()`

/** One rule axe-core found broken, with the nodes that break it. */
interface Violation {
  id: string
  impact: string | null
  help: string
  nodes: { target: string; summary: string }[]
}
/** What {@link IN_PAGE} defines. */
interface InPage {
  a11y: {
    axe(tags: string[]): Promise<Violation[]>
    /** Describes the controls and scrollable regions, remembering them for {@link focused}. */
    targets(controls: string): string[]
    /** The focused element: its place among the targets (-1: none), name, and the key that scrolls it. */
    focused(): { index: number; name: string; scrollKey: 'ArrowDown' | 'ArrowRight' | null } | null
    scrollOffset(): number
  }
}
type Helpers = InPage['a11y']

/** Calls one of the in-page helpers; the function runs in Chromium, so it names them through globalThis. */
function inPage<K extends keyof Helpers>(
  page: Page,
  helper: K,
  ...args: Parameters<Helpers[K]>
): Promise<Awaited<ReturnType<Helpers[K]>>> {
  return page.evaluate(
    (name, args) =>
      (globalThis as unknown as Record<string, Record<string, (...a: unknown[]) => unknown>>).a11y![name]!(...args),
    helper,
    args,
  ) as Promise<Awaited<ReturnType<Helpers[K]>>>
}

/** A violation list as a reader wants it in a failure message. */
function readable(violations: readonly Violation[]): string {
  return violations
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `    ${n.target}: ${n.summary.replace(/\s+/g, ' ')}`).join('\n')}`,
    )
    .join('\n')
}

/** Loads the page's helpers and axe-core, then asserts zero violations. */
async function noViolations(t: Test, page: Page, label: string): Promise<void> {
  await page.evaluate(AXE_SOURCE)
  await page.evaluate(IN_PAGE)
  const violations = await inPage(page, 'axe', AXE_TAGS)
  t.equal(violations.length, 0, `${label}: no axe-core violation\n${readable(violations)}`)
}

/** Whether the focused element's scroll offset leaves `before` within 3 s (keyboard scrolling is animated; CI is busy). */
async function scrolledFrom(page: Page, before: number): Promise<boolean> {
  for (let wait = 0; wait < 60; wait++) {
    if ((await inPage(page, 'scrollOffset')) !== before) return true
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return false
}

/** The role and name Chromium's accessibility tree gives the focused element. */
async function announcedAs(page: Page): Promise<{ role: string; name: string }> {
  const focused = await page.evaluateHandle('document.activeElement')
  try {
    const element = focused.asElement()
    const node = element && (await page.accessibility.snapshot({ root: element, interestingOnly: false }))
    return { role: node?.role ?? '', name: String(node?.name ?? '') }
  } finally {
    await focused.dispose()
  }
}

/**
 * Presses Tab from the top until focus leaves the page or comes round again,
 * pressing an arrow key in each scrollable region on the way, and asserts
 * every control and region was reached and nothing else was, and that each
 * region is announced as one, with a name.
 */
async function keyboardReachesAll(t: Test, page: Page, label: string): Promise<void> {
  const targets = await inPage(page, 'targets', CONTROLS)
  const reached = new Set<number>()
  const strays: string[] = []
  const unscrolled: string[] = []
  const unnamed: string[] = []
  for (let press = 0; press < targets.length + 3; press++) {
    await page.keyboard.press('Tab')
    const focused = await inPage(page, 'focused')
    if (focused === null || reached.has(focused.index)) break
    if (focused.index < 0) strays.push(focused.name)
    else reached.add(focused.index)
    if (focused.scrollKey !== null) {
      const announced = await announcedAs(page)
      if (announced.role !== 'region' || announced.name === '')
        unnamed.push(`${focused.name}: role ${announced.role}, name "${announced.name}"`)
      const before = await inPage(page, 'scrollOffset')
      await page.keyboard.press(focused.scrollKey)
      if (!(await scrolledFrom(page, before))) unscrolled.push(focused.name)
    }
  }
  const missed = targets.filter((_, i) => !reached.has(i))
  t.same(missed, [], `${label}: Tab reaches all ${targets.length} controls and scrollable regions`)
  t.same(strays, [], `${label}: Tab stops on nothing else`)
  t.same(unscrolled, [], `${label}: an arrow key scrolls each scrollable region`)
  t.same(unnamed, [], `${label}: a screen reader announces each scrollable region as a region with a name`)
}

/** Visits over 90 days: five countries (past the fixture's cap of three a day), three browsers. */
async function seedVisits(f: DashboardFixture, site_name: string): Promise<void> {
  const agents = [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
    'Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0',
  ]
  const now = f.clock.now().getTime()
  for (let d = 0; d < 90; d++) {
    const count = 6 + ((d * 7) % 11)
    for (let i = 0; i < count; i++) {
      await f.engine.recordVisit({
        site_name,
        at: new Date(now - d * 86_400_000 - i * 60_000),
        visitor_id: `visitor-${(d * 5 + i) % 40}`,
        user_agent: agents[i % agents.length]!,
        country: ['PT', 'ES', 'FR', 'US', 'JP'][i % 5]!,
        page_views: 1 + (i % 4),
      })
    }
    if (d % 3 === 0)
      await f.engine.recordActivity({ site_name, at: new Date(now - d * 86_400_000), kind: 'click_to_call' })
  }
}

/** Navigates as if a form on another site posted the sign-out: the dashboard refuses it. */
async function crossSiteSignOut(page: Page, url: string): Promise<number | undefined> {
  const forged = (request: HTTPRequest) =>
    request.isNavigationRequest()
      ? request.continue({ method: 'POST', headers: { ...request.headers(), origin: 'https://elsewhere.example' } })
      : request.continue()
  await page.setRequestInterception(true)
  page.on('request', forged)
  try {
    return (await page.goto(url))?.status()
  } finally {
    page.off('request', forged)
    await page.setRequestInterception(false)
  }
}

if (browser) {
  for (const [width, viewport] of Object.entries(VIEWPORTS)) {
    t.test(`${width} ${viewport.width}×${viewport.height}: every page passes axe-core and the keyboard`, async (t) => {
      const f = await dashboardFixture(t, { maxDimensionValues: 3 })
      const alice = f.engine.as('alice')
      await grantedSites(f, { quietsite: undefined })
      // A short address, as the demo's: axe-core judges a link "in a text block" when the text around it is longer.
      const site_business_info = { business_name: 'Harbour Café' }
      await alice.createSite({
        site_data: { site_name: 'harbourcafe', original_site_url: 'https://www.example.com/', site_business_info },
      })
      await alice.grantAccess('acc', 'harbourcafe')
      await alice.publishSite('harbourcafe')
      await alice.createAccount({ account_name: 'newcomer' })
      await seedVisits(f, 'harbourcafe')
      const context = await browser.createBrowserContext()
      t.teardown(() => context.close())
      const page = await context.newPage()
      await page.setViewport({ ...viewport, deviceScaleFactor: 1 })
      const dashboard = `${f.origin}/dashboard`

      /** Opens a page, checks its status and where it landed, then runs both checks on it. */
      const check = async (label: string, open: () => Promise<number | undefined>, status: number, path?: string) => {
        t.equal(await open(), status, `${label}: ${status}`)
        if (path !== undefined)
          t.equal(new URL(page.url()).pathname, `/dashboard${path}`, `${label}: landed on ${path}`)
        await noViolations(t, page, label)
        await keyboardReachesAll(t, page, label)
      }
      const go = (url: string) => async () => (await page.goto(url))?.status()

      await check('SSO link that does not work', go(`${dashboard}/sso?token=not-a-token`), 401)
      await check('not signed in', go(`${dashboard}/`), 401)
      await check('SSO landing: the sites list', go(await f.link('acc')), 200, '/')
      await check('site page, 30 days', go(`${dashboard}/sites/harbourcafe`), 200)
      await check('site page, 7 days', go(`${dashboard}/sites/harbourcafe?days=7`), 200)
      await check('site page, 90 days', go(`${dashboard}/sites/harbourcafe?days=90`), 200)
      await check('site page without visits, not published', go(`${dashboard}/sites/quietsite`), 200)
      await check(
        'SSO landing on a site (STATS)',
        go(await f.link('acc', '?target=STATS&site_name=harbourcafe')),
        200,
        '/sites/harbourcafe',
      )
      await check('site not available', go(`${dashboard}/sites/nosuchsite`), 404)
      await check('unknown path', go(`${dashboard}/nowhere`), 404)
      await check('period not offered', go(`${dashboard}/sites/harbourcafe?days=5`), 400)
      await check('GET on the sign-out address', go(`${dashboard}/logout`), 405)
      await check('sign-out from another site', () => crossSiteSignOut(page, `${dashboard}/logout`), 403)
      await check(
        'signed out',
        async () => {
          await page.goto(`${dashboard}/`)
          const [landed] = await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')])
          return landed?.status()
        },
        200,
        '/signed-out',
      )
      await check('the empty sites list', go(await f.link('newcomer')), 200, '/')
      f.clock.advance(43_201)
      await check('session expired', go(`${dashboard}/`), 401)
      await page.goto(await f.link('acc'))
      await f.engine.close()
      await check('store unavailable', go(`${dashboard}/sites/harbourcafe`), 503)
    })
  }
}
