/**
 * Analytics through the public API: recording in-process, then Get Site
 * Analytics and Get Sites with Most Traffic over HTTP, on an injected clock.
 */
import { checkedRequest } from '../helpers/openapi-check.js'
import t, { type Test } from 'tap'
import UAParser from 'ua-parser-js'
import UserAgent from 'user-agents'
import { ServiceError, createEngine, startServer } from '../../lib/index.js'

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1'
const ANDROID =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36'
const PASSWORDS: Record<string, string> = { alice: 'alice:secret', bob: 'bob-secret' }
const TRAFFIC_KEYS = ['PAGE_VIEWS', 'UNIQUE_VISITORS', 'VISITS']
const ACTIVITY_KEYS = ['CLICK_TO_CALLS', 'CLICK_TO_EMAILS', 'CLICK_TO_MAPS', 'FORM_SUBMITS']

/** `YYYY-MM-DDThh:mm:ss` UTC as a Date. */
const utc = (s: string): Date => new Date(`${s.length === 10 ? `${s}T12:00:00` : s}Z`)

async function setup(t: Test) {
  const clock = { now: utc('2025-03-10T12:00:00') }
  const built: string[] = []
  const engine = createEngine({ now: () => clock.now, builder: async (site) => void built.push(site.site_name) })
  await engine.addMasterAccount({ user: 'alice', password: PASSWORDS.alice!, partner: true })
  await engine.addMasterAccount({ user: 'bob', password: PASSWORDS.bob! })
  const server = await startServer({ engine })
  t.teardown(async () => {
    await server.close()
    await engine.close()
  })
  const http = checkedRequest(server.url)
  return {
    engine,
    clock,
    built,
    get: (user: string, path: string) => http.get(`/api${path}`).auth(user, PASSWORDS[user]!),
    anon: (path: string) => http.get(`/api${path}`),
    site: async (user: string, site_name: string, extra: object = {}) =>
      (
        await engine
          .as(user)
          .createSite({ site_data: { site_name, original_site_url: 'https://www.example.com' }, ...extra })
      ).site_name,
  }
}

