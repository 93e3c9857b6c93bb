/**
 * Webhooks of the test double, received by a real local HTTP server: the
 * events of every site change in Duda's shape (over HTTP and in process, on
 * every store), the signature, event filters, delivery only after the
 * answer, retries with backoff, the deliveries log, settle, bounds, reset,
 * and webhooks given to startServer.
 */
import { createHmac } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { MemoryStore, createEngine, startServer } from '../../lib/index.js'
import { signWebhook, verifyWebhook } from '../../lib/testing/index.js'
import { rejectsWith } from '../helpers/api.js'
import { checkedRequest } from '../helpers/openapi-check.js'
import { ALICE, BOB, STORES, adminServer, basic } from '../helpers/testing.js'
import { webhookReceiver } from '../helpers/webhook-receiver.js'

const site = (site_name: string, extra: object = {}, data: object = {}) => ({
  site_data: { site_name, original_site_url: `https://${site_name}.example`, ...data },
  ...extra,
})
const T = Date.parse('2025-05-01T09:00:00Z')

/** A loopback URL where nothing listens: a port the system handed out, closed again. */
async function closedPort(): Promise<string> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as AddressInfo
  await new Promise((resolve) => probe.close(resolve))
  return `http://127.0.0.1:${port}/`
}

t.test("Duda's signature: the worked example of its documentation", async (t) => {
  const body = "{'key1':'world','key2':'world'}"
  t.equal(signWebhook('mysecretsecret', 1570350275357, body), '+DCfT1wIMUiaZnlZB4u59/d5wkXKA89lv67Ov66vnyc=')
  t.ok(
    verifyWebhook(
      'mysecretsecret',
      { signature: '+DCfT1wIMUiaZnlZB4u59/d5wkXKA89lv67Ov66vnyc=', timestamp: '1570350275357' },
      body,
    ),
  )
  t.notOk(verifyWebhook('other', { signature: '+DCfT1wIMUiaZnlZB4u59/d5wkXKA89lv67Ov66vnyc=', timestamp: '1' }, body))
  t.notOk(verifyWebhook('mysecretsecret', { signature: undefined, timestamp: '1570350275357' }, body))
})

for (const kind of STORES) {
  t.test(`${kind.name}: every site change reaches the receiver, in order, in Duda's shape`, async (t) => {
    const { server, http, alice } = await adminServer(t, kind)
    const admin = checkedRequest(server.url, '')
    const api = checkedRequest(server.url)
    const receiver = await webhookReceiver(t)
    await admin.put('/__admin/clock').send({ now: '2025-05-01T09:00:00' }).expect(200)
    const { id } = (
      await admin
        .post('/__admin/webhooks')
        .send({ url: `${receiver.url}/hook`, secret: 's3cret' })
        .expect(201)
    ).body
    t.equal(id, '1')
    t.same((await admin.get('/__admin/webhooks').expect(200)).body, {
      webhooks: [{ id: '1', url: `${receiver.url}/hook`, signed: true, retries: 3, backoff_ms: 1000 }],
    })

    await api
      .post('/api/sites/create')
      .set('authorization', alice)
      .send(site('shop', {}, { external_uid: 'ext-1' }))
      .expect(200)
    await api.post('/api/sites/publish/shop').set('authorization', alice).expect(204)
    await api.post('/api/sites/publish/shop').set('authorization', alice).expect(204)
    await api.post('/api/sites/unpublish/shop').set('authorization', alice).expect(204)
    await api.post('/api/sites/publish/shop').query({ test: 'true' }).set('authorization', alice).expect(204)
    await api.post('/api/sites/recreate/shop').set('authorization', alice).send({ republish: true }).expect(204)
    await api.delete('/api/sites/shop').set('authorization', alice).expect(204)
    await http.post('/__admin/webhooks/settle').expect(204)

    const events = receiver.received.map((r) => r.json)
    t.same(
      events.map((e) => e.event_type),
      ['SITE_CREATED', 'PUBLISH', 'PUBLISH', 'UNPUBLISH', 'PUBLISH', 'UNPUBLISH', 'PUBLISH', 'SITE_DELETED'],
      'one event per change, in the order of the calls (recreate: off production, then republished)',
    )
    const common = {
      event_timestamp: T,
      resource_type: 'site',
      resource_data: { site_name: 'shop', external_id: 'ext-1' },
      source: { type: 'API', account_name: 'alice' },
    }
    t.same(events[0], { event_type: 'SITE_CREATED', ...common }, 'the engine clock stamps events')
    t.same(events[1], { event_type: 'PUBLISH', ...common, data: { republish: false, first_publish: true } })
    t.same(events[2]!.data, { republish: true, first_publish: false }, 'a publish of a published site')
    t.same(events[3], { event_type: 'UNPUBLISH', ...common, data: T }, 'UNPUBLISH carries its time')
    t.same(events[4]!.data, { republish: false, first_publish: false }, 'published again after an unpublish')
    t.same(events[7], { event_type: 'SITE_DELETED', ...common })
    for (const r of receiver.received) {
      t.equal(r.path, '/hook')
      t.equal(r.headers['content-type'], 'application/json')
      const timestamp = r.headers['x-duda-signature-timestamp'] as string
      const expected = createHmac('sha256', 's3cret').update(`${timestamp}.${r.body}`).digest('base64')
      t.equal(r.headers['x-duda-signature'], expected, 'base64 HMAC-SHA256 of "timestamp.body"')
    }
    const { body } = await admin.get('/__admin/webhooks/deliveries').expect(200)
    t.equal(body.pending, 0)
    t.equal(body.deliveries.length, 8)
    t.match(body.deliveries[0], {
      id: 1,
      webhook_id: '1',
      url: `${receiver.url}/hook`,
      attempt: 1,
      status: 200,
      outcome: 'delivered',
      event: { event_type: 'SITE_CREATED' },
    })
    t.notOk('error' in body.deliveries[0])
  })
}

