/**
 * A seed body that carries the clock (docs/testing.md, "Seed and snapshot"):
 * `"clock"` freezes the engine clock before any record of the body is made,
 * so one call gives deterministic dates; reset takes the clock back to real
 * time. Over HTTP against startServer({ admin: true }), on every store.
 */
import t from 'tap'
import { ALICE, STORES, adminServer } from '../helpers/testing.js'

const FIXTURES = {
  clock: '2026-03-01T09:30:00Z',
  sites: [{ owner: 'alice', site_name: 'clockshop', original_site_url: 'https://shop.example', published: true }],
  accounts: [{ owner: 'alice', account_name: 'clerk' }],
  visits: [{ site_name: 'clockshop', visitor_id: 'v1' }],
}

for (const kind of STORES) {
  t.test(`${kind.name}: reset, then one seed with a clock, gives the clock's dates`, async (t) => {
    const { http, alice } = await adminServer(t, kind)
    await http.post('/__admin/reset').expect(204)
    await http.post('/__admin/seed').send(FIXTURES).expect(204)
    t.same((await http.get('/__admin/clock').expect(200)).body, { now: '2026-03-01T09:30:00', frozen: true })
    const site = (await http.get('/api/sites/clockshop').set('authorization', alice).expect(200)).body
    t.equal(site.last_published_date, '2026-03-01T09:30:00', 'published at the seeded clock')
    t.same(
      (await http.get('/api/sites/created?from=2026-03-01&to=2026-03-01T23:59:59').set('authorization', alice)).body,
      [{ site_name: 'clockshop' }],
      'created on the seeded day',
    )
    t.same(
      (await http.get('/api/analytics/site/clockshop?from=2026-03-01&to=2026-03-01').set('authorization', alice)).body,
      { UNIQUE_VISITORS: 1, VISITS: 1, PAGE_VIEWS: 1 },
      'a visit without `at` is recorded on the seeded day',
    )
    const snapshot = (await http.get('/__admin/snapshot').expect(200)).body
    t.equal(snapshot.sites[0].created_at.slice(0, 19), '2026-03-01T09:30:00', 'the snapshot says so too')
    t.equal(snapshot.clock, undefined, 'a snapshot carries no clock: seeding it never stops time')

    await http.post('/__admin/reset').expect(204)
    t.equal(
      (await http.get('/__admin/clock').expect(200)).body.frozen,
      false,
      'reset takes the clock back to real time',
    )
  })

  t.test(`${kind.name}: a bad clock is listed with the other problems, and nothing moves`, async (t) => {
    const { http, alice } = await adminServer(t, kind)
    for (const clock of ['2026-02-30', 'tomorrow', 1_700_000_000]) {
      const res = await http
        .post('/__admin/seed')
        .send({ ...FIXTURES, clock })
        .expect(400)
      t.equal(res.body.error_code, 'InvalidInput')
      t.match(res.body.message, /clock/, `${JSON.stringify(clock)}: names the clock`)
    }
    const refused = await http
      .post('/__admin/seed')
      .send({ ...FIXTURES, sites: [{ ...FIXTURES.sites[0], owner: 'nobody' }] })
      .expect(400)
    t.match(refused.body.message, /owner nobody is not a master account/)
    t.equal((await http.get('/__admin/clock').expect(200)).body.frozen, false, 'a refused seed leaves the clock alone')
    t.equal((await http.get('/api/sites/clockshop').set('authorization', alice)).status, 400, 'and applies nothing')
  })
}

t.test('in process: controls.seed takes the clock the same way', async (t) => {
  const { server } = await adminServer(t, STORES[0]!)
  await server.controls.seed({ ...FIXTURES, clock: '2025-12-31T23:59:59' })
  t.same(server.controls.clock(), { now: '2025-12-31T23:59:59', frozen: true })
  const site = await server.engine.as(ALICE.user).getSite('clockshop')
  t.equal(site.last_published_date, '2025-12-31T23:59:59')
})