t.test('traffic and activities, with and without a dimension', async (t) => {
  const { engine, get, site } = await setup(t)
  await site('alice', 'shopsite')
  await site('alice', 'emptysite')
  const visit = (
    visitor_id: string,
    user_agent: string,
    country: string | undefined,
    region: string | undefined,
    page_views: number,
    day: string,
  ) => engine.recordVisit({ site_name: 'shopsite', visitor_id, user_agent, country, region, page_views, at: utc(day) })
  await visit('v1', IPHONE, 'JP', 'Tokyo', 3, '2025-03-01')
  await visit('v1', IPHONE, 'JP', 'Tokyo', 1, '2025-03-02')
  await visit('v2', ANDROID, 'US', undefined, 2, '2025-03-02')
  await visit('v3', ANDROID, 'JP', 'Tokyo', 1, '2025-03-09')
  for (const kind of ['click_to_call', 'click_to_call', 'form_submit'] as const) {
    await engine.recordActivity({
      site_name: 'shopsite',
      kind,
      user_agent: IPHONE,
      country: 'JP',
      region: 'Tokyo',
      at: utc('2025-03-03'),
    })
  }
  await engine.recordActivity({ site_name: 'shopsite', kind: 'click_to_map' })

  const plain = await get('alice', '/analytics/site/shopsite')
  t.equal(plain.status, 200)
  t.strictSame(plain.body, { UNIQUE_VISITORS: 3, VISITS: 4, PAGE_VIEWS: 7 })
  t.strictSame(Object.keys(plain.body).sort(), TRAFFIC_KEYS, 'exactly the traffic members')
  t.strictSame(
    (await get('alice', '/analytics/site/shopsite?result=traffic')).body,
    plain.body,
    'traffic is the default result',
  )
  t.strictSame(await engine.as('alice').siteAnalytics('shopsite'), plain.body, 'in-process gives the same')

  t.strictSame((await get('alice', '/analytics/site/shopsite?dimension=system')).body, [
    { data: { UNIQUE_VISITORS: 2, VISITS: 2, PAGE_VIEWS: 3 }, dimension: { browser: 'Chrome 120', os: 'Android' } },
    { data: { UNIQUE_VISITORS: 1, VISITS: 2, PAGE_VIEWS: 4 }, dimension: { browser: 'Mobile Safari 17', os: 'iOS' } },
  ])
  t.strictSame((await get('alice', '/analytics/site/shopsite?dimension=geo&result=traffic')).body, [
    { data: { UNIQUE_VISITORS: 2, VISITS: 3, PAGE_VIEWS: 5 }, dimension: { country: 'JP', region: 'Tokyo' } },
    { data: { UNIQUE_VISITORS: 1, VISITS: 1, PAGE_VIEWS: 2 }, dimension: { country: 'US', region: 'Unknown' } },
  ])

  const acts = await get('alice', '/analytics/site/shopsite?result=activities')
  t.strictSame(acts.body, { CLICK_TO_EMAILS: 0, FORM_SUBMITS: 1, CLICK_TO_MAPS: 1, CLICK_TO_CALLS: 2 })
  t.strictSame(Object.keys(acts.body).sort(), ACTIVITY_KEYS, 'exactly the activity members')
  t.strictSame(
    (await get('alice', '/analytics/site/shopsite?result=activities&dimension=system')).body,
    [
      {
        data: { CLICK_TO_EMAILS: 0, FORM_SUBMITS: 1, CLICK_TO_MAPS: 0, CLICK_TO_CALLS: 2 },
        dimension: { browser: 'Mobile Safari 17', os: 'iOS' },
      },
      {
        data: { CLICK_TO_EMAILS: 0, FORM_SUBMITS: 0, CLICK_TO_MAPS: 1, CLICK_TO_CALLS: 0 },
        dimension: { browser: 'Unknown', os: 'Unknown' },
      },
    ],
    'an activity without a User-Agent is Unknown',
  )
  t.strictSame(
    (await get('alice', '/analytics/site/shopsite?result=activities&dimension=geo')).body.map(
      (r: { dimension: unknown }) => r.dimension,
    ),
    [
      { country: 'JP', region: 'Tokyo' },
      { country: 'Unknown', region: 'Unknown' },
    ],
  )

  t.strictSame(
    (await get('alice', '/analytics/site/emptysite')).body,
    { UNIQUE_VISITORS: 0, VISITS: 0, PAGE_VIEWS: 0 },
    'no traffic: zeros',
  )
  t.strictSame((await get('alice', '/analytics/site/emptysite?result=activities')).body, {
    CLICK_TO_EMAILS: 0,
    FORM_SUBMITS: 0,
    CLICK_TO_MAPS: 0,
    CLICK_TO_CALLS: 0,
  })
  t.strictSame(
    (await get('alice', '/analytics/site/emptysite?dimension=geo')).body,
    [],
    'no traffic, a dimension: no rows',
  )
})

t.test('the three period rules follow the injected clock', async (t) => {
  const { engine, clock, get, site } = await setup(t)
  await site('alice', 'periods')
  // One visit per day, each by a new visitor, with the day's number as page views: sums name the days.
  const days = ['2025-01-20', '2025-01-21', '2025-02-07', '2025-02-08', '2025-03-10', '2025-03-11']
  for (const [i, day] of days.entries())
    await engine.recordVisit({ site_name: 'periods', visitor_id: `v${i}`, at: utc(day), page_views: 1 << i })
  const pages = async (query: string) => {
    const res = await get('alice', `/analytics/site/periods${query}`)
    t.equal(res.status, 200, query)
    return res.body.PAGE_VIEWS as number
  }
  const sum = (...picked: string[]) => picked.reduce((total, day) => total + (1 << days.indexOf(day)), 0)
  t.equal(
    await pages(''),
    sum('2025-02-08', '2025-03-10'),
    'neither: the past 30 days up to now (2025-02-08T12:00 .. 2025-03-10T12:00)',
  )
  t.equal(await pages('?from=2025-02-01'), sum('2025-02-07', '2025-02-08', '2025-03-10'), 'only from: from until today')
  t.equal(
    await pages('?to=2025-02-20'),
    sum('2025-01-21', '2025-02-07', '2025-02-08'),
    'only to: 30 days before to, until to',
  )
  t.equal(await pages('?from=2025-03-10&to=2025-03-11'), sum('2025-03-10', '2025-03-11'), 'both, ends included')
  t.equal(
    await pages('?from=2025-02-08T23:59:59&to=2025-02-08T23:59:59'),
    sum('2025-02-08'),
    'a time of day selects its whole UTC day',
  )
  clock.now = utc('2025-03-11T00:00:01')
  t.equal(await pages(''), sum('2025-03-10', '2025-03-11'), 'the default window moves with the clock')
  t.equal(await pages('?from=2025-01-01'), sum(...days), 'only from now reaches the new today')
})

