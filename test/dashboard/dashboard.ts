/**
 * dashboardRouter over HTTP: the SSO landing and its cookie, the list of
 * granted sites, the site page and its numbers (equal to the analytics
 * API's), every error page, the headers every answer carries, escaping of
 * every field a page shows, tenancy whatever the URL says, and sign-out
 * (POST only, refused from another site).
 */
import express from 'express'
import request from 'supertest'
import t, { type Test } from 'tap'
import { createEngine, dashboardRouter } from '../../lib/index.js'
import { type DashboardFixture, dashboardFixture, grantedSites } from '../helpers/dashboard.js'

/** Every dashboard answer carries these, error pages included. */
function secureHeaders(t: Test, res: request.Response, label: string): void {
  const csp = String(res.headers['content-security-policy'] ?? '')
  t.match(csp, /default-src 'none'/, `${label}: CSP default-src 'none'`)
  t.match(csp, /frame-ancestors 'none'/, `${label}: frame-ancestors 'none'`)
  t.match(csp, /form-action 'self'/, `${label}: form-action 'self'`)
  t.notMatch(csp, /unsafe-inline|unsafe-eval|script-src/, `${label}: no script allowed at all`)
  t.equal(res.headers['cache-control'], 'no-store', `${label}: no-store`)
  t.equal(res.headers['x-content-type-options'], 'nosniff', `${label}: nosniff`)
  if (res.status !== 303) {
    t.match(res.headers['content-type'], /^text\/html; charset=utf-8/, `${label}: HTML`)
    // Text is escaped, so any '<' left starts real markup: no tag may carry a handler or a style.
    t.notMatch(res.text, /<script|<[^>]*\s(on[a-z]+|style)=/i, `${label}: no script, no handler, no inline style`)
  }
}

/** Numbers as pages print them ("1,234") back to numbers. */
const num = (text: string): number => Number(text.replace(/,/g, ''))

/** The daily table of a site page: day → [visits, unique, page views]. */
function dailyTable(page: string): Map<string, number[]> {
  const rows = new Map<string, number[]>()
  for (const m of page.matchAll(
    /<tr data-day="(\d{4}-\d{2}-\d{2})"><th scope="row">\1<\/th><td>([\d,]+)<\/td><td>([\d,]+)<\/td><td>([\d,]+)<\/td><\/tr>/g,
  )) {
    rows.set(m[1]!, [num(m[2]!), num(m[3]!), num(m[4]!)])
  }
  return rows
}

const stat = (page: string, id: string): number =>
  num(new RegExp(`id="${id}"><span class="label">[^<]*</span><span class="value">([\\d,]+)<`).exec(page)?.[1] ?? 'NaN')

async function visits(
  f: DashboardFixture,
  site_name: string,
  daysBack: number,
  perDay: (d: number) => number,
  extra: object = {},
): Promise<void> {
  const now = f.clock.now().getTime()
  for (let d = 0; d < daysBack; d++) {
    for (let i = 0; i < perDay(d); i++) {
      await f.engine.recordVisit({
        site_name,
        at: new Date(now - d * 86_400_000),
        visitor_id: `v${(d * 7 + i) % 13}`,
        page_views: 1 + (i % 3),
        ...extra,
      })
    }
  }
}

t.test('sign-in: 303 to the dashboard with the session cookie; STATS lands on the site', async (t) => {
  const f = await dashboardFixture(t)
  await grantedSites(f, { siteone: 'Cafe One' })
  const res = await f.http.get(`/dashboard/sso?token=${f.tokenOf(await f.link('acc'))}`)
  t.equal(res.status, 303)
  t.equal(res.headers.location, '/dashboard/')
  secureHeaders(t, res, 'sso')
  const cookies = res.headers['set-cookie'] as unknown as string[]
  t.equal(cookies.length, 1)
  t.match(
    cookies[0],
    /^mobisite_session=[A-Za-z0-9_-]{43}; Path=\/dashboard; Max-Age=43200; HttpOnly; SameSite=Lax$/,
    'exact cookie, no Secure on http',
  )

  const stats = await f.http.get(
    `/dashboard/sso?token=${f.tokenOf(await f.link('acc', '?target=STATS&site_name=siteone'))}`,
  )
  t.equal(stats.headers.location, '/dashboard/sites/siteone', 'STATS: the site page')
  const cookie = String(stats.headers['set-cookie']?.[0]).split(';')[0]!
  t.equal((await f.page('/', cookie)).status, 200, 'a STATS session is the account session: the list works too')
})