t.test('in process: the engine emits, whichever way the call came', async (t) => {
  const { server, engine } = await adminServer(t, STORES[0]!)
  const receiver = await webhookReceiver(t)
  const c = server.controls
  t.same(c.addWebhook({ url: receiver.url, events: ['SITE_CREATED', 'PUBLISH'] }), { id: '1' })
  await engine.as('alice').createSite(site('inproc', { publish_now: true }))
  await engine.as('alice').createSite(site('later', { create_now: 'false', publish_now: 'true' }))
  // A create_now=false site is built, and published, on its first visit.
  await c.recordVisits({ site_name: 'later', visitor_id: 'v1' })
  await engine.as('alice').createSite(site('background', { create_now: 'async', publish_now: true }))
  await c.settleBuilds()
  await engine.as('alice').unpublishSite('inproc')
  await c.settleWebhooks()
  t.same(
    receiver.received.map((r) => [r.json.event_type, (r.json.resource_data as { site_name: string }).site_name]),
    [
      ['SITE_CREATED', 'inproc'],
      ['PUBLISH', 'inproc'],
      ['SITE_CREATED', 'later'],
      ['PUBLISH', 'later'],
      ['SITE_CREATED', 'background'],
      ['PUBLISH', 'background'],
    ],
    'only the events asked for; builds on first visit and in the background publish too',
  )
  t.notOk('x-duda-signature' in receiver.received[0]!.headers, 'unsigned without a secret')
  t.notOk('external_id' in (receiver.received[0]!.json.resource_data as object), 'no external_uid, no external_id')

  c.setBuilder({ outcome: 'FAILED', times: 1 })
  await rejectsWith(t, engine.as('alice').createSite(site('broken')), 'InvalidInput')
  await c.settleWebhooks()
  t.equal(receiver.received.length, 6, 'a create whose build fails announces nothing')
  await rejectsWith(t, engine.as('bob').deleteSite('inproc'), 'ResourceNotExist')
  t.same(c.webhookDeliveries().pending, 0, 'a refused call emits nothing')
})