t.test('bad queries are InvalidInput naming the parameter', async (t) => {
  const { engine, get, site } = await setup(t)
  await site('alice', 'checked')
  const cases: [string, RegExp][] = [
    ['from=2025-13-01', /from/],
    ['from=2025-02-30', /from/],
    ['to=2025/01/01', /to/],
    ['to=yesterday', /to/],
    ['from=2025-03-01T25:00:00', /from/],
    ['from=', /from/],
    ['from=2025-03-05&to=2025-03-01', /from/],
    ['from=2025-03-11', /from/],
    ['dimension=browser', /dimension/],
    ['dimension=', /dimension/],
    ['dimension=GEO', /dimension/],
    ['result=visits', /result/],
    ['dimension=system&dimension=geo', /dimension/],
    ['from=2025-03-01&from=2025-03-02', /from/],
    ['limit=5', /limit/],
    ['__proto__=1', /__proto__/],
  ]
  for (const [query, names] of cases) {
    const res = await get('alice', `/analytics/site/checked?${query}`)
    t.equal(res.status, 400, query)
    t.equal(res.body.error_code, 'InvalidInput', query)
    t.match(res.body.message, names, `${query}: ${res.body.message}`)
  }
  for (const query of ['dimension=geo', 'result=traffic', 'from=2025-02-30', 'from=2025-03-05&to=2025-03-01', 'to=x']) {
    const res = await get('alice', `/analytics/sites/withmosttraffic?${query}`)
    t.equal(res.body.error_code, 'InvalidInput', `most traffic: ${query}`)
  }
  await t.rejects(
    engine.as('alice').siteAnalytics('checked', { dimension: 'os' } as never),
    { error_code: 'InvalidInput', message: /dimension/ },
    'in-process too',
  )
  t.strictSame(
    await engine.as('alice').siteAnalytics('checked', { from: undefined, to: undefined }),
    { UNIQUE_VISITORS: 0, VISITS: 0, PAGE_VIEWS: 0 },
    'in-process, undefined is absent',
  )
})

t.test("tenancy: only the caller's sites", async (t) => {
  const { engine, get, anon, site } = await setup(t)
  await site('alice', 'alicesite')
  await engine.recordVisit({ site_name: 'alicesite', visitor_id: 'v' })
  for (const path of [
    '/analytics/site/alicesite',
    '/analytics/site/nosuchsite',
    '/analytics/site/alicesite?result=activities',
  ]) {
    const res = await get('bob', path)
    t.equal(res.status, 400, path)
    t.equal(res.body.error_code, 'ResourceNotExist', path)
  }
  t.strictSame((await get('bob', '/analytics/sites/withmosttraffic')).body, [], "another owner's traffic is not ranked")
  t.equal((await anon('/analytics/site/alicesite')).status, 401, 'no credentials: 401')
})

t.test("most traffic: the caller's top 10 by visits, ties by name", async (t) => {
  const { engine, get, site } = await setup(t)
  // site-NN gets NN % 8 + 1 visits (12 sites): the last two ranks are ties broken by name.
  for (let i = 0; i < 12; i++) {
    const name = await site('alice', `site-${String(i).padStart(2, '0')}`)
    for (let v = 0; v <= i % 8; v++)
      await engine.recordVisit({ site_name: name, visitor_id: `v${v % 3}`, page_views: 2, at: utc('2025-03-05') })
  }
  await site('alice', 'quietsite')
  await engine.recordActivity({ site_name: 'quietsite', kind: 'form_submit' })
  await site('alice', 'oldsite')
  await engine.recordVisit({ site_name: 'oldsite', visitor_id: 'v', at: utc('2025-01-01') })
  await site('bob', 'bobsite')
  for (let v = 0; v < 20; v++) await engine.recordVisit({ site_name: 'bobsite', visitor_id: `b${v}` })

  const res = await get('alice', '/analytics/sites/withmosttraffic')
  t.equal(res.status, 200)
  t.strictSame(
    res.body.map((r: { site_name: string; data: { VISITS: number } }) => [r.site_name, r.data.VISITS]),
    [
      ['site-07', 8],
      ['site-06', 7],
      ['site-05', 6],
      ['site-04', 5],
      ['site-03', 4],
      ['site-11', 4],
      ['site-02', 3],
      ['site-10', 3],
      ['site-01', 2],
      ['site-09', 2],
    ],
  )
  t.strictSame(res.body[0], { site_name: 'site-07', data: { UNIQUE_VISITORS: 3, VISITS: 8, PAGE_VIEWS: 16 } })
  t.strictSame(Object.keys(res.body[0].data).sort(), TRAFFIC_KEYS)
  t.strictSame(
    (await get('alice', '/analytics/sites/withmosttraffic?from=2024-12-31&to=2025-01-02')).body,
    [{ site_name: 'oldsite', data: { UNIQUE_VISITORS: 1, VISITS: 1, PAGE_VIEWS: 1 } }],
    'the period decides',
  )
  t.strictSame(await engine.as('alice').sitesWithMostTraffic(), res.body, 'in-process gives the same')
})