t.test('the cookie is Secure on HTTPS (trust proxy)', async (t) => {
  const f = await dashboardFixture(t, { trustProxy: true })
  await grantedSites(f, { siteone: undefined })
  const res = await f.http
    .get(`/dashboard/sso?token=${f.tokenOf(await f.link('acc'))}`)
    .set('X-Forwarded-Proto', 'https')
  t.match(res.headers['set-cookie']?.[0], /; HttpOnly; SameSite=Lax; Secure$/)
})

t.test('mounted elsewhere: the cookie path and the links follow the mount', async (t) => {
  const engine = createEngine()
  t.teardown(() => engine.close())
  await engine.addMasterAccount({ user: 'p', password: 'pw', partner: true })
  await engine.as('p').createAccount({ account_name: 'acc' })
  const app = express().use('/portal/stats', dashboardRouter(engine, { title: 'Acme Insights' }))
  const { url } = await engine.as('p').ssoLink('acc', {}, '/portal/stats')
  const res = await request(app).get(url)
  t.equal(res.headers.location, '/portal/stats/')
  t.match(res.headers['set-cookie']?.[0], /Path=\/portal\/stats;/)
  const page = await request(app)
    .get('/portal/stats/')
    .set('Cookie', String(res.headers['set-cookie']?.[0]).split(';')[0]!)
  t.equal(page.status, 200)
  t.match(page.text, /<a class="brand" href="\/portal\/stats\/">Acme Insights<\/a>/, 'white-label title')
  t.match(page.text, /action="\/portal\/stats\/logout"/)
  t.match(page.text, /href="\/portal\/stats\/assets\/dashboard\.css\?v=[0-9a-f]{12}"/)
  const css = await request(app).get(page.text.match(/href="(\/portal\/stats\/assets\/[^"]+)"/)![1]!)
  t.equal(css.status, 200)
  t.match(css.headers['content-type'], /^text\/css/)
  t.equal(css.headers['x-content-type-options'], 'nosniff')
  t.match(css.headers['cache-control'], /immutable/, 'the versioned stylesheet may be cached')
})

t.test('the dashboard lists the granted sites only, with what a customer needs', async (t) => {
  const f = await dashboardFixture(t)
  await grantedSites(f, { siteone: 'Cafe One', sitetwo: undefined })
  await f.engine
    .as('alice')
    .createSite({ site_data: { site_name: 'notshared', original_site_url: 'https://www.example.com/' } })
  await f.engine.as('alice').publishSite('siteone')
  const cookie = await f.signIn('acc')
  const res = await f.page('/', cookie)
  t.equal(res.status, 200)
  secureHeaders(t, res, 'sites')
  t.match(res.text, /Signed in as <strong>acc<\/strong>/)
  t.match(res.text, /<form method="post" action="\/dashboard\/logout">/, 'a sign-out form, no script')
  t.same(
    [...res.text.matchAll(/data-site="([^"]+)"/g)].map((m) => m[1]),
    ['siteone', 'sitetwo'],
    'granted sites, by name',
  )
  t.notMatch(res.text, /notshared/)
  t.match(res.text, /<a href="\/dashboard\/sites\/siteone">Cafe One<\/a>/, 'business name when set')
  t.match(res.text, /<a href="\/dashboard\/sites\/sitetwo">sitetwo<\/a>/, 'else the site name')
  t.match(res.text, /href="https:\/\/www\.siteone\.example\.com\/" rel="noopener noreferrer nofollow"/, 'desktop URL')
  t.match(res.text, /Published<\/span><span>Last published 2025-03-10 12:00:00 UTC/)
  t.match(res.text, /Not published/)

  await f.engine.as('alice').revokeAccess('acc', 'siteone')
  await f.engine.as('alice').revokeAccess('acc', 'sitetwo')
  const none = await f.page('/', cookie)
  t.match(none.text, /No sites have been shared with you yet/)
})

