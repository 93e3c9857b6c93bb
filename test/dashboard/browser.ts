/**
 * The SSO flow as a person meets it, in Chromium with JavaScript OFF: a
 * partner creates a sub-account and a site over HTTP, grants it, visits are
 * recorded over 30 days, the partner gets an SSO link over HTTP; the browser
 * opens it, lands on the dashboard, sees the site, opens its page and reads
 * the chart's numbers from the table and from the SVG, which must equal the
 * analytics API's. Then: the token reused, a token expired (the engine's
 * clock moved), the grant revoked, sign-out. Screenshots of both pages on a
 * phone (390×844) and a desktop (1280×800) viewport are saved in the test's
 * output directory (.tap/fixtures/...), and the desktop site page is copied
 * to docs/ for docs/dashboard.md when DASHBOARD_SCREENSHOTS=docs.
 *
 * Without Chromium the file skips and says so (see test/helpers/browser.ts).
 */
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import t from 'tap'
import { createEngine, startServer } from '../../lib/index.js'
import { FakeClock } from '../helpers/api.js'
import { browserOrSkip } from '../helpers/browser.js'

const browser = await browserOrSkip(t, 'dashboard browser test')

// What the functions run inside the page use; the project compiles without the DOM library.
declare const getComputedStyle: (element: unknown) => { display: string; backgroundColor: string }
declare const document: { body: unknown }

const VIEWPORTS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const
const BUSINESS = 'Harbour Café'
const UAS = [
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
]

