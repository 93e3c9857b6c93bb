/**
 * Duda's own client, unmodified, against startServer({ tls: true }): every
 * sites and site-reporting call, each checked through the client, through
 * the spec's paths and in process, on every store configured (MemoryStore
 * always; RedisStore with REDIS_URL, PostgresStore with DATABASE_URL).
 * Every answer the server gave is then checked against the OpenAPI document.
 */
import { request as httpsRequest } from 'node:https'
import { connect } from 'node:tls'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { FakeClock } from '../helpers/api.js'
import { clientError, dudaClient, dudaServer, type DudaFixture } from '../helpers/duda/client.js'
import { problemsAgainstDocument } from '../helpers/openapi-check.js'
import { DATABASE_URL } from '../helpers/postgres.js'
import { REDIS_URL } from '../helpers/redis.js'
import { ALICE, STORES, basic } from '../helpers/testing.js'
import { webhookReceiver } from '../helpers/webhook-receiver.js'

/** A spec-path call over the same TLS connection settings: `{ status, body }`. */
function spec(
  f: DudaFixture,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body)
    const req = httpsRequest(
      {
        host: 'localhost',
        path: `/api${path}`,
        method,
        agent: f.via.agent,
        headers: {
          authorization: basic(ALICE.user, ALICE.password),
          ...(text === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }),
        },
      },
      (res) => {
        let data = ''
        res.on('data', (chunk) => (data += chunk))
        res.on('end', () => resolve({ status: res.statusCode!, body: data === '' ? undefined : JSON.parse(data) }))
      },
    )
    req.on('error', reject)
    req.end(text)
  })
}

for (const [name, url] of [
  ['redis', REDIS_URL],
  ['postgres', DATABASE_URL],
] as const) {
  if (!url) t.comment(`${name}: skipped, ${name === 'redis' ? 'REDIS_URL' : 'DATABASE_URL'} is not set`)
}

