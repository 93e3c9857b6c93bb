// A tap suite against a running `mobisite --admin` (MOBISITE_URL, default http://127.0.0.1:3000).
// Run: node examples/testing/tap-suite.mjs   (or npx tap examples/testing/tap-suite.mjs)
import { createHmac } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import t from 'tap'

const base = process.env.MOBISITE_URL ?? 'http://127.0.0.1:3000'
const fixtures = JSON.parse(readFileSync(new URL('./fixtures.json', import.meta.url), 'utf8'))
const auth = { authorization: `Basic ${Buffer.from('tester:tester-secret').toString('base64')}` }
const admin = (method, path, body) =>
  fetch(`${base}/__admin${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  })

t.beforeEach(async () => {
  await admin('POST', '/reset')
  await admin('POST', '/seed', fixtures)
})

t.test('publishing happens at the frozen time; a faulted read is retried', async (t) => {
  await admin('PUT', '/clock', { now: '2025-01-15T10:00:00' })
  const created = await fetch(`${base}/api/sites/create`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({
      site_data: { site_name: 'blog', original_site_url: 'https://blog.example' },
      publish_now: true,
    }),
  })
  t.equal(created.status, 200)
  await admin('POST', '/faults', {
    method: 'GET',
    route: '/sites/{site_name}',
    error: { status: 503, error_code: 'ServiceUnavailable' },
    times: 1,
  })
  t.equal((await fetch(`${base}/api/sites/blog`, { headers: auth })).status, 503, 'the injected fault')
  const site = await (await fetch(`${base}/api/sites/blog`, { headers: auth })).json()
  t.equal(site.last_published_date, '2025-01-15T10:00:00', 'published at the frozen clock')
  const { requests } = await (await admin('GET', '/requests?route=/sites/{site_name}')).json()
  t.same(
    requests.map((r) => r.status),
    [503, 200],
    'the journal saw both calls',
  )
  t.equal(requests[0].user, 'tester')
})

t.test('the seeded analytics', async (t) => {
  const traffic = await (
    await fetch(`${base}/api/analytics/site/shop?from=2025-01-01&to=2025-01-31`, { headers: auth })
  ).json()
  t.same(traffic, { UNIQUE_VISITORS: 2, VISITS: 2, PAGE_VIEWS: 4 })
})

t.test('a webhook: the app receives PUBLISH on its own HTTP server, signed as Duda signs', async (t) => {
  const received = []
  const app = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      received.push({ headers: req.headers, body })
      res.writeHead(204).end()
    })
  })
  await new Promise((resolve) => app.listen(0, '127.0.0.1', resolve))
  t.teardown(() => app.close())
  const url = `http://127.0.0.1:${app.address().port}/duda-events`
  const hook = await admin('POST', '/webhooks', { url, events: ['PUBLISH'], secret: 'hook-secret' })
  t.equal(hook.status, 201)
  await fetch(`${base}/api/sites/publish/shop`, { method: 'POST', headers: auth })
  await admin('POST', '/webhooks/settle') // every delivery done
  t.equal(received.length, 1)
  const [{ headers, body }] = received
  t.match(JSON.parse(body), { event_type: 'PUBLISH', resource_data: { site_name: 'shop' }, source: { type: 'API' } })
  const timestamp = headers['x-duda-signature-timestamp']
  const expected = createHmac('sha256', 'hook-secret').update(`${timestamp}.${body}`).digest('base64')
  t.equal(headers['x-duda-signature'], expected, 'base64 HMAC-SHA256 of "timestamp.body"')
})