t.test('a receiver that does not answer never holds the API answer', async (t) => {
  const { server, alice } = await adminServer(t, STORES[0]!)
  const api = checkedRequest(server.url)
  const receiver = await webhookReceiver(t)
  receiver.answers.push('hold')
  server.controls.addWebhook({ url: receiver.url })
  await api.post('/api/sites/create').set('authorization', alice).send(site('held')).expect(200)
  await receiver.waitFor(1)
  // The receiver holds the delivery unanswered, and the API answers all the same.
  await api.get('/api/sites/held').set('authorization', alice).expect(200)
  t.equal(server.controls.webhookDeliveries().pending, 1, 'the delivery is still in flight')
  receiver.release()
  await server.controls.settleWebhooks()
  t.match(server.controls.webhookDeliveries().deliveries, [{ outcome: 'delivered', status: 200 }])
})

t.test('retries with backoff, then delivered or failed; every attempt logged', async (t) => {
  const { server, alice } = await adminServer(t, STORES[0]!)
  const http = checkedRequest(server.url, '')
  const api = checkedRequest(server.url)
  const receiver = await webhookReceiver(t)
  receiver.answers.push(500, 503)
  await http.post('/__admin/webhooks').send({ url: receiver.url, retries: 2, backoff_ms: 20 }).expect(201)
  await http
    .post('/__admin/webhooks')
    .send({ url: await closedPort(), retries: 1, backoff_ms: 10 })
    .expect(201)
  await api.post('/api/sites/create').set('authorization', alice).send(site('retry')).expect(200)
  await http.post('/__admin/webhooks/settle').expect(204)
  const { deliveries, pending } = (await http.get('/__admin/webhooks/deliveries').expect(200)).body
  t.equal(pending, 0)
  const of = (webhook: string) =>
    deliveries
      .filter((d: { webhook_id: string }) => d.webhook_id === webhook)
      .map((d: { attempt: number; status: number; outcome: string }) => [d.attempt, d.status, d.outcome])
  t.same(of('1'), [
    [1, 500, 'retrying'],
    [2, 503, 'retrying'],
    [3, 200, 'delivered'],
  ])
  t.same(of('2'), [
    [1, 0, 'retrying'],
    [2, 0, 'failed'],
  ])
  t.match(
    deliveries.find((d: { webhook_id: string }) => d.webhook_id === '2'),
    { error: /ECONNREFUSED/ },
  )
  t.equal(
    new Set(
      deliveries
        .filter((d: { webhook_id: string }) => d.webhook_id === '1')
        .map((d: { delivery: number }) => d.delivery),
    ).size,
    1,
    'one delivery id for its attempts',
  )
  t.equal(receiver.received.length, 3)
  t.same(receiver.received[0]!.body, receiver.received[2]!.body, 'a retry sends the same event')
  await http.delete('/__admin/webhooks/deliveries').expect(204)
  t.same((await http.get('/__admin/webhooks/deliveries').expect(200)).body, { pending: 0, dropped: 0, deliveries: [] })
})