t.test('the site page: chart, table, totals, activities, top lists, all equal to the API', async (t) => {
  const f = await dashboardFixture(t)
  await grantedSites(f, { siteone: 'Cafe One' })
  const ua =
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1'
  await visits(f, 'siteone', 40, (d) => (d % 5) + 1, { country: 'JP', region: 'Tokyo', user_agent: ua })
  await visits(f, 'siteone', 10, (d) => d % 2, { country: 'FR' })
  for (let i = 0; i < 6; i++)
    await f.engine.recordVisit({
      site_name: 'siteone',
      visitor_id: `c${i}`,
      country: ['DE', 'US', 'BR', 'CA', 'MX', 'IT'][i],
    })
  for (const kind of ['click_to_call', 'click_to_call', 'click_to_map', 'form_submit'] as const)
    await f.engine.recordActivity({ site_name: 'siteone', kind })
  await f.engine.recordActivity({ site_name: 'siteone', kind: 'click_to_email', at: new Date(Date.UTC(2024, 0, 1)) })
  const cookie = await f.signIn('acc')

  for (const days of [7, 30, 90]) {
    const res = await f.page(`/sites/siteone${days === 30 ? '' : `?days=${days}`}`, cookie)
    t.equal(res.status, 200, `${days} days`)
    secureHeaders(t, res, `site page, ${days} days`)
    const table = dailyTable(res.text)
    t.equal(table.size, days, `one table row per day (${days})`)
    const today = new Date(Date.UTC(2025, 2, 10))
    const first = new Date(today.getTime() - (days - 1) * 86_400_000).toISOString().slice(0, 10)
    t.ok(table.has('2025-03-10') && table.has(first), `the last ${days} whole days including today`)
    t.notOk(table.has(new Date(today.getTime() - days * 86_400_000).toISOString().slice(0, 10)), 'and not one more')
    let checked = 0
    for (const [day, [v, u, p]] of table) {
      if (checked++ % 6 !== 0 && day !== '2025-03-10' && day !== first) continue
      const api = (await f.api('alice', `/analytics/site/siteone?from=${day}&to=${day}`)).body
      t.same([v, u, p], [api.VISITS, api.UNIQUE_VISITORS, api.PAGE_VIEWS], `${day} equals the API`)
    }
    const total = (await f.api('alice', `/analytics/site/siteone?from=${first}&to=2025-03-10`)).body
    t.same(
      [stat(res.text, 'total-visits'), stat(res.text, 'total-unique'), stat(res.text, 'total-views')],
      [total.VISITS, total.UNIQUE_VISITORS, total.PAGE_VIEWS],
      `${days}-day totals equal the API (unique: distinct over the period)`,
    )
    t.ok(
      total.UNIQUE_VISITORS < [...table.values()].reduce((s, r) => s + r[1]!, 0) || days === 7,
      'unique is not the sum of daily uniques',
    )
    const acts = (await f.api('alice', `/analytics/site/siteone?from=${first}&to=2025-03-10&result=activities`)).body
    t.same(
      [
        stat(res.text, 'act-calls'),
        stat(res.text, 'act-maps'),
        stat(res.text, 'act-emails'),
        stat(res.text, 'act-forms'),
      ],
      [acts.CLICK_TO_CALLS, acts.CLICK_TO_MAPS, acts.CLICK_TO_EMAILS, acts.FORM_SUBMITS],
      'activities equal the API',
    )
    const geo = (await f.api('alice', `/analytics/site/siteone?from=${first}&to=2025-03-10&dimension=geo`)).body as {
      data: { VISITS: number }
      dimension: { country: string }
    }[]
    const byCountry = new Map<string, number>()
    for (const row of geo)
      byCountry.set(row.dimension.country, (byCountry.get(row.dimension.country) ?? 0) + row.data.VISITS)
    const expected = [...byCountry].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 5)
    const shown = [
      ...res.text
        .split('id="top-countries"')[1]!
        .split('</table>')[0]!
        .matchAll(/<tr><td>([^<]+)<\/td><td>([\d,]+)<\/td><\/tr>/g),
    ].map((m) => [m[1], num(m[2]!)])
    t.same(shown, expected, 'top 5 countries: visits summed over regions, as the geo rows give them')
    const sys = (await f.api('alice', `/analytics/site/siteone?from=${first}&to=2025-03-10&dimension=system`)).body as {
      data: { VISITS: number }
      dimension: { browser: string }
    }[]
    const browsers = [
      ...res.text
        .split('id="top-browsers"')[1]!
        .split('</table>')[0]!
        .matchAll(/<tr><td>([^<]+)<\/td><td>([\d,]+)<\/td><\/tr>/g),
    ].map((m) => m[1])
    t.ok(
      browsers.length > 0 && browsers.every((b) => sys.some((row) => row.dimension.browser === b)),
      'top browsers come from the system rows',
    )
    t.equal(res.text.match(/role="img"/g)?.length, 2, 'two chart layouts, each an image')
    t.match(
      res.text,
      /<svg class="wide" viewBox="[^"]+" role="img" aria-label="Line chart of daily page views, visits and unique visitors from \d{4}-\d{2}-\d{2} to 2025-03-10: [^"]+"[^>]*><title>Daily traffic of Cafe One, last \d+ days<\/title>/,
    )
    t.equal(res.text.match(/<circle class="pt visits"/g)?.length, days * 2, 'one point per day per layout')
    t.match(
      res.text,
      new RegExp(`<a href="/dashboard/sites/siteone\\?days=${days}" aria-current="page">`),
      'the period is marked',
    )
  }
  t.same(f.errors, [])
})