t.test('recording validates its input', async (t) => {
  const { engine, site } = await setup(t)
  await site('alice', 'recorded')
  const base = { site_name: 'recorded', visitor_id: 'v' }
  const invalid: [object, RegExp][] = [
    [{ site_name: 'recorded' }, /visitor_id/],
    [{ ...base, visitor_id: '' }, /visitor_id/],
    [{ ...base, visitor_id: 7 }, /visitor_id/],
    [{ ...base, page_views: 0 }, /page_views/],
    [{ ...base, page_views: 1.5 }, /page_views/],
    [{ ...base, page_views: '2' }, /page_views/],
    [{ ...base, page_views: 10_001 }, /page_views/],
    [{ ...base, at: '2025-03-01' }, /at/],
    [{ ...base, at: new Date(NaN) }, /at/],
    [{ ...base, country: 44 }, /country/],
    [{ ...base, region: 'r'.repeat(101) }, /region/],
    [{ ...base, user_agent: ['x'] }, /user_agent/],
    [{ ...base, kind: 'form_submit' }, /kind/],
    [{ ...base, site_name: 5 }, /site_name/],
  ]
  for (const [input, names] of invalid) {
    await t.rejects(
      engine.recordVisit(input as never),
      { error_code: 'InvalidInput', message: names },
      JSON.stringify(input),
    )
  }
  await t.rejects(engine.recordVisit({ ...base, site_name: 'nosuchsite' }), {
    name: 'ServiceError',
    error_code: 'ResourceNotExist',
  })
  await t.rejects(engine.recordActivity({ site_name: 'recorded', kind: 'click_to_fax' as never }), {
    error_code: 'InvalidInput',
    message: /kind/,
  })
  await t.rejects(engine.recordActivity({ site_name: 'nosuchsite', kind: 'click_to_call' }), {
    name: 'ServiceError',
    error_code: 'ResourceNotExist',
  })
  await t.rejects(engine.recordActivity({ site_name: 'recorded', kind: 'click_to_call', visitor_id: 'v' } as never), {
    error_code: 'InvalidInput',
    message: /visitor_id/,
  })
  const error = await engine.recordVisit({ ...base, page_views: -1 }).catch((e: unknown) => e)
  t.type(error, ServiceError)
  t.strictSame(
    await engine.as('alice').siteAnalytics('recorded'),
    { UNIQUE_VISITORS: 0, VISITS: 0, PAGE_VIEWS: 0 },
    'nothing was recorded',
  )
})

t.test('visits of any year from 1 to 9999 are recorded and queried as dated', async (t) => {
  const { engine, site, get } = await setup(t)
  await site('alice', 'oldvisits')
  // Date.UTC reads years 0-99 as 1900-1999: neither bound nor query may go through it.
  for (const at of ['0001-01-01T00:00:00', '0050-06-01T12:00:00', '1500-01-01T12:00:00']) {
    await engine.recordVisit({ site_name: 'oldvisits', visitor_id: at, at: new Date(`${at}Z`) })
  }
  await t.rejects(
    engine.recordVisit({
      site_name: 'oldvisits',
      visitor_id: 'v',
      at: new Date(Date.parse('0001-01-01T00:00:00Z') - 1),
    }),
    { error_code: 'InvalidInput', message: /at/ },
  )
  t.same(
    (await get('alice', '/analytics/site/oldvisits?from=0050-06-01&to=0050-06-01')).body,
    { UNIQUE_VISITORS: 1, VISITS: 1, PAGE_VIEWS: 1 },
    'year 50',
  )
  t.same(
    (await get('alice', '/analytics/site/oldvisits?from=0001-01-01&to=1500-01-01')).body,
    { UNIQUE_VISITORS: 3, VISITS: 3, PAGE_VIEWS: 3 },
    'years 1 to 1500',
  )
  t.same(
    (await get('alice', '/analytics/site/oldvisits?from=1950-06-01&to=1950-06-01')).body,
    { UNIQUE_VISITORS: 0, VISITS: 0, PAGE_VIEWS: 0 },
    'not 1950',
  )
})