t.test('registration: validation, bounds, delete, and what reset keeps', async (t) => {
  const engine = createEngine()
  await engine.addMasterAccount(ALICE)
  await engine.addMasterAccount(BOB)
  const receiver = await webhookReceiver(t)
  const server = await startServer({
    engine,
    admin: true,
    webhooks: [{ url: `${receiver.url}/kept`, events: ['PUBLISH'] }],
  })
  t.teardown(() => server.close())
  const admin = checkedRequest(server.url, '')
  for (const [body, message] of [
    [{}, /url is required/],
    [{ url: 'ftp://x.example' }, /url must be an absolute http\(s\) URL/],
    [{ url: receiver.url, events: ['NOPE'] }, /events\[0\] must be one of/],
    [{ url: receiver.url, events: [] }, /events must have at least 1 item/],
    [{ url: receiver.url, retries: 11 }, /retries/],
    [{ url: receiver.url, secret: '' }, /secret must not be empty/],
    [{ url: receiver.url, colour: 'red' }, /unknown field colour/],
  ] as const) {
    const res = await admin.post('/__admin/webhooks').send(body).expect(400)
    t.match(res.body, { error_code: 'InvalidInput', message }, JSON.stringify(body))
  }
  t.same(
    server.controls.webhooks().webhooks.map((w) => w.url),
    [`${receiver.url}/kept`],
    'the start-up webhook',
  )
  await t.rejects(
    startServer({ engine, webhooks: [{ url: 'nope' }] }),
    /webhooks\[0\]: url must be an absolute http\(s\) URL/,
    'startServer checks its webhooks',
  )
  for (let i = 0; i < 99; i++)
    await admin
      .post('/__admin/webhooks')
      .send({ url: `${receiver.url}/${i}` })
      .expect(201)
  t.match((await admin.post('/__admin/webhooks').send({ url: receiver.url }).expect(400)).body.message, /at most 100/)
  await admin.delete('/__admin/webhooks/5').expect(204)
  await admin.delete('/__admin/webhooks/5').expect(404)
  t.equal(server.controls.webhooks().webhooks.length, 99)
  await admin.post('/__admin/reset').expect(204)
  t.same(
    (await admin.get('/__admin/webhooks').expect(200)).body.webhooks,
    [{ id: '1', url: `${receiver.url}/kept`, events: ['PUBLISH'], signed: false, retries: 3, backoff_ms: 1000 }],
    'reset keeps only the webhooks given at start',
  )
  await admin.delete('/__admin/webhooks').expect(204)
  t.same(server.controls.webhooks(), { webhooks: [] })
  await admin.post('/__admin/reset').expect(204)
  t.equal(server.controls.webhooks().webhooks.length, 1, 'and brings them back')
  await checkedRequest(server.url)
    .post('/api/sites/create')
    .set('authorization', basic(ALICE.user, ALICE.password))
    .send(site('kept', { publish_now: true }))
    .expect(200)
  await admin.post('/__admin/webhooks/settle').expect(204)
  t.same(
    receiver.received.map((r) => [r.path, r.json.event_type]),
    [['/kept', 'PUBLISH']],
  )
})

t.test('webhooks without admin: startServer({ webhooks }) alone', async (t) => {
  const receiver = await webhookReceiver(t)
  const engine = createEngine()
  await engine.addMasterAccount(ALICE)
  const server = await startServer({ engine, webhooks: [{ url: receiver.url, secret: 'k' }] })
  t.teardown(() => server.close())
  await checkedRequest(server.url)
    .post('/api/sites/create')
    .set('authorization', basic(ALICE.user, ALICE.password))
    .send(site('plain'))
    .expect(200)
  await receiver.waitFor(1)
  const [delivery] = receiver.received
  t.equal(delivery!.json.event_type, 'SITE_CREATED')
  t.ok(
    verifyWebhook(
      'k',
      {
        signature: delivery!.headers['x-duda-signature'] as string,
        timestamp: delivery!.headers['x-duda-signature-timestamp'] as string,
      },
      delivery!.body,
    ),
  )
  t.equal((await fetch(`${server.url}/__admin/webhooks`)).status, 404, 'no admin path')
})

t.test('while no webhook listens, the rules read nothing more for events', async (t) => {
  let reads = 0
  class CountingStore extends MemoryStore {
    override getSite(site_name: string) {
      reads++
      return super.getSite(site_name)
    }
  }
  const engine = createEngine({ store: new CountingStore() })
  await engine.addMasterAccount(ALICE)
  const server = await startServer({ engine, admin: true })
  t.teardown(() => server.close())
  const api = engine.as('alice')
  await api.createSite(site('quiet'))
  reads = 0
  await api.publishSite('quiet')
  await api.deleteSite('quiet')
  t.equal(reads, 0, 'publish and delete: no read for an event nobody hears')
  const receiver = await webhookReceiver(t)
  const { id } = server.controls.addWebhook({ url: receiver.url })
  await api.createSite(site('heard'))
  reads = 0
  await api.publishSite('heard')
  await api.deleteSite('heard')
  t.equal(reads, 2, 'with a webhook: one read each, for the event')
  server.controls.deleteWebhook(id)
  await api.createSite(site('quiet-again'))
  reads = 0
  await api.publishSite('quiet-again')
  t.equal(reads, 0, 'the last webhook deleted: quiet again')
  await server.controls.settleWebhooks()
})
