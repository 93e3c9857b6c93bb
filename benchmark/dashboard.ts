/**
 * The sub-account dashboard's site page with 90 days of data on MemoryStore
 * (goal: rendered in at most 20 ms), against a static JSON answer of the
 * same numbers served by the same Express app: the ratio is what rendering
 * the page (session check, grant check, 90 per-day reads, totals,
 * activities, two dimensions, the SVG in two layouts and the table) costs
 * over sending bytes that are already there.
 *
 *   npx tsx benchmark/dashboard.ts
 *
 * Runs in a few seconds. The busy site has 90 days of 400 visits a day
 * (3,000 returning visitors, 20 countries with regions, 8 browsers) and
 * activities. Requests go one at a time over one keep-alive connection, page
 * and JSON interleaved so both meet the same machine load; figures are
 * medians. The in-process render (no HTTP) is reported too.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { createEngine, dashboardRouter } from '../lib/index.js'
import { dashboardOf } from '../lib/engine/rules/dashboard.js'
import { sitePage } from '../lib/dashboard/pages.js'
import { figure } from './lib/report.js'
import { COUNTRIES, KINDS } from './lib/fixtures.js'

const DAY = 86_400_000
const NOW = Date.UTC(2025, 5, 30, 12)
const UAS = [
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Linux; Android 13; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0',
]

let seed = 7
const random = (): number => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
  return seed / 2 ** 31
}
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!

const engine = createEngine({ now: () => new Date(NOW) })
await engine.addMasterAccount({ user: 'partner', password: 'secret', partner: true })
const api = engine.as('partner')
await api.createAccount({ account_name: 'customer' })
await api.createSite({
  site_data: {
    site_name: 'busysite',
    original_site_url: 'https://www.example.com/',
    site_business_info: { business_name: 'Busy Site' },
  },
})
await api.grantAccess('customer', 'busysite')
for (let d = 0; d < 90; d++) {
  const start = NOW - d * DAY
  const work: Promise<void>[] = []
  for (let i = 0; i < 400; i++) {
    work.push(
      engine.recordVisit({
        site_name: 'busysite',
        at: new Date(start - Math.floor(random() * 40_000_000)),
        visitor_id: `v${Math.floor(random() * 3000)}`,
        user_agent: pick(UAS),
        country: pick(COUNTRIES),
        region: pick(['North', 'South', 'Capital']),
        page_views: 1 + Math.floor(random() * 5),
      }),
    )
  }
  for (let i = 0; i < 30; i++)
    work.push(engine.recordActivity({ site_name: 'busysite', at: new Date(start), kind: pick(KINDS) }))
  await Promise.all(work)
}

// The same numbers the page shows, as a JSON document computed once.
const dashboard = dashboardOf(engine)
const { url } = await api.ssoLink('customer')
const landing = await dashboard.signIn(new URL(url, 'http://x').searchParams.get('token'))
const account = await dashboard.account(landing.session)
const report = await dashboard.report(account, 'busysite', '90')
const json = JSON.stringify(report)

const app = express()
app.use('/dashboard', dashboardRouter(engine))
app.get('/static.json', (_req, res) => {
  res.type('json').send(json)
})
const server = app.listen(0, '127.0.0.1')
await new Promise<void>((resolve) => server.once('listening', resolve))
const { port } = server.address() as AddressInfo
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
const cookie = `mobisite_session=${landing.session}`

function get(path: string): Promise<{ ms: number; status: number; bytes: number }> {
  const start = process.hrtime.bigint()
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent, headers: { cookie } }, (res) => {
        let bytes = 0
        res.on('data', (chunk: Buffer) => (bytes += chunk.length))
        res.on('end', () =>
          resolve({ ms: Number(process.hrtime.bigint() - start) / 1e6, status: res.statusCode ?? 0, bytes }),
        )
      })
      .on('error', reject)
  })
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

const PAGE = '/dashboard/sites/busysite?days=90'
const first = await get(PAGE)
if (first.status !== 200) throw new Error(`site page answered ${first.status}`)
for (let i = 0; i < 30; i++) {
  await get(PAGE)
  await get('/static.json')
}
const pageMs: number[] = []
const jsonMs: number[] = []
for (let i = 0; i < 300; i++) {
  pageMs.push((await get(PAGE)).ms)
  jsonMs.push((await get('/static.json')).ms)
}
const renderMs: number[] = []
for (let i = 0; i < 300; i++) {
  const start = process.hrtime.bigint()
  sitePage(
    { base: '/dashboard', title: 'Dashboard', account: 'customer' },
    await dashboard.report(account, 'busysite', '90'),
  )
  renderMs.push(Number(process.hrtime.bigint() - start) / 1e6)
}

const page = median(pageMs)
const staticJson = median(jsonMs)
const render = median(renderMs)
console.log(`site page, 90 days (${first.bytes} bytes of HTML): median ${page.toFixed(2)} ms over HTTP`)
console.log(`static JSON of the same data (${json.length} bytes): median ${staticJson.toFixed(3)} ms over HTTP`)
console.log(`ratio page / static JSON: ${(page / staticJson).toFixed(1)}`)
console.log(`in-process (report + HTML, no HTTP): median ${render.toFixed(2)} ms`)
figure({
  group: 'dashboard',
  name: 'site page, 90 days, MemoryStore (HTTP, median)',
  value: Number(page.toFixed(2)),
  unit: 'ms',
  anchor: 'static JSON of the same data, same app',
  anchorValue: Number(staticJson.toFixed(3)),
  ratio: Number((page / staticJson).toFixed(1)),
  target: '<= 20 ms',
  note: 'ratio = page time / static JSON time; 90 days x 400 visits, 20 countries, 8 browsers',
})
figure({
  group: 'dashboard',
  name: 'site page, 90 days, MemoryStore (in-process report + render, median)',
  value: Number(render.toFixed(2)),
  unit: 'ms',
  target: '<= 20 ms',
})

agent.destroy()
server.close()
await engine.close()