t.test('days must be 7, 30 or 90: anything else is a 400 page', async (t) => {
  const f = await dashboardFixture(t)
  await grantedSites(f, { siteone: undefined })
  const cookie = await f.signIn('acc')
  for (const days of ['6', '8', '0', '31', '-7', '7.0', 'abc', '', '007', '90&days=7']) {
    const res = await f.page(`/sites/siteone?days=${days}`, cookie)
    t.equal(res.status, 400, `days=${days}`)
    secureHeaders(t, res, `days=${days}`)
    t.match(res.text, /days must be one of 7, 30, 90/)
    t.match(res.text, /Back to your sites/, 'signed in: a way back and sign-out')
  }
})

t.test(
  'error pages: no session, expired or ended session, deleted account → 401; revoked, deleted or foreign site → 404',
  async (t) => {
    const f = await dashboardFixture(t)
    await grantedSites(f, { siteone: undefined, sitetwo: undefined, sitethree: undefined })
    await f.engine.as('bob').createAccount({ account_name: 'bobacc' })
    await f.engine
      .as('bob')
      .createSite({ site_data: { site_name: 'bobsite', original_site_url: 'https://www.example.com/' } })
    await f.engine.as('bob').grantAccess('bobacc', 'bobsite')
    await f.engine
      .as('alice')
      .createSite({ site_data: { site_name: 'ungranted', original_site_url: 'https://www.example.com/' } })
    const cookie = await f.signIn('acc')
    const check = async (
      path: string,
      cookieValue: string | undefined,
      status: number,
      text: RegExp,
      label: string,
    ) => {
      const res = await f.page(path, cookieValue)
      t.equal(res.status, status, `${label}: ${status}`)
      secureHeaders(t, res, label)
      t.match(res.text, text, `${label}: says why`)
      t.notMatch(
        res.text,
        /bobsite/.test(path) ? /Bob|bobacc/ : /bobsite/,
        `${label}: shows nothing of another partner`,
      )
      return res
    }
    await check('/', undefined, 401, /not signed in/, 'no cookie')
    await check('/sites/siteone', undefined, 401, /not signed in/, 'no cookie, site page')
    const junk = await check('/', 'mobisite_session=junk', 401, /session has ended/, 'a cookie that is no session')
    t.match(
      junk.headers['set-cookie']?.[0],
      /^mobisite_session=; Path=\/dashboard; Max-Age=0/,
      'and the browser is told to forget it',
    )
    await check('/', 'mobisite_session=' + 'A'.repeat(43), 401, /session has ended/, 'a well-formed unknown session')
    await check('/sso', undefined, 401, /not valid/, 'sso without a token')
    await check('/sso?token=', undefined, 401, /not valid/, 'sso with an empty token')
    await check('/sso?token=a&token=b', undefined, 401, /not valid/, 'sso with two tokens')

    await check('/sites/bobsite', cookie, 404, /not available/, "another partner's site")
    await check('/sites/ungranted', cookie, 404, /not available/, 'a site of the same partner, not granted')
    await check('/sites/nosuchsite', cookie, 404, /not available/, 'a missing site')
    await check('/sites/SITEONE', cookie, 404, /not available/, 'names are exact')
    await check('/sites/%2e%2e%2fbobsite', cookie, 404, /not available/, 'encoded traversal')
    await check('/sites/bob%00site', cookie, 404, /not available/, 'NUL')
    await check('/sites/%E0%A4%A', cookie, 400, /not valid/, 'bad percent-encoding')
    await check('/sites/siteone/extra', cookie, 404, /no page/, 'a path below a site')
    await check('/nothing/here', cookie, 404, /no page/, 'an unknown path')

    t.equal((await f.page('/sites/siteone', cookie)).status, 200, 'granted: 200')
    await f.engine.as('alice').revokeAccess('acc', 'siteone')
    await check('/sites/siteone', cookie, 404, /not available/, 'grant revoked: next load')
    t.notMatch((await f.page('/', cookie)).text, /data-site="siteone"/, 'and gone from the list')
    await f.engine.as('alice').deleteSite('sitetwo')
    await check('/sites/sitetwo', cookie, 404, /not available/, 'site deleted: next load')
    await f.engine
      .as('alice')
      .createSite({ site_data: { site_name: 'sitetwo', original_site_url: 'https://www.example.com/' } })
    await check('/sites/sitetwo', cookie, 404, /not available/, 'a site re-created under the name is not granted')

    await f.engine.as('alice').deleteAccount('acc')
    await check('/sites/sitethree', cookie, 401, /no longer exists/, 'account deleted')
    t.same(f.errors, [])
  },
)