t.test('a first visit builds a create_now=false site', async (t) => {
  const { engine, built, site } = await setup(t)
  await site('alice', 'lazysite', { create_now: 'false' })
  t.strictSame(built, [], 'not built at creation')
  await engine.recordVisit({ site_name: 'lazysite', visitor_id: 'v' })
  t.strictSame(built, ['lazysite'], 'built on the first visit')
  await engine.recordVisit({ site_name: 'lazysite', visitor_id: 'w' })
  t.strictSame(built, ['lazysite'], 'once')
  t.equal(((await engine.as('alice').siteAnalytics('lazysite')) as { VISITS: number }).VISITS, 2, 'both visits counted')
})

t.test('deleting a site drops its analytics', async (t) => {
  const { engine, get, site } = await setup(t)
  await site('alice', 'doomed')
  await engine.recordVisit({ site_name: 'doomed', visitor_id: 'v' })
  await engine.as('alice').deleteSite('doomed')
  await site('alice', 'doomed')
  t.strictSame((await get('alice', '/analytics/site/doomed')).body, { UNIQUE_VISITORS: 0, VISITS: 0, PAGE_VIEWS: 0 })
  t.strictSame((await get('alice', '/analytics/sites/withmosttraffic')).body, [])
})

t.test('real browser User-Agents and countries add up', async (t) => {
  const { engine, get, site } = await setup(t)
  await site('alice', 'realsite')
  const countries = ['US', 'JP', 'DE', 'BR']
  const expected = new Map<string, { visits: number; visitors: Set<string> }>()
  for (let i = 0; i < 300; i++) {
    const ua = new UserAgent(i % 2 ? { deviceCategory: 'mobile' } : undefined).toString()
    const parsed = new UAParser(ua).getResult()
    const key = `${parsed.browser.name ? `${parsed.browser.name}${parsed.browser.major ? ` ${parsed.browser.major}` : ''}` : 'Unknown'}|${parsed.os.name ?? 'Unknown'}`
    const visitor_id = `visitor-${i % 120}`
    const row = expected.get(key) ?? { visits: 0, visitors: new Set<string>() }
    row.visits++
    row.visitors.add(visitor_id)
    expected.set(key, row)
    await engine.recordVisit({
      site_name: 'realsite',
      visitor_id,
      user_agent: ua,
      country: countries[i % 4],
      at: utc('2025-03-0' + (1 + (i % 9))),
    })
  }
  const rows = (await get('alice', '/analytics/site/realsite?dimension=system')).body as {
    data: { VISITS: number; UNIQUE_VISITORS: number }
    dimension: { browser: string; os: string }
  }[]
  t.strictSame(
    Object.fromEntries(
      rows.map((r) => [`${r.dimension.browser}|${r.dimension.os}`, [r.data.VISITS, r.data.UNIQUE_VISITORS]]),
    ),
    Object.fromEntries([...expected].map(([key, row]) => [key, [row.visits, row.visitors.size]])),
    'one row per browser major and OS, with its visits and visitors',
  )
  const geo = (await get('alice', '/analytics/site/realsite?dimension=geo')).body as {
    data: { VISITS: number; UNIQUE_VISITORS: number }
    dimension: { country: string }
  }[]
  t.strictSame(
    geo.map((r) => [r.dimension.country, r.data.VISITS, r.data.UNIQUE_VISITORS]),
    [
      ['BR', 75, 30],
      ['DE', 75, 30],
      ['JP', 75, 30],
      ['US', 75, 30],
    ],
  )
  t.strictSame((await get('alice', '/analytics/site/realsite')).body, {
    UNIQUE_VISITORS: 120,
    VISITS: 300,
    PAGE_VIEWS: 300,
  })
})
