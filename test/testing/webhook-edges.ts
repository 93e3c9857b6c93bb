/**
 * The edges of the test double's webhooks that an admin-token holder or a
 * hanging receiver could use (docs/testing.md, "Webhooks"): credentials in a
 * URL are masked wherever it is shown; link-local and cloud-metadata
 * destinations are refused (literal ones at registration, names that resolve
 * there at delivery) unless the server allows them; a receiver that hangs
 * cannot push the other webhooks' attempts out of the log, and drops are
 * counted, logged (at most a line per 10 s) and in /metrics. Nothing here
 * sends a packet off the machine: names resolve through an injected resolver.
 */
import request from 'supertest'
import t, { type Test } from 'tap'
import { createEngine, startServer } from '../../lib/index.js'
import { capturedLogger } from '../helpers/log-lines.js'
import { createControls } from '../../lib/testing/index.js'
import { bannerLines } from '../../lib/cli/banner.js'
import { webhookDropReporter } from '../../lib/server/webhook-drops.js'
import { forbiddenAddress, maskUrl } from '../../lib/testing/webhook-destination.js'
import { webhookReceiver } from '../helpers/webhook-receiver.js'

const ALICE = { user: 'alice', password: 'alice-pw', partner: true }

async function adminServer(t: Test, resolve?: (name: string) => string[]) {
  const engine = createEngine()
  await engine.addMasterAccount(ALICE)
  if (resolve)
    createControls(engine, {
      webhookDestinations: {
        resolve: async (name) => resolve(name).map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      },
    })
  const server = await startServer({ engine, admin: true, metrics: true })
  t.teardown(() => server.close())
  return { engine, server, http: request(server.url) }
}

t.test('link-local and metadata addresses, and nothing else, are refused', async (t) => {
  for (const address of [
    '169.254.169.254',
    '169.254.0.1',
    'fe80::1',
    'FEBF::abcd',
    'fd00:ec2::254',
    '::ffff:169.254.169.254',
  ])
    t.ok(forbiddenAddress(address), `${address}: refused`)
  for (const address of ['127.0.0.1', '::1', '10.0.0.5', '192.168.1.1', '172.17.0.2', 'fd00::1', 'fec0::1', '8.8.8.8'])
    t.equal(forbiddenAddress(address), undefined, `${address}: allowed`)
  t.equal(maskUrl('https://user:s3cret@hooks.example/x?y=1'), 'https://***:***@hooks.example/x?y=1')
  t.equal(maskUrl('https://token@hooks.example/'), 'https://***@hooks.example/')
  t.equal(maskUrl('http://127.0.0.1:9000/in'), 'http://127.0.0.1:9000/in')
})

t.test(
  'registration refuses a literal link-local or metadata address; loopback and private ones stay allowed',
  async (t) => {
    const { http } = await adminServer(t)
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'http://[fe80::1]:8080/',
      'http://[fd00:ec2::254]/',
    ]) {
      const res = await http.post('/__admin/webhooks').send({ url }).expect(400)
      t.match(res.body, { error_code: 'InvalidInput', message: /link-local|metadata/ }, url)
    }
    for (const url of ['http://127.0.0.1:9/', 'http://10.1.2.3/', 'http://[::1]:9/', 'http://receiver.internal/'])
      await http.post('/__admin/webhooks').send({ url }).expect(201)
  },
)

t.test('a name that resolves to a metadata address is refused at delivery, and the attempt says why', async (t) => {
  const receiver = await webhookReceiver(t)
  const port = new URL(receiver.url).port
  const { http, engine } = await adminServer(t, (name) =>
    name === 'metadata.test' ? ['169.254.169.254'] : ['127.0.0.1'],
  )
  await http
    .post('/__admin/webhooks')
    .send({ url: `http://metadata.test:${port}/`, retries: 2, backoff_ms: 0 })
    .expect(201)
  await http
    .post('/__admin/webhooks')
    .send({ url: `http://receiver.test:${port}/ok`, retries: 0 })
    .expect(201)
  await engine.as(ALICE.user).createSite({ site_data: { site_name: 'hooked', original_site_url: 'https://h.example' } })
  await http.post('/__admin/webhooks/settle').expect(204)
  const { deliveries } = (await http.get('/__admin/webhooks/deliveries').expect(200)).body
  const refused = deliveries.filter((d: { webhook_id: string }) => d.webhook_id === '1')
  t.equal(refused.length, 1, 'one attempt: a refused destination is not retried')
  t.match(refused[0], { outcome: 'failed', status: 0, error: /refused: metadata\.test resolves to 169\.254\.169\.254/ })
  t.same(
    receiver.received.map((r) => r.path),
    ['/ok'],
    'the name that resolves to loopback was delivered; nothing else reached a socket',
  )
})

