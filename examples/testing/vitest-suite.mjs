// A vitest suite against a running `mobisite --admin` (MOBISITE_URL, default http://127.0.0.1:3000).
// Run: npx vitest run --config examples/testing/vitest.config.mjs
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { beforeEach, expect, onTestFinished, test } from 'vitest'

const base = process.env.MOBISITE_URL ?? 'http://127.0.0.1:3000'
const fixtures = JSON.parse(readFileSync(new URL('./fixtures.json', import.meta.url), 'utf8'))
const auth = { authorization: `Basic ${Buffer.from('tester:tester-secret').toString('base64')}` }
const admin = (method, path, body) =>
  fetch(`${base}/__admin${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  })

beforeEach(async () => {
  await admin('POST', '/reset')
  await admin('POST', '/seed', fixtures)
})

test('the granted account, a slow answer, and the clock a week later', async () => {
  await admin('PUT', '/clock', { now: '2025-01-14T12:00:00' })
  await admin('POST', '/clock/advance', { seconds: 7 * 86400 })
  expect(await (await admin('GET', '/clock')).json()).toEqual({ now: '2025-01-21T12:00:00', frozen: true })
  await admin('POST', '/faults', { route: '/accounts/{account_name}', latency_ms: 200, times: 1 })
  const started = Date.now()
  const account = await (await fetch(`${base}/api/accounts/clerk`, { headers: auth })).json()
  expect(Date.now() - started).toBeGreaterThanOrEqual(190)
  expect(account).toEqual({ account_name: 'clerk', first_name: 'Ada' })
  const { requests } = await (await admin('GET', '/requests?user=tester')).json()
  expect(requests.map((r) => `${r.method} ${r.route} ${r.status}`)).toEqual(['GET /accounts/{account_name} 200'])
})

test('a webhook whose receiver fails twice: Duda-style retries, then delivered', async () => {
  const statuses = [500, 503] // what the app answers to its first two deliveries
  let deliveries = 0
  const app = createServer((req, res) => {
    req.resume().on('end', () => {
      deliveries++
      res.writeHead(statuses.shift() ?? 200).end()
    })
  })
  await new Promise((resolve) => app.listen(0, '127.0.0.1', resolve))
  onTestFinished(() => app.close())
  await admin('POST', '/webhooks', { url: `http://127.0.0.1:${app.address().port}/`, backoff_ms: 10 })
  await fetch(`${base}/api/sites/unpublish/shop`, { method: 'POST', headers: auth })
  await admin('POST', '/webhooks/settle')
  expect(deliveries).toBe(3)
  const log = await (await admin('GET', '/webhooks/deliveries')).json()
  expect(log.deliveries.map((d) => [d.attempt, d.status, d.outcome])).toEqual([
    [1, 500, 'retrying'],
    [2, 503, 'retrying'],
    [3, 200, 'delivered'],
  ])
})