t.test('an address nothing serves: a page for a browser, the JSON error body for a program', async (t) => {
  const f = await dashboardFixture(t)
  const page = await f.page('/nothing/here')
  t.equal(page.status, 404)
  t.match(page.headers['content-type'], /^text\/html/, 'a browser gets the 404 page')
  for (const accept of [undefined, '*/*', 'application/json', 'text/htmlx', 'application/xhtml+xml']) {
    const req = f.http.get('/dashboard/nothing/here')
    const res = await (accept === undefined ? req : req.set('Accept', accept))
    const label = `Accept: ${accept ?? '(none)'}`
    t.equal(res.status, 404, `${label}: 404`)
    t.match(res.headers['content-type'], /^application\/json/, `${label}: JSON`)
    t.same(
      res.body,
      { error_code: 'NotFound', message: 'There is no page at this address.' },
      `${label}: the error body`,
    )
    t.equal(res.headers['cache-control'], 'no-store', `${label}: no-store`)
    t.equal(res.headers['x-content-type-options'], 'nosniff', `${label}: nosniff`)
  }
  const wrongMethod = await f.http.put('/dashboard/sites/siteone').send({})
  t.equal(wrongMethod.status, 405, 'a known page, another method: 405')
  t.equal(wrongMethod.headers.allow, 'GET, HEAD')
  t.same(wrongMethod.body, { error_code: 'MethodNotAllowed', message: 'This address does not accept PUT requests.' })
})

