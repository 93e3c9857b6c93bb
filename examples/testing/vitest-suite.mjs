// A vitest suite against a running `mobisite --admin` (MOBISITE_URL, default http://127.0.0.1:3000).
// Run: npx vitest run --config examples/testing/vitest.config.mjs
import { readFileSync } from 'node:fs'
import { beforeEach, expect, test } from 'vitest'

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