t.test('credentials in a webhook URL are masked in the list and the deliveries', async (t) => {
  const receiver = await webhookReceiver(t)
  const url = receiver.url.replace('http://', 'http://hook-user:hook-s3cret@')
  const { http, engine } = await adminServer(t)
  await http.post('/__admin/webhooks').send({ url }).expect(201)
  await engine.as(ALICE.user).createSite({ site_data: { site_name: 'masked', original_site_url: 'https://m.example' } })
  await http.post('/__admin/webhooks/settle').expect(204)
  const listed = JSON.stringify((await http.get('/__admin/webhooks').expect(200)).body)
  const delivered = JSON.stringify((await http.get('/__admin/webhooks/deliveries').expect(200)).body)
  for (const [where, text] of [
    ['list', listed],
    ['deliveries', delivered],
  ] as const) {
    t.notMatch(text, /hook-s3cret|hook-user/, `${where}: no credential`)
    t.match(text, '***:***@127.0.0.1', `${where}: masked`)
  }
  t.match(receiver.received[0]?.headers.authorization, /^Basic /, 'the receiver still got the credentials')
})

t.test("and in the CLI's banner", async (t) => {
  const lines = bannerLines({
    url: 'http://127.0.0.1:3000',
    storeLabel: 'memory',
    user: 'admin',
    shared: false,
    demoAccount: 'demo',
    webhooks: ['https://hook-user:hook-s3cret@hooks.example/in'],
    metrics: true,
  })
  t.ok(lines.includes('webhook:  https://***:***@hooks.example/in receives every site event'))
  t.notMatch(lines.join('\n'), /hook-s3cret|hook-user/)
})

t.test('a receiver that hangs: drops are counted, not listed, and the other webhook keeps its log', async (t) => {
  const hanging = await webhookReceiver(t)
  hanging.answers = Array(2000).fill('hold')
  const fine = await webhookReceiver(t)
  const { http, engine, server } = await adminServer(t)
  await http
    .post('/__admin/webhooks')
    .send({ url: `${fine.url}/fine`, events: ['SITE_CREATED'] })
    .expect(201)
  await http
    .post('/__admin/webhooks')
    .send({ url: `${hanging.url}/hang`, events: ['PUBLISH', 'UNPUBLISH'] })
    .expect(201)
  const api = engine.as(ALICE.user)
  await api.createSite({ site_data: { site_name: 'flood', original_site_url: 'https://f.example' } })
  await http.post('/__admin/webhooks/settle').expect(204)
  for (let i = 0; i < 1_100; i++) await (i % 2 === 0 ? api.publishSite('flood') : api.unpublishSite('flood'))
  const answer = (await http.get('/__admin/webhooks/deliveries').expect(200)).body
  t.ok(answer.dropped >= 100, `${answer.dropped} drops counted`)
  t.equal(answer.pending, 1_000, 'the queue holds its bound')
  t.notOk(
    answer.deliveries.some((d: { outcome: string }) => d.outcome === 'dropped'),
    'no drop is listed one by one',
  )
  t.ok(
    answer.deliveries.some(
      (d: { url: string; outcome: string }) => d.url.endsWith('/fine') && d.outcome === 'delivered',
    ),
    "the other webhook's delivered attempt is still in the log",
  )
  const metrics = await (await fetch(`${server.url}/metrics`)).text()
  t.match(metrics, new RegExp(`mobisite_webhook_drops_total ${answer.dropped}\\b`), 'and in /metrics')
  hanging.release()
})

t.test('drops are logged at most once per 10 s, with the number since the line before', async (t) => {
  const { logger, lines } = capturedLogger()
  let now = 0
  const report = webhookDropReporter(logger, undefined, () => now)
  for (let i = 0; i < 500; i++) report('1000 deliveries are already pending')
  now = 9_999
  report('1000 deliveries are already pending')
  now = 10_000
  report('its webhook was deleted')
  t.same(
    lines.map((line) => [line.level, line.dropped, line.reason]),
    [
      [40, 1, '1000 deliveries are already pending'],
      [40, 501, 'its webhook was deleted'],
    ],
  )
})
