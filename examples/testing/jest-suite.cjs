// A jest suite (CommonJS, no transform) against a running `mobisite --admin` (MOBISITE_URL, default http://127.0.0.1:3000).
// Run: npx jest --rootDir examples/testing --testMatch '**/jest-suite.cjs'
const { readFileSync } = require('node:fs')
const { createServer } = require('node:http')
const { join } = require('node:path')

const base = process.env.MOBISITE_URL ?? 'http://127.0.0.1:3000'
const fixtures = JSON.parse(readFileSync(join(__dirname, 'fixtures.json'), 'utf8'))
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

test('most traffic at a frozen date, a dropped connection, and the journal', async () => {
  await admin('PUT', '/clock', { now: '2025-01-20' })
  const top = await (await fetch(`${base}/api/analytics/sites/withmosttraffic`, { headers: auth })).json()
  expect(top).toEqual([{ site_name: 'shop', data: { UNIQUE_VISITORS: 2, VISITS: 2, PAGE_VIEWS: 4 } }])
  await admin('POST', '/faults', { route: '/sites/{site_name}', drop: true, times: 1 })
  await expect(fetch(`${base}/api/sites/shop`, { headers: auth })).rejects.toThrow()
  expect((await fetch(`${base}/api/sites/shop`, { headers: auth })).status).toBe(200)
  const { requests } = await (await admin('GET', '/requests?route=/sites/{site_name}')).json()
  expect(requests.map((r) => r.status)).toEqual([0, 200])
})

test('a webhook: the app receives UNPUBLISH on its own HTTP server', async () => {
  const received = []
  const app = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      received.push(JSON.parse(body))
      res.writeHead(204).end()
    })
  })
  await new Promise((resolve) => app.listen(0, '127.0.0.1', resolve))
  try {
    await admin('POST', '/webhooks', { url: `http://127.0.0.1:${app.address().port}/`, events: ['UNPUBLISH'] })
    await admin('PUT', '/clock', { now: '2025-03-01T00:00:00' })
    await fetch(`${base}/api/sites/unpublish/shop`, { method: 'POST', headers: auth })
    await admin('POST', '/webhooks/settle')
    expect(received).toEqual([
      {
        event_type: 'UNPUBLISH',
        event_timestamp: Date.parse('2025-03-01T00:00:00Z'),
        resource_type: 'site',
        resource_data: { site_name: 'shop' },
        source: { type: 'API', account_name: 'tester' },
        data: Date.parse('2025-03-01T00:00:00Z'),
      },
    ])
  } finally {
    app.close()
  }
})