for (const kind of STORES) {
  t.test(`${kind.name}: the Duda client's sites calls`, async (t) => {
    const clock = new FakeClock('2026-03-02T10:00:00')
    const receiver = await webhookReceiver(t)
    const f = await dudaServer(t, kind, { now: clock.now }, { webhooks: [{ url: receiver.url }] })
    const { duda, via, engine } = f
    const alice = engine.as(ALICE.user)

    await t.test('create with template, url and prefix: the same site on both paths, SITE_CREATED sent', async (t) => {
      const made = await duda.sites.create(
        {
          template_id: 1027437,
          url: 'https://www.trattoria.example/',
          default_domain_prefix: 'trattoria',
          site_data: { external_uid: 'ext-1', site_business_info: { business_name: 'Trattoria' } },
        } as never,
        via,
      )
      t.same(made, { site_name: 'trattoria' })
      const site = await duda.sites.get({ site_name: 'trattoria' }, via)
      t.match(site, {
        site_name: 'trattoria',
        account_name: 'alice',
        template_id: 1027437,
        external_uid: 'ext-1',
        site_business_info: { business_name: 'Trattoria' },
        creation_date: '2026-03-02T10:00:00',
        publish_status: 'NOT_PUBLISHED_YET',
      })
      const old = await spec(f, 'GET', '/sites/trattoria')
      t.equal(old.status, 200)
      t.equal(old.body.original_site_url, 'https://www.trattoria.example/')
      t.equal((await alice.getSite('trattoria')).external_uid, 'ext-1')
      await receiver.waitFor(1)
      t.match(receiver.received[0]!.json, { event_type: 'SITE_CREATED', resource_data: { site_name: 'trattoria' } })
    })

    await t.test('create with nothing: an 8-hex name, a placeholder desktop URL on the spec path', async (t) => {
      const { site_name } = await duda.sites.create({} as never, via)
      t.match(site_name, /^[0-9a-f]{8}$/)
      const old = await spec(f, 'GET', `/sites/${site_name}`)
      t.equal(old.body.original_site_url, `https://${site_name}.mobisite.invalid/`)
      t.notOk('template_id' in (await duda.sites.get({ site_name }, via)))
      await duda.sites.delete({ site_name }, via)
    })

    await t.test('create refuses unknown fields and taken names with the error body', async (t) => {
      const unknown = await clientError(duda.sites.create({ lang: 'en' } as never, via))
      t.match(unknown, { status: 400, error: { error_code: 'InvalidInput', message: /lang/ } })
      const taken = await clientError(duda.sites.create({ default_domain_prefix: 'TRATTORIA' } as never, via))
      t.match(taken, { status: 400, error: { error_code: 'ResourceAlreadyExist' } })
      const reserved = await clientError(duda.sites.create({ default_domain_prefix: 'multiscreen' } as never, via))
      t.match(reserved, { status: 400, error: { error_code: 'InvalidInput', message: /reserved/ } })
    })

    await t.test('list pages through the sites with offset and limit', async (t) => {
      clock.advance(60)
      await duda.sites.create({ default_domain_prefix: 'pizzeria', url: 'https://pizzeria.example/' } as never, via)
      clock.advance(60)
      await duda.sites.create({ default_domain_prefix: 'osteria', url: 'https://osteria.example/' } as never, via)
      const page = await duda.sites.list({ offset: 1, limit: 1 }, via)
      t.match(page, { offset: 1, limit: 1, total_responses: 3 })
      t.same(
        page.results.map((s) => s.site_name),
        ['pizzeria'],
      )
      const all = await duda.sites.list({}, via)
      t.same(
        all.results.map((s) => s.site_name),
        ['trattoria', 'pizzeria', 'osteria'],
      )
      const desc = await duda.sites.list({ direction: 'desc', limit: 2 }, via)
      t.same(
        desc.results.map((s) => s.site_name),
        ['osteria', 'pizzeria'],
      )
      t.match(await clientError(duda.sites.list({ limit: 0 }, via)), {
        status: 400,
        error: { error_code: 'InvalidInput' },
      })
      t.same((await f.dudaBob.sites.list({}, via)).total_responses, 0, "another master sees none of alice's sites")
    })

    await t.test('errors: the client sees the statuses Duda documents (400, 401, 404)', async (t) => {
      t.match(await clientError(duda.sites.delete({ site_name: 'nosuchsite' }, via)), {
        status: 400,
        error: { error_code: 'ResourceNotExist' },
      })
      const wrong = dudaClient({ user: ALICE.user, password: `${ALICE.password}-wrong` })
      t.match(await clientError(wrong.sites.get({ site_name: 'trattoria' }, via)), {
        status: 401,
        error: { error_code: 'Unauthorized' },
      })
      t.match(await clientError(duda.templates.get({ template_id_or_alias: '1000' } as never, via)), {
        status: 404,
        error: { error_code: 'NotFound' },
      })
    })

    await t.test('get: a missing or foreign site is ResourceNotExist', async (t) => {
      t.match(await clientError(duda.sites.get({ site_name: 'nosuchsite' }, via)), {
        status: 400,
        error: { error_code: 'ResourceNotExist', message: /nosuchsite/ },
      })
      t.match(await clientError(f.dudaBob.sites.get({ site_name: 'trattoria' }, via)), {
        error: { error_code: 'ResourceNotExist' },
      })
    })

    await t.test('update changes the fields given, seen on both paths', async (t) => {
      clock.advance(60)
      await duda.sites.update(
        { site_name: 'trattoria', site_domain: 'www.trattoria.example', external_uid: 'ext-2' },
        via,
      )
      const site = await duda.sites.get({ site_name: 'trattoria' }, via)
      t.match(site, { site_domain: 'www.trattoria.example', external_uid: 'ext-2', modification_date: clock.iso() })
      t.equal((await spec(f, 'GET', '/sites/trattoria')).body.site_domain, 'www.trattoria.example')
      t.equal((await alice.getSite('trattoria')).external_uid, 'ext-2')
      t.match(await clientError(duda.sites.update({ site_name: 'trattoria', force_https: true } as never, via)), {
        status: 400,
        error: { error_code: 'InvalidInput', message: /force_https/ },
      })
    })

    await t.test('getByExternalID: the names of the sites with it', async (t) => {
      t.same(await duda.sites.getByExternalID({ external_uid: 'ext-2' }, via), ['trattoria'])
      t.same(await duda.sites.getByExternalID({ external_uid: 'nobody' }, via), [])
    })

    await t.test('publish charges the first publish once; published listing and status follow', async (t) => {
      clock.advance(60)
      await duda.sites.publish({ site_name: 'trattoria' }, via)
      await duda.sites.publish({ site_name: 'trattoria' }, via)
      const site = await duda.sites.get({ site_name: 'trattoria' }, via)
      t.match(site, {
        publish_status: 'PUBLISHED',
        last_published_date: clock.iso(),
        first_published_date: clock.iso(),
      })
      t.equal((await spec(f, 'GET', '/sites/trattoria')).body.last_published_date, clock.iso())
      const billing = await engine.billing('alice')
      t.equal(billing.charges.length, 1, 'one charge for two publishes')
      t.same(await duda.reporting.sites.published({}, via), ['trattoria'])
      t.match(await clientError(duda.sites.publish({ site_name: 'nosuchsite' }, via)), {
        error: { error_code: 'ResourceNotExist' },
      })
    })

    await t.test('unpublish: the unpublished listing, the status, the spec path and UNPUBLISH', async (t) => {
      clock.advance(60)
      await duda.sites.unpublish({ site_name: 'trattoria' }, via)
      t.equal((await duda.sites.get({ site_name: 'trattoria' }, via)).publish_status, 'UNPUBLISHED')
      t.notOk('last_published_date' in (await spec(f, 'GET', '/sites/trattoria')).body)
      t.same(await duda.reporting.sites.unpublished({}, via), ['trattoria'])
      t.same(await duda.reporting.sites.published({}, via), [])
      t.ok((await alice.getSite('trattoria')).last_published_date === undefined)
    })

    await t.test('options sent as a GET body without a length: the default period, Connection: close', async (t) => {
      // The client sends { lastDays } and { from, to } as a body on these GETs.
      t.same(await duda.reporting.sites.unpublished({ lastDays: 3 }, via), ['trattoria'])
      const created = await duda.reporting.sites.created({ from: '2020-01-01', to: '2020-01-02' }, via)
      t.same(created, ['trattoria', 'pizzeria', 'osteria'], 'the body is not read: the default 7 days')
      t.equal(f.exchanges.at(-1)!.status, 200)
    })

    await t.test('reset records the template and can drop the business info', async (t) => {
      clock.advance(60)
      await duda.sites.reset(
        { site_name: 'trattoria', template_alias: 'x', template_id: 99, site_data: { removeBizInfos: true } },
        via,
      )
      const site = await duda.sites.get({ site_name: 'trattoria' }, via)
      t.equal((site as { template_id?: number }).template_id, 99)
      t.notOk('site_business_info' in site)
      t.notOk('site_business_info' in (await spec(f, 'GET', '/sites/trattoria')).body)
    })

    await t.test('activities: the log, filtered by type, paged, newest first', async (t) => {
      const log = await duda.reporting.activities.get({ site_name: 'trattoria' }, via)
      t.same(
        log.results.map((e) => e.activity),
        ['site_reset', 'site_unpublished', 'site_published', 'site_published', 'site_created'],
        'every event, newest first: both publishes are there',
      )
      t.match(log.results[0], { source: 'API', account_name: 'alice', date: clock.iso() })
      const only = await duda.reporting.activities.get({ site_name: 'trattoria', activities: 'site_created' }, via)
      t.same(only, {
        site_name: 'trattoria',
        results: [{ date: '2026-03-02T10:00:00', activity: 'site_created', source: 'API', account_name: 'alice' }],
      })
      t.match(
        await clientError(duda.reporting.activities.get({ site_name: 'trattoria', activities: 'page_created' }, via)),
        {
          error: { error_code: 'InvalidInput', message: /page_created/ },
        },
      )
      const page = await duda.reporting.activities.get({ site_name: 'trattoria', offset: 1, limit: 2 }, via)
      t.same(
        page.results.map((e) => e.activity),
        ['site_unpublished', 'site_published'],
      )
      const inProcess = await alice.dudaSiteActivities('trattoria', { activities: 'site_published' })
      t.equal(inProcess.results.length, 2, 'the same log in process')
    })

    await t.test("the spec's create writes the log; its publish and unpublish do not", async (t) => {
      await spec(f, 'POST', '/sites/create', {
        site_data: { site_name: 'logged', original_site_url: 'https://l.example/' },
      })
      await spec(f, 'POST', '/sites/publish/logged?test=true')
      await spec(f, 'POST', '/sites/unpublish/logged')
      const log = await duda.reporting.activities.get({ site_name: 'logged' }, via)
      t.same(
        log.results.map((e) => e.activity),
        ['site_created'],
      )
      await spec(f, 'DELETE', '/sites/logged')
    })

    await t.test('duplicate: a new unpublished site with the properties, SITE_CREATED sent', async (t) => {
      const before = receiver.received.length
      const copy = await duda.sites.duplicate(
        { site_name: 'trattoria', new_default_domain_prefix: 'trattoria-copy', new_external_uid: 'ext-3' },
        via,
      )
      t.same(copy, { site_name: 'trattoria-copy' })
      t.match(await duda.sites.get({ site_name: 'trattoria-copy' }, via), {
        external_uid: 'ext-3',
        site_domain: 'www.trattoria.example',
        template_id: 99,
        publish_status: 'NOT_PUBLISHED_YET',
      })
      t.equal((await spec(f, 'GET', '/sites/trattoria-copy')).body.original_site_url, 'https://www.trattoria.example/')
      await receiver.waitFor(before + 1)
      t.ok(receiver.received.slice(before).some((d) => d.json.event_type === 'SITE_CREATED'))
    })

    await t.test('delete: gone on both paths, the subscription cancelled, SITE_DELETED sent', async (t) => {
      const before = receiver.received.length
      await duda.sites.delete({ site_name: 'trattoria' }, via)
      t.match(await spec(f, 'GET', '/sites/trattoria'), { status: 400, body: { error_code: 'ResourceNotExist' } })
      t.match(await clientError(duda.sites.get({ site_name: 'trattoria' }, via)), {
        error: { error_code: 'ResourceNotExist' },
      })
      const billing = await engine.billing('alice')
      t.same(billing.subscriptions, [{ site_name: 'trattoria', status: 'cancelled' }])
      await receiver.waitFor(before + 1)
      t.ok(receiver.received.slice(before).some((d) => d.json.event_type === 'SITE_DELETED'))
      t.match(await clientError(duda.sites.delete({ site_name: 'trattoria' }, via)), {
        error: { error_code: 'ResourceNotExist' },
      })
    })

    await t.test('a site made on the spec path is a Duda site too', async (t) => {
      const made = await spec(f, 'POST', '/sites/create', {
        site_data: { site_name: 'specsite', original_site_url: 'https://spec.example/' },
      })
      t.equal(made.status, 200)
      t.match(await duda.sites.get({ site_name: 'specsite' }, via), {
        site_name: 'specsite',
        publish_status: 'NOT_PUBLISHED_YET',
      })
    })

    t.test('every answer conforms to the OpenAPI document', async (t) => {
      t.ok(f.exchanges.length > 30)
      t.same(f.exchanges.flatMap(problemsAgainstDocument), [])
    })
  })
}