if (browser) {
  t.test('the SSO flow in Chromium, JavaScript off', async (t) => {
    // Monday noon; the period ends today, so 30 days of data fill the default view.
    const clock = new FakeClock('2025-03-10T12:00:00')
    const engine = createEngine({ now: clock.now })
    await engine.addMasterAccount({ user: 'partner', password: 'partner-secret', partner: true })
    const server = await startServer({ engine })
    t.teardown(async () => {
      await server.close()
      await engine.close()
    })
    const auth = `Basic ${Buffer.from('partner:partner-secret').toString('base64')}`
    // biome-ignore lint/suspicious/noExplicitAny: JSON answers of the API, checked field by field
    const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
      const res = await fetch(`${server.url}/api${path}`, {
        method,
        headers: { authorization: auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      return { status: res.status, body: res.status === 204 ? undefined : await res.json() }
    }
    const link = async (query = '') => {
      const res = await api('GET', `/accounts/sso/maria@example.com/link${query}`)
      t.equal(res.status, 200, `SSO link${query}: 200`)
      return res.body.url as string
    }

    // The partner's side, over HTTP.
    t.equal(
      (await api('POST', '/accounts/create', { account_name: 'maria@example.com', first_name: 'Maria' })).status,
      204,
    )
    const site = {
      site_name: 'harbourcafe',
      original_site_url: 'https://www.harbour-cafe.example/',
      site_business_info: { business_name: BUSINESS },
    }
    t.equal((await api('POST', '/sites/create', { site_data: site, publish_now: true })).status, 200)
    t.equal((await api('POST', '/accounts/grant-access/maria@example.com/sites/harbourcafe')).status, 204)
    // 30 days of visits: a weekly rhythm, returning visitors, two browsers, four countries.
    const today = Date.UTC(2025, 2, 10)
    for (let d = 0; d < 30; d++) {
      const day = today - d * 86_400_000
      const count = 10 + ((d * 7) % 13) + (new Date(day).getUTCDay() % 6 === 0 ? 15 : 0)
      for (let i = 0; i < count; i++) {
        await engine.recordVisit({
          site_name: 'harbourcafe',
          at: new Date(day + i * 60_000),
          // Some visitors come twice a day, some on other days: daily and period uniques differ from visits.
          visitor_id: `visitor-${(d * 5 + (i % Math.ceil(count * 0.7))) % 60}`,
          user_agent: UAS[i % 2]!,
          country: ['PT', 'ES', 'FR', 'US'][i % 4]!,
          page_views: 1 + (i % 4),
        })
      }
      if (d % 3 === 0)
        await engine.recordActivity({ site_name: 'harbourcafe', at: new Date(day), kind: 'click_to_call' })
    }

    const shots = t.testdirName
    t.saveFixture = true
    t.testdir({})
    const refused: string[] = []
    const contextFor = async (viewport: (typeof VIEWPORTS)[keyof typeof VIEWPORTS]): Promise<BrowserContext> => {
      const context = await browser.newContext({ viewport, javaScriptEnabled: false, deviceScaleFactor: 1 })
      context.on('console', (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text())
      })
      return context
    }

    /** The daily table: day → [visits, unique, page views]. */
    const readTable = (page: Page) =>
      page.$$eval('#daily tbody tr', (rows) =>
        rows.map((row) => [
          row.getAttribute('data-day'),
          ...[...row.querySelectorAll('td')].map((td) => Number(td.textContent!.replace(/,/g, ''))),
        ]),
      ) as Promise<[string, number, number, number][]>

    /**
     * The visible chart, read as a person would: each point's height against
     * the y axis (its tick labels), and the value the point carries.
     */
    const readChart = (page: Page) =>
      page.$$eval('.chart svg', (svgs) => {
        const svg = svgs.find((s) => getComputedStyle(s).display !== 'none')!
        const ticks = [...svg.querySelectorAll('.axis text[data-tick]')].map((el) => ({
          value: Number(el.getAttribute('data-tick')),
          y: Number(el.getAttribute('y')) - 4,
        }))
        const zero = ticks.find((tick) => tick.value === 0)!
        const top = ticks.reduce((a, b) => (b.value > a.value ? b : a))
        const valueAt = (cy: number) => ((zero.y - cy) / (zero.y - top.y)) * top.value
        return {
          layout: svg.getAttribute('class'),
          label: svg.getAttribute('aria-label'),
          role: svg.getAttribute('role'),
          title: svg.querySelector(':scope > title')?.textContent,
          width: svg.getBoundingClientRect().width,
          days: [...svg.querySelectorAll('g.day')].map((g) => ({
            day: g.getAttribute('data-day'),
            tooltip: g.querySelector('title')?.textContent,
            points: Object.fromEntries(
              [...g.querySelectorAll('circle')].map((c) => [
                c.getAttribute('data-series'),
                { value: Number(c.getAttribute('data-value')), read: valueAt(Number(c.getAttribute('cy'))) },
              ]),
            ),
          })),
        }
      })

    for (const [name, viewport] of Object.entries(VIEWPORTS)) {
      await t.test(
        `${name} ${viewport.width}×${viewport.height}: link → dashboard → site page, numbers equal the API`,
        async (t) => {
          const context = await contextFor(viewport)
          t.teardown(() => context.close())
          const page = await context.newPage()
          const url = await link()
          const landing = await page.goto(url)
          t.equal(page.url(), `${server.url}/dashboard/`, 'landed on the dashboard (after the 303)')
          t.equal(landing?.status(), 200)
          const cookie = (await context.cookies()).find((c) => c.name === 'mobisite_session')
          t.ok(cookie, 'the session cookie is set')
          t.equal(cookie?.httpOnly, true, 'HttpOnly')
          t.equal(cookie?.sameSite, 'Lax', 'SameSite=Lax')
          t.equal(cookie?.path, '/dashboard', 'Path=/dashboard')
          t.match(await page.textContent('.who'), 'maria@example.com', 'the account is named')
          const card = page.locator('li.site', { hasText: BUSINESS })
          t.equal(await card.count(), 1, 'the granted site is listed by its business name')
          t.match(await card.textContent(), /harbourcafe[\s\S]*https:\/\/www\.harbour-cafe\.example\/[\s\S]*Published/)
          t.not(
            await page.evaluate(() => getComputedStyle(document.body).backgroundColor),
            'rgba(0, 0, 0, 0)',
            'the stylesheet applied',
          )
          await page.screenshot({ path: join(shots, `${name}-dashboard.png`), fullPage: true })

          await card.locator('a.open').click()
          t.equal(page.url(), `${server.url}/dashboard/sites/harbourcafe`)
          t.equal(await page.textContent('h1'), BUSINESS)
          const table = await readTable(page)
          t.equal(table.length, 30, '30 rows: the default period')
          const chart = await readChart(page)
          t.equal(chart.layout, name === 'phone' ? 'compact' : 'wide', `the ${name} layout is the one shown`)
          t.equal(chart.role, 'img')
          t.match(
            chart.label,
            /^Line chart of daily page views, visits and unique visitors from 2025-02-09 to 2025-03-10: [\d,]+ visits in total/,
          )
          t.equal(chart.title, `Daily traffic of ${BUSINESS}, last 30 days`)
          t.ok(chart.width >= viewport.width * 0.75, `the chart spans the page (${Math.round(chart.width)} px)`)
          t.equal(chart.days.length, 30)
          let mismatches = 0
          for (const [day, visits, unique, views] of table) {
            const point = chart.days.find((d) => d.day === day)
            const fromApi = (await api('GET', `/analytics/site/harbourcafe?from=${day}&to=${day}`)).body
            const expected = {
              visits: fromApi.VISITS,
              unique_visitors: fromApi.UNIQUE_VISITORS,
              page_views: fromApi.PAGE_VIEWS,
            }
            const ok =
              visits === expected.visits &&
              unique === expected.unique_visitors &&
              views === expected.page_views &&
              Object.entries(expected).every(
                ([series, value]) =>
                  point?.points[series]?.value === value && Math.abs(point!.points[series]!.read - value) < 0.05,
              ) &&
              point?.tooltip ===
                `${point?.tooltip?.split(':')[0] ?? ''}: ${visits} visits, ${unique} unique visitors, ${views} page views`
            if (!ok) {
              mismatches++
              t.fail(
                `${day}: table ${[visits, unique, views]}, chart ${JSON.stringify(point?.points)}, API ${JSON.stringify(expected)}`,
              )
            }
          }
          t.equal(mismatches, 0, 'every day: table = SVG point values = SVG point heights on the axis = the API')
          const total = (await api('GET', '/analytics/site/harbourcafe?from=2025-02-09&to=2025-03-10')).body
          const shown = await page.$$eval('.stats .value', (els) =>
            els.map((el) => Number(el.textContent!.replace(/,/g, ''))),
          )
          t.same(
            shown,
            [total.VISITS, total.UNIQUE_VISITORS, total.PAGE_VIEWS],
            'totals equal the API (unique visitors distinct over 30 days)',
          )
          const calls = (
            await api('GET', '/analytics/site/harbourcafe?from=2025-02-09&to=2025-03-10&result=activities')
          ).body.CLICK_TO_CALLS
          t.equal(Number(await page.textContent('#act-calls .value')), calls, 'click-to-call total equals the API')
          t.same(
            await page.$$eval('#top-countries tbody td:first-child', (els) => els.map((el) => el.textContent)),
            ['PT', 'ES', 'FR', 'US'],
            'top countries',
          )
          await page.screenshot({ path: join(shots, `${name}-site.png`), fullPage: true })
          await page.locator('.chart svg:visible').screenshot({ path: join(shots, `${name}-chart.png`) })

          await page.click('nav.periods a:has-text("7 days")')
          t.equal(page.url(), `${server.url}/dashboard/sites/harbourcafe?days=7`)
          t.equal((await readTable(page)).length, 7, '7 days: 7 rows')
        },
      )
    }

    await t.test('the token cannot be reused; an expired token is refused', async (t) => {
      const context = await contextFor(VIEWPORTS.desktop)
      t.teardown(() => context.close())
      const page = await context.newPage()
      const url = await link('?target=STATS&site_name=harbourcafe')
      t.equal((await page.goto(url))?.status(), 200)
      t.equal(page.url(), `${server.url}/dashboard/sites/harbourcafe`, 'a STATS link lands on the site page')
      await context.clearCookies()
      const reused = await page.goto(url)
      t.equal(reused?.status(), 401, 'the same link again: 401')
      t.match(await page.textContent('h1'), 'This sign-in link does not work')
      t.same(await context.cookies(), [], 'and no cookie')

      const late = await link()
      clock.advance(121)
      const expired = await page.goto(late)
      t.equal(expired?.status(), 401, 'opened 121 s later on the engine clock: 401')
      t.match(await page.textContent('main'), /unknown, has expired, or was already used/)
      t.same(await context.cookies(), [])
    })

    await t.test('a revoked grant shows a 404 page on the next load, then sign-out ends the session', async (t) => {
      const context = await contextFor(VIEWPORTS.desktop)
      t.teardown(() => context.close())
      const page = await context.newPage()
      await page.goto(await link())
      await page.click('a.open')
      t.equal(page.url(), `${server.url}/dashboard/sites/harbourcafe`)
      t.equal((await api('POST', '/accounts/revoke-access/maria@example.com/sites/harbourcafe')).status, 204)
      const gone = await page.reload()
      t.equal(gone?.status(), 404, 'reload after revoke: 404')
      t.match(await page.textContent('main'), /harbourcafe is not available/)
      await page.click('text=Back to your sites')
      t.match(await page.textContent('main'), /No sites have been shared with you yet/, 'the list is empty now')
      t.equal((await api('POST', '/accounts/grant-access/maria@example.com/sites/harbourcafe')).status, 204)

      await page.click('button:has-text("Sign out")')
      t.equal(page.url(), `${server.url}/dashboard/signed-out`, 'sign-out (a form POST) lands on the signed-out page')
      t.match(await page.textContent('h1'), 'You have signed out')
      t.notOk(
        (await context.cookies()).some((c) => c.name === 'mobisite_session'),
        'the cookie is gone',
      )
      const after = await page.goto(`${server.url}/dashboard/`)
      t.equal(after?.status(), 401, 'the dashboard now asks for a sign-in')
      t.match(await page.textContent('main'), /not signed in/)
    })

    await t.test('no page broke its Content-Security-Policy', async (t) => {
      t.same(refused, [])
      if (process.env.DASHBOARD_SCREENSHOTS === 'docs') {
        copyFileSync(join(shots, 'desktop-site.png'), new URL('../../docs/dashboard-site.png', import.meta.url))
        copyFileSync(join(shots, 'phone-site.png'), new URL('../../docs/dashboard-site-phone.png', import.meta.url))
        copyFileSync(join(shots, 'desktop-dashboard.png'), new URL('../../docs/dashboard-sites.png', import.meta.url))
      }
      t.comment(`screenshots in ${shots}`)
    })
  })
}
