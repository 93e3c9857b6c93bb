/**
 * PostgresStore's analytics layout (migration 6) where the conformance suite
 * does not reach: a site-day past visitor_slots() (its row holds 512
 * visitor triples, the rest are rows of visitor_overflow) still counts
 * exactly, a returning visitor is never counted twice across the two, and
 * an export/import, a retention sweep and Delete Site carry or drop the
 * overflow with the day. Needs DATABASE_URL; without it the file skips.
 */
import t from 'tap'
import type { RecordedEvent } from '../../../lib/store/contract/index.js'
import { PostgresStore } from '../../../lib/store/postgres/store.js'
import { siteRecord } from '../../../lib/testing/conformance/fixtures.js'
import { DATABASE_URL, dropSchema, postgresOrSkip, randomSchema } from '../../helpers/postgres.js'

const admin = await postgresOrSkip(t, 'PostgreSQL analytics layout checks')

if (admin && DATABASE_URL) {
  const schemas: string[] = []
  t.teardown(async () => {
    for (const s of schemas) await dropSchema(admin, s)
  })
  const fresh = (): { store: PostgresStore; S: string } => {
    const schema = randomSchema('pga')
    schemas.push(schema)
    return { store: new PostgresStore({ connectionString: DATABASE_URL, schema, max: 2 }), S: `"${schema}"` }
  }
  const visit = (site: string, day: string, id: string, country: string): RecordedEvent => ({
    site_name: site,
    day,
    visitor_id: id,
    page_views: 1,
    browser: 'Chrome 120',
    os: 'Android',
    country,
    region: 'R',
  })
  const OPTIONS = { maxDimensionValues: 1000, today: '2024-03-09' }
  const count = async (sql: string): Promise<number> => Number((await admin.query(sql)).rows[0].n)

  t.test('a site-day past visitor_slots() counts exactly, a returning visitor once', async (t) => {
    const { store, S } = fresh()
    t.teardown(() => store.close())
    await store.createSite(siteRecord('busy', 'alice'))
    const ids = Array.from({ length: 700 }, (_, i) => `visitor-${i}`)
    // 600 first, then the same 600 again (returning) and 100 new ones, on two geo values.
    await store.recordEvents(
      ids.slice(0, 600).map((id, i) => visit('busy', '2024-03-01', id, i % 2 ? 'JP' : 'US')),
      OPTIONS,
    )
    await store.recordEvents(
      ids.map((id, i) => visit('busy', '2024-03-01', id, i % 2 ? 'JP' : 'US')),
      OPTIONS,
    )
    // The next day: 50 of the same visitors (25 of them seen in JP the day before, US now) and 10 new ones.
    await store.recordEvents(
      [...ids.slice(0, 50), 'x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'x7', 'x8', 'x9', 'x10'].map((id) =>
        visit('busy', '2024-03-02', id, 'US'),
      ),
      OPTIONS,
    )
    t.equal(await count(`SELECT count(*) AS n FROM ${S}.site_days`), 2, 'one row per site-day')
    t.equal(
      await count(`SELECT cardinality(vis_hash) AS n FROM ${S}.site_days WHERE day = '2024-03-01'`),
      512,
      'the row holds visitor_slots() triples',
    )
    t.equal(
      await count(`SELECT count(*) AS n FROM ${S}.visitor_overflow`),
      188,
      'the rest are overflow rows, once each',
    )
    t.strictSame(await store.siteTraffic('busy', '2024-03-01', '2024-03-01'), [
      { key: [], data: { visits: 1300, page_views: 1300, unique_visitors: 700 } },
    ])
    t.strictSame(
      await store.siteTraffic('busy', '2024-03-01', '2024-03-02'),
      [{ key: [], data: { visits: 1360, page_views: 1360, unique_visitors: 710 } }],
      'over two days: the union of their visitors, not a sum',
    )
    t.strictSame(await store.siteTraffic('busy', '2024-03-01', '2024-03-02', 'geo'), [
      { key: ['JP', 'R'], data: { visits: 650, page_views: 650, unique_visitors: 350 } },
      { key: ['US', 'R'], data: { visits: 710, page_views: 710, unique_visitors: 385 } },
    ])
    t.strictSame(await store.mostTraffic('alice', '2024-03-01', '2024-03-02', 10), [
      { site_name: 'busy', data: { visits: 1360, page_views: 1360, unique_visitors: 710 } },
    ])

    const reads = async () => [
      await store.siteTraffic('busy', '2024-03-01', '2024-03-02'),
      await store.siteTraffic('busy', '2024-03-01', '2024-03-02', 'geo'),
      await store.siteTraffic('busy', '2024-03-01', '2024-03-02', 'system'),
    ]
    const before = await reads()
    const dump = await store.exportState()
    await store.clearState()
    await store.importState(JSON.parse(JSON.stringify(dump)))
    t.strictSame(await reads(), before, 'export, clear, import: the same answers, overflow included')
    t.strictSame(await store.exportState(), dump, 'and the same export')
    await store.recordEvents([visit('busy', '2024-03-01', 'visitor-650', 'JP')], OPTIONS)
    t.equal(
      (await store.siteTraffic('busy', '2024-03-01', '2024-03-01'))[0]?.data.unique_visitors,
      700,
      'an imported visitor coming back is the same visitor',
    )
  })

  t.test('retention and Delete Site take the overflow with the day', async (t) => {
    const { store, S } = fresh()
    t.teardown(() => store.close())
    await store.createSite(siteRecord('busy', 'alice'))
    for (const day of ['2024-03-01', '2024-03-05'])
      await store.recordEvents(
        Array.from({ length: 600 }, (_, i) => visit('busy', day, `v${i}`, 'US')),
        OPTIONS,
      )
    t.equal(await count(`SELECT count(*) AS n FROM ${S}.visitor_overflow`), 176)
    // Retention of 5 days from 2024-03-09 keeps 2024-03-05 onwards; the sweep runs in the background.
    await store.recordEvents([visit('busy', '2024-03-09', 'late', 'US')], { ...OPTIONS, retentionDays: 5 })
    for (let i = 0; i < 50 && (await count(`SELECT count(*) AS n FROM ${S}.site_days`)) > 2; i++)
      await new Promise((resolve) => setTimeout(resolve, 20))
    t.equal(await count(`SELECT count(*) AS n FROM ${S}.site_days`), 2, 'the expired day is gone')
    t.equal(await count(`SELECT count(*) AS n FROM ${S}.visitor_overflow`), 88, 'with its overflow')
    t.equal(await store.deleteSite('alice', 'busy'), true)
    t.equal(await count(`SELECT count(*) AS n FROM ${S}.site_days`), 0, 'Delete Site drops the site-days')
    t.equal(await count(`SELECT count(*) AS n FROM ${S}.visitor_overflow`), 0, 'and the overflow')
    await store.createSite(siteRecord('busy', 'alice'))
    t.strictSame(
      await store.siteTraffic('busy', '2024-03-01', '2024-03-09'),
      [{ key: [], data: { visits: 0, page_views: 0, unique_visitors: 0 } }],
      'a re-created site starts from nothing',
    )
  })

  t.test('two stores recording in parallel: no count lost, the cap never passed', async (t) => {
    const { store: a, S } = fresh()
    const b = new PostgresStore({ connectionString: DATABASE_URL, schema: S.slice(1, -1), max: 2 })
    t.teardown(() => Promise.all([a.close(), b.close()]))
    for (const name of ['p', 'q']) await a.createSite(siteRecord(name, 'alice'))
    const cap = { maxDimensionValues: 5, today: '2024-03-09' }
    // 40 batches of 50 events over two sites and two days, 20 countries, 800 distinct visitors.
    const batches = Array.from({ length: 40 }, (_, n) =>
      Array.from({ length: 50 }, (_, i) =>
        visit(i % 2 ? 'p' : 'q', i % 4 < 2 ? '2024-03-01' : '2024-03-02', `v${(n * 50 + i) % 800}`, `C${(n + i) % 20}`),
      ),
    )
    await Promise.all(batches.map((events, n) => (n % 2 ? a : b).recordEvents(events, cap)))
    for (const site of ['p', 'q']) {
      const [total] = await a.siteTraffic(site, '2024-03-01', '2024-03-02')
      t.equal(total?.data.visits, 1000, `${site}: every visit counted`)
      t.equal(total?.data.unique_visitors, 400, `${site}: every visitor, once`)
      const geo = await a.siteTraffic(site, '2024-03-01', '2024-03-02', 'geo')
      t.equal(
        geo.reduce((sum, row) => sum + row.data.visits, 0),
        1000,
        `${site}: every visit in a geo value`,
      )
    }
    const { rows } = await admin.query(
      `SELECT max(n_geo) AS n, max((SELECT count(*) FROM ${S}.dim_values v WHERE v.id = ANY (d.dim_ids) AND v.dim = 1 AND v.k1 <> '(other)')) AS kept
         FROM ${S}.site_days d`,
    )
    t.equal(Number(rows[0].n), 5, 'each site-day counted up to the cap')
    t.equal(Number(rows[0].kept), 5, 'and holds no more named values than the cap')
  })
}
