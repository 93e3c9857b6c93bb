// A node:test suite against a running `mobisite --admin` (MOBISITE_URL, default http://127.0.0.1:3000).
// Run: node --test examples/testing/node-test-suite.mjs
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { beforeEach, test } from 'node:test'

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

test('a site listed in the frozen day, a failing publish, and the journal', async () => {
  await admin('PUT', '/clock', { now: '2025-02-01T09:00:00' })
  await fetch(`${base}/api/sites/create`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ site_data: { site_name: 'news', original_site_url: 'https://news.example' } }),
  })
  const listed = await (
    await fetch(`${base}/api/sites/created?from=2025-02-01&to=2025-02-01T23:59:59`, { headers: auth })
  ).json()
  assert.deepEqual(listed, [{ site_name: 'news' }])
  await admin('POST', '/faults', {
    route: '/sites/publish/{site_name}',
    error: { status: 500, error_code: 'InternalError' },
  })
  const publish = await fetch(`${base}/api/sites/publish/news`, { method: 'POST', headers: auth })
  assert.equal(publish.status, 500)
  const billing = await (await admin('GET', '/billing/tester')).json()
  assert.deepEqual(billing.charges, [], 'a faulted publish charges nothing')
  const { requests } = await (await admin('GET', '/requests?method=post&status=500')).json()
  assert.equal(requests.length, 1)
  assert.equal(requests[0].route, '/sites/publish/{site_name}')
})

test('a webhook: the app receives SITE_CREATED and SITE_DELETED on its own HTTP server', async (t) => {
  const received = []
  const app = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      received.push(JSON.parse(body))
      res.writeHead(200).end()
    })
  })
  await new Promise((resolve) => app.listen(0, '127.0.0.1', resolve))
  t.after(() => app.close())
  await admin('POST', '/webhooks', {
    url: `http://127.0.0.1:${app.address().port}/hooks`,
    events: ['SITE_CREATED', 'SITE_DELETED'],
  })
  await admin('PUT', '/clock', { now: '2025-02-01T09:00:00' })
  const headers = { ...auth, 'content-type': 'application/json' }
  const site_data = { site_name: 'popup', original_site_url: 'https://popup.example', external_uid: 'crm-42' }
  await fetch(`${base}/api/sites/create`, { method: 'POST', headers, body: JSON.stringify({ site_data }) })
  await fetch(`${base}/api/sites/popup`, { method: 'DELETE', headers: auth })
  await admin('POST', '/webhooks/settle')
  assert.deepEqual(
    received.map((event) => event.event_type),
    ['SITE_CREATED', 'SITE_DELETED'],
  )
  assert.deepEqual(received[0].resource_data, { site_name: 'popup', external_id: 'crm-42' })
  assert.equal(received[0].event_timestamp, Date.parse('2025-02-01T09:00:00Z'), 'stamped by the frozen clock')
})