t.test('sign-out: POST only, same-site only; it ends the session in the store', async (t) => {
  const f = await dashboardFixture(t, { dashboard: { allowedOrigins: ['https://partner.example.com', 'null'] } })
  await grantedSites(f, { siteone: undefined })
  const cookie = await f.signIn('acc')
  const logout = () => f.http.post('/dashboard/logout').set('Cookie', cookie)

  const get = await f.page('/logout', cookie)
  t.equal(get.status, 405, 'GET /logout: 405')
  t.equal(get.headers.allow, 'POST')
  secureHeaders(t, get, 'GET logout')
  const postRoot = await f.http.post('/dashboard/').set('Cookie', cookie)
  t.equal(postRoot.status, 405)
  t.equal(postRoot.headers.allow, 'GET, HEAD')

  for (const [headers, label] of [
    [{ 'Sec-Fetch-Site': 'cross-site' }, 'Sec-Fetch-Site cross-site'],
    [{ 'Sec-Fetch-Site': 'same-site' }, 'Sec-Fetch-Site same-site'],
    [{ Origin: 'https://evil.example.com' }, 'a foreign Origin'],
    [{ Origin: 'null' }, 'Origin null (even if listed)'],
    [{ Origin: `${f.origin}.evil.com` }, 'an Origin that only starts like ours'],
  ] as const) {
    const res = await logout().set(headers)
    t.equal(res.status, 403, `${label}: 403`)
    secureHeaders(t, res, label)
    t.notOk(res.headers['set-cookie'], `${label}: the cookie stays`)
    t.equal((await f.page('/', cookie)).status, 200, `${label}: the session lives on`)
  }
  t.equal(
    (await logout().set('Origin', 'https://Partner.example.com').set('Sec-Fetch-Site', 'cross-site')).status,
    303,
    "a listed origin may sign out (a partner's own button)",
  )
  t.equal((await f.page('/', cookie)).status, 401, 'which ended the session')

  const again = await f.signIn('acc')
  const res = await f.http
    .post('/dashboard/logout')
    .set('Cookie', again)
    .set('Origin', f.origin)
    .set('Sec-Fetch-Site', 'same-origin')
  t.equal(res.status, 303, 'same origin: 303')
  t.equal(res.headers.location, '/dashboard/signed-out')
  t.match(
    res.headers['set-cookie']?.[0],
    /^mobisite_session=; Path=\/dashboard; Max-Age=0; HttpOnly; SameSite=Lax$/,
    'the cookie is cleared',
  )
  const ended = await f.page('/', again)
  t.equal(ended.status, 401, 'the old cookie no longer works')
  t.match(ended.text, /session has ended/)
  const out = await f.page('/signed-out')
  t.equal(out.status, 200)
  secureHeaders(t, out, 'signed out')
  t.match(out.text, /You have signed out/)
  t.equal((await f.http.post('/dashboard/logout')).status, 303, 'signing out without a session is harmless')
})

