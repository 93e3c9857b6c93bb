/**
 * The standalone server's collector, `/collect/{site_name}`: public, GET or
 * POST, always 204 at once (also for an unknown site); `e=visit` (default),
 * an activity kind, or `e=redirect` setting last_confirmed_redirected_date.
 * Exempt from the API's JSON-only rules: a beacon sends what it sends.
 */
import t, { type Test } from 'tap'
import { cdnGeo } from '../../lib/collector/index.js'
import type { CollectRouteOptions } from '../../lib/collector/route.js'
import { capturedLogger } from '../helpers/log-lines.js'
import { checkedFetch } from '../helpers/openapi-check.js'
import { awayFromMinuteTurn } from '../helpers/real-minute.js'
import { serverWithSite } from '../helpers/site-server.js'

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1'

async function service(t: Tap, collector?: CollectRouteOptions) {
  const { engine, server, site_name, clock } = await serverWithSite(t, '2025-05-01T08:30:00Z', { collector })
  /** Polls until `check` holds (the collector records after answering). */
  const eventually = async (check: () => Promise<boolean>): Promise<boolean> => {
    for (let i = 0; i < 100; i++) {
      if (await check()) return true
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    return false
  }
  return { engine, server, site_name, clock, eventually }
}
type Tap = Test

t.test('visits and activities over GET and POST, answered 204 at once', async (t) => {
  const { engine, server, site_name, eventually } = await service(t)
  const visit = await fetch(`${server.url}/collect/${site_name}`, {
    headers: { 'user-agent': IPHONE, 'cf-ipcountry': 'JP' },
  })
  t.equal(visit.status, 204)
  t.equal(visit.headers.get('cache-control'), 'no-store')
  t.match(visit.headers.get('set-cookie'), /^msvid=[\w-]+;/, 'a visitor cookie')
  const beacon = await fetch(`${server.url}/collect/${site_name}?e=visit&pv=3`, {
    method: 'POST',
    body: 'anything a beacon sends',
    headers: { 'content-type': 'text/plain' },
  })
  t.equal(beacon.status, 204, 'POST with a text/plain body: the JSON-only rule of the API does not apply')
  const call = await fetch(`${server.url}/collect/${site_name}?e=click_to_call`, { method: 'POST' })
  t.equal(call.status, 204)
  const api = engine.as('alice')
  t.ok(
    await eventually(async () => {
      const traffic = (await api.siteAnalytics(site_name, { result: 'traffic' })) as unknown as Record<string, number>
      return traffic.VISITS === 2 && traffic.PAGE_VIEWS === 4
    }),
    'two visits, four page views recorded',
  )
  t.ok(
    await eventually(
      async () =>
        ((await api.siteAnalytics(site_name, { result: 'activities' })) as unknown as Record<string, number>)
          .CLICK_TO_CALLS === 1,
    ),
    'one click to call recorded',
  )
})

t.test('e=redirect sets last_confirmed_redirected_date, without a visitor cookie', async (t) => {
  const { engine, server, site_name, clock, eventually } = await service(t)
  const api = engine.as('alice')
  t.equal((await api.getSite(site_name)).last_confirmed_redirected_date, undefined)
  const res = await fetch(`${server.url}/collect/${site_name}?e=redirect`, { method: 'POST' })
  t.equal(res.status, 204)
  t.equal(res.headers.get('set-cookie'), null, 'a confirmation is not a visitor')
  t.ok(
    await eventually(
      async () => (await api.getSite(site_name)).last_confirmed_redirected_date === '2025-05-01T08:30:00',
    ),
  )
  clock.now += 3_600_000
  t.equal((await fetch(`${server.url}/collect/${site_name}?e=redirect`)).status, 204, 'GET works too')
  t.ok(
    await eventually(
      async () => (await api.getSite(site_name)).last_confirmed_redirected_date === '2025-05-01T09:30:00',
    ),
  )
  const traffic = (await api.siteAnalytics(site_name, { result: 'traffic' })) as unknown as Record<string, number>
  t.equal(traffic.VISITS, 0, 'a confirmation records no visit')
})

t.test('unknown sites, unknown events and bad input are 204 and change nothing', async (t) => {
  const { engine, server, site_name } = await service(t)
  for (const path of [
    '/collect/nosuchsite',
    '/collect/nosuchsite?e=redirect',
    `/collect/${site_name}?e=bogus`,
    `/collect/${site_name}?pv=-1`,
    '/collect/__proto__?e=redirect',
    '/collect/a%20b',
    '/collect/%E0%A4%A',
  ]) {
    t.equal((await fetch(`${server.url}${path}`, { method: 'POST' })).status, 204, path)
  }
  await new Promise((resolve) => setTimeout(resolve, 50))
  const traffic = (await engine.as('alice').siteAnalytics(site_name, { result: 'traffic' })) as unknown as Record<
    string,
    number
  >
  t.equal(traffic.VISITS, 0)
  const put = await fetch(`${server.url}/collect/${site_name}`, { method: 'PUT' })
  t.equal(put.status, 405)
  t.equal(put.headers.get('allow'), 'GET, HEAD, POST')
  t.equal(((await put.json()) as { error_code: string }).error_code, 'MethodNotAllowed')
})

t.test('the collector answers /collect/{site_name} (and a trailing slash), no other path', async (t) => {
  const { engine, server, site_name } = await service(t)
  t.equal((await fetch(`${server.url}/collect/${site_name}/`, { method: 'POST' })).status, 204, 'trailing slash')
  t.equal((await fetch(`${server.url}/collect/${encodeURIComponent(site_name)}`)).status, 204, 'GET, encoded')
  for (const path of ['/collect/', '/collect', `/collect/${site_name}/extra`, '/collect//x']) {
    t.equal((await fetch(`${server.url}${path}`, { method: 'POST' })).status, 404, `${path}: not the collector's`)
  }
  await engine.flushRecordings()
  const traffic = (await engine.as('alice').siteAnalytics(site_name, { result: 'traffic' })) as unknown as Record<
    string,
    number
  >
  t.equal(traffic.VISITS, 2, 'the two beacons were recorded')
})

t.test('startServer passes its logger to the collector: dropped beacons are logged', async (t) => {
  const { logger, lines } = capturedLogger()
  await awayFromMinuteTurn()
  const { server, site_name } = await serverWithSite(t, undefined, { logger, collector: { beaconsPerMinute: 1 } })
  for (let i = 0; i < 3; i++) t.equal((await fetch(`${server.url}/collect/${site_name}`)).status, 204)
  const warnings = lines.filter((line) => line.level === 40)
  t.equal(warnings.length, 1, 'one warning for the first drop; the next waits for the interval')
  t.match(warnings[0], { dropped_rate: 1, dropped_queue: 0, msg: /collector dropped 1 beacon/ })
})

t.test('the API is unchanged beside it', async (t) => {
  const { server } = await service(t)
  t.equal((await checkedFetch(`${server.url}/api/agents`)).status, 401, 'the API still needs credentials')
})

t.test('startServer({ collector }): CDN geo, beacons per minute, drops counted by the engine', async (t) => {
  const geo = cdnGeo({ provider: 'cloudflare' })
  await awayFromMinuteTurn()
  const { engine, server, site_name, eventually } = await service(t, { geo, beaconsPerMinute: 2 })
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${server.url}/collect/${site_name}`, {
      headers: { 'cf-ipcountry': 'JP', 'cf-region-code': '13' },
    })
    t.equal(res.status, 204, 'every beacon is answered 204')
  }
  const api = engine.as('alice')
  t.ok(
    await eventually(async () => {
      const rows = (await api.siteAnalytics(site_name, { dimension: 'geo' })) as unknown as {
        dimension: { country: string; region: string }
        data: { VISITS: number }
      }[]
      return rows.length === 1 && rows[0]!.dimension.country === 'JP' && rows[0]!.data.VISITS === 2
    }),
    'two visits from Japan recorded, the third limited',
  )
  t.match(engine.recordingStats(), { limited: 1, dropped: 0, recorded: 2 }, 'the limited beacon is counted')
})