t.test(
  'the client reaches startServer({ tls: true, port: 443 }) with nothing but trust of server.ca',
  async (t: Test) => {
    const { bindPort443 } = await import('../helpers/duda/client.js')
    const f = await bindPort443(t)
    if (!f) return
    t.same(await f.duda.sites.list({}, { agent: f.agent }), { offset: 0, limit: 50, total_responses: 0, results: [] })
  },
)

t.test(
  'a GET body without a length, on a raw socket: the request in hand answered, then Connection: close',
  async (t) => {
    const kind = STORES[0]!
    const f = await dudaServer(t, kind)
    const { port } = f.server.server.address() as AddressInfo
    const body = JSON.stringify({ from: '2020-01-01', to: '2020-01-02' })
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, servername: 'localhost', ca: f.server.ca! })
      let data = ''
      socket.on('data', (chunk) => (data += chunk))
      socket.on('end', () => resolve(data))
      socket.on('error', reject)
      socket.write(
        'GET /api/sites/multiscreen/created HTTP/1.1\r\nHost: localhost\r\n' +
          `Authorization: ${basic(ALICE.user, ALICE.password)}\r\nContent-Type: application/json\r\n\r\n${body}`,
      )
    })
    const [head, answer] = raw.split('\r\n\r\n')
    t.match(head, /^HTTP\/1\.1 200 OK\r\n/)
    t.match(head, /\r\nConnection: close/i)
    t.equal(answer, '[]', 'the default period, not the body')
    t.equal(raw.match(/HTTP\/1\.1/g)?.length, 1, 'one answer: the leftover bytes are never read as a request')
  },
)