t.test('escaping: hostile values in every field a page shows', async (t) => {
  const f = await dashboardFixture(t)
  const hostile = `<script>alert(1)</script>"'><img src=x onerror=alert(2)>&amp;\``
  const url = "https://www.example.com/?q='onmouseover=alert(3)&x=`y`"
  const api = f.engine.as('alice')
  await api.createAccount({ account_name: 'o.hara+x@example.com' })
  await api.createSite({
    site_data: { site_name: 'hostile', original_site_url: url, site_business_info: { business_name: hostile } },
  })
  await api.grantAccess('o.hara+x@example.com', 'hostile')
  await f.engine.recordVisit({
    site_name: 'hostile',
    visitor_id: 'v',
    country: hostile,
    region: hostile,
    user_agent: `${hostile}/1.0 ${hostile}`,
  })
  const cookie = await f.signIn('o.hara+x@example.com')
  for (const path of [
    '/',
    '/sites/hostile',
    '/sites/hostile?days=7',
    '/sites/%3Cscript%3E',
    `/sites/hostile?days=${encodeURIComponent(hostile)}`,
  ]) {
    const res = await f.page(path, cookie)
    t.notMatch(res.text, /<script|<img|<[^>]*\son[a-z]+=|'onmouseover/i, `${path}: nothing became markup`)
    // Account names allow only letters, digits and "@ . _ + -": nothing to escape, but shown.
    if (res.status === 200)
      t.match(res.text, /Signed in as <strong>o\.hara\+x@example\.com<\/strong>/, `${path}: the account name is shown`)
    secureHeaders(t, res, path)
  }
  const list = (await f.page('/', cookie)).text
  t.match(
    list,
    /&lt;script&gt;alert\(1\)&lt;\/script&gt;&quot;&#39;&gt;&lt;img src=x onerror=alert\(2\)&gt;&amp;amp;&#96;/,
    'business name shown, escaped',
  )
  t.match(
    list,
    /href="https:\/\/www\.example\.com\/\?q=&#39;onmouseover=alert\(3\)&amp;x=&#96;y&#96;"/,
    'URL escaped inside the attribute',
  )
  const page = (await f.page('/sites/hostile', cookie)).text
  t.match(page, /<td>&lt;script&gt;alert\(1\)&lt;\/script&gt;/, 'the country is shown, escaped')
  t.match(page, /<title>&lt;script&gt;/, 'the page title is escaped')
  t.match(page, /<svg class="wide"[^>]*><title>Daily traffic of &lt;script&gt;/, 'the chart title is escaped')
  const missing = await f.page('/sites/%3Cscript%3Ealert(1)%3C%2Fscript%3E', cookie)
  t.equal(missing.status, 404)
  t.match(
    missing.text,
    /site &lt;script&gt;alert\(1\)&lt;\/script&gt; is not available/,
    'a name from the URL is escaped in the error page',
  )
})

t.test('HEAD works like GET; a store outage is a 503 page', async (t) => {
  const f = await dashboardFixture(t)
  await grantedSites(f, { siteone: undefined })
  const cookie = await f.signIn('acc')
  const head = await f.http.head('/dashboard/').set('Cookie', cookie)
  t.equal(head.status, 200)
  t.equal(head.headers['cache-control'], 'no-store')
  await f.engine.close()
  const down = await f.page('/', cookie)
  t.equal(down.status, 503)
  secureHeaders(t, down, 'store down')
  t.match(down.text, /store is unavailable/)
  t.same(f.errors, [], 'an outage is not an unexpected error')
})

t.test('the site page shows values past the cap as "(other)"', async (t) => {
  const f = await dashboardFixture(t, { maxDimensionValues: 1 })
  await grantedSites(f, { siteone: undefined })
  for (const country of ['FR', 'JP', 'BR']) {
    await f.engine.recordVisit({ site_name: 'siteone', visitor_id: `v-${country}`, country })
  }
  const cookie = await f.signIn('acc')
  const res = await f.page('/sites/siteone', cookie)
  t.equal(res.status, 200)
  const countries = res.text.split('id="top-countries"')[1]!.split('</table>')[0]!
  t.match(countries, /<tr class="other"><td title="[^"]+">\(other\) <small>[^<]+<\/small><\/td><td>2<\/td><\/tr>/)
  t.match(countries, /<tr><td>FR<\/td><td>1<\/td><\/tr>/, 'the first value keeps its own row')
})
