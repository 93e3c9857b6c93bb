/**
 * PostgresStore's migrations are append-only: a database runs each migration
 * once, so the text of a released one must never change (an edited function
 * would reach new databases only). The digests below pin every released
 * migration; a change to the schema is a new migration appended to the list,
 * with its digest added here.
 *
 * With DATABASE_URL, a database brought forward one version at a time (as
 * by each older release in turn) must end with the same tables, columns,
 * indexes, constraints and functions as a new one.
 */
import { createHash } from 'node:crypto'
import t from 'tap'
import { MIGRATIONS, migrate } from '../../../lib/store/postgres/migrate.js'
import { PostgresStore } from '../../../lib/store/postgres/store.js'
import { siteRecord } from '../../../lib/testing/conformance/fixtures.js'
import { DATABASE_URL, dropSchema, postgresOrSkip, randomSchema } from '../../helpers/postgres.js'

/** SHA-256 of each released migration's SQL for the schema `"mobisite"`, by version. */
const RELEASED: ReadonlyArray<[version: number, sha256: string]> = [
  [1, '8cb382137514e7ef3afa66453ba016971eafe6b1128230f48ee8161f4a5aa7a6'],
  [2, '27d63f4c2c163fc81864a44fc50ae263a590243d8a2c43efb5459c13c533edaa'],
  [3, '58e736c08ae9b3d4882767a03872f5db0764e6395f98fe467dae7399fdfe11d0'],
  [4, '58af0a79e563008d1526fb77a4f7ba25afc1ef8223baf46e199e28efe889e31c'],
  [5, 'd83e15eba172b1d462a1a2e66690bdef78c27fee5ddc54742821ed29ca3325e1'],
  [6, '3f3c37b7739f39337b12383548808ef919077ff07a4100577487085112cfe3a2'],
]

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')

t.test('released migrations are never edited; new ones are appended', async (t) => {
  t.strictSame(
    MIGRATIONS.map((m) => m.version),
    MIGRATIONS.map((_, i) => i + 1),
    'versions run 1, 2, 3, ... in order',
  )
  t.ok(MIGRATIONS.length >= RELEASED.length, 'no released migration was removed')
  for (const [version, digest] of RELEASED) {
    t.equal(sha256(MIGRATIONS[version - 1]!.sql('"mobisite"')), digest, `migration ${version} is unchanged`)
  }
  t.equal(
    MIGRATIONS.length,
    RELEASED.length,
    'every migration has its digest here (add the digest of a new one when it is released)',
  )
})

const admin = DATABASE_URL ? await postgresOrSkip(t, 'PostgreSQL migration checks') : undefined
if (!DATABASE_URL) t.test('migrating a database step by step', { skip: 'DATABASE_URL not set' }, () => {})

if (admin) {
  const schemas: string[] = []
  t.teardown(async () => {
    for (const schema of schemas) await dropSchema(admin, schema)
  })

  /** A new schema migrated by steps: `migrate` once per version in `stops`, then (unless `newest` is false) to the newest. */
  const migrated = async (stops: number[], newest = true): Promise<string> => {
    const schema = randomSchema('mig')
    schemas.push(schema)
    const client = await admin.connect()
    try {
      for (const upTo of newest ? [...stops, Number.POSITIVE_INFINITY] : stops)
        await migrate(client, `"${schema}"`, schema, 30_000, upTo)
    } finally {
      client.release()
    }
    return schema
  }

  /** Everything a migration defines in `schema`, with the schema's name taken out so two schemas compare. */
  const definitions = async (schema: string): Promise<Record<string, string[]>> => {
    const list = async (sql: string): Promise<string[]> => {
      const { rows } = await admin.query<{ d: string }>(sql, [schema])
      return rows.map((r) => r.d.replaceAll(schema, 'S')).sort()
    }
    return {
      columns: await list(
        `SELECT concat_ws(' ', table_name, column_name, data_type, collation_name, is_nullable, column_default,
                is_identity, generation_expression) AS d
           FROM information_schema.columns WHERE table_schema = $1`,
      ),
      indexes: await list(`SELECT indexdef AS d FROM pg_indexes WHERE schemaname = $1`),
      constraints: await list(
        `SELECT c.conrelid::regclass::text || ' ' || c.conname || ' ' || pg_get_constraintdef(c.oid) AS d
           FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = $1`,
      ),
      functions: await list(
        `SELECT pg_get_functiondef(p.oid) AS d
           FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1`,
      ),
    }
  }

  t.test('a database migrated one version at a time ends like a new one', async (t) => {
    const fresh = await definitions(await migrated([]))
    t.ok(fresh.functions!.length >= 7, `a new schema has its ${fresh.functions!.length} functions`)
    t.ok(fresh.indexes!.length >= 10, `and its ${fresh.indexes!.length} indexes`)
    const versions = MIGRATIONS.map((m) => m.version)
    t.notSame(
      await definitions(await migrated(versions.slice(0, -1), false)),
      fresh,
      'the comparison sees what the newest migration changes',
    )
    for (const last of versions.slice(0, -1)) {
      const stops = versions.filter((v) => v <= last)
      t.strictSame(
        await definitions(await migrated(stops)),
        fresh,
        `made by a release at version ${last}, then brought forward`,
      )
    }
  })

  /**
   * The analytics of migration 6 (one row per site-day, hashed visitors)
   * are converted from those of 1-5: the same batches recorded on a schema
   * at version 5 and then migrated, and on a new schema, read the same, and
   * a day past visitor_slots() keeps its exact count.
   */
  t.test('migration 6 converts analytics: same totals, same distinct visitors', async (t) => {
    const days = ['2024-01-01', '2024-01-02', '2024-01-03']
    const systems = [
      ['Chrome 120', 'Android'],
      ['Safari 17', 'iOS'],
    ]
    const geos = [
      ['US', 'CA'],
      ['JP', 'Tokyo'],
      ['DE', 'Berlin'],
    ]
    /** One record_events batch of groups sorted by site and day (the 005 and 006 signature). */
    const batch = (site: string, busy: boolean) => {
      const cols: unknown[][] = Array.from({ length: 11 }, () => [])
      let group = 0
      for (const [d, day] of days.entries()) {
        for (const [si, sys] of systems.entries()) {
          for (const [gi, geo] of geos.entries()) {
            for (const kind of [0, 1 + ((d + si + gi) % 4)]) {
              group += 1
              const visitors = kind === 0 ? Array.from({ length: 3 + d + gi }, (_, v) => `v${(v * 7 + si) % 11}`) : []
              if (busy && kind === 0 && d === 1 && si === 0 && gi === 0)
                for (let v = 0; v < 700; v++) visitors.push(`flood-${v}`)
              cols[0]!.push(site)
              cols[1]!.push(day)
              cols[2]!.push(kind)
              cols[3]!.push(Math.max(1, visitors.length) + gi)
              cols[4]!.push(kind === 0 ? 2 * visitors.length + si : 0)
              cols[5]!.push(sys[0])
              cols[6]!.push(sys[1])
              cols[7]!.push(geo[0])
              cols[8]!.push(geo[1])
              for (const v of visitors) {
                cols[9]!.push(group)
                cols[10]!.push(v)
              }
            }
          }
        }
      }
      return cols
    }
    const record = async (schema: string) => {
      const S = `"${schema}"`
      for (const name of ['alpha', 'beta'])
        await admin.query(`INSERT INTO ${S}.sites (site_name, rec) VALUES ($1, $2)`, [name, siteRecord(name, 'alice')])
      for (const [site, busy] of [
        ['alpha', true],
        ['beta', false],
      ] as const) {
        await admin.query(
          `SELECT count(*) FROM ${S}.record_events($1::text[], $2::date[], $3::smallint[], $4::integer[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::text[], $10::integer[], $11::text[], 1000, NULL)`,
          batch(site, busy),
        )
      }
      // The single-event functions of migration 1, which 6 rewrites.
      await admin.query(
        `SELECT * FROM ${S}.record_visit('beta', '2024-01-02', 'v3', 4, 'Firefox 121', 'Linux', 'US', 'CA')`,
      )
      await admin.query(
        `SELECT * FROM ${S}.record_activity('beta', '2024-01-03', ARRAY[0, 0, 1, 0], 'Firefox 121', 'Linux', 'FR', 'Paris')`,
      )
    }
    const old = await migrated([5], false)
    await record(old)
    const before = await admin.query(`SELECT count(*) AS n FROM "${old}".day_visitors`)
    t.ok(Number(before.rows[0].n) > 700, 'the old schema holds its visitors as rows')
    // What the tables of 1-5 say, per site and per geo value over every day.
    const { rows: oldGeo } = await admin.query(
      `SELECT s.site_name, v.k1, v.k2, sum(d.visits)::int AS visits, sum(d.page_views)::int AS page_views,
              (SELECT count(DISTINCT x.visitor_id)::int FROM "${old}".day_visitors x
                WHERE x.site_id = s.id AND x.geo_id = v.id) AS unique_visitors
         FROM "${old}".dim_days d JOIN "${old}".sites s ON s.id = d.site_id JOIN "${old}".dim_values v ON v.id = d.dim_id
        WHERE v.dim = 1 GROUP BY s.id, s.site_name, v.id, v.k1, v.k2 HAVING sum(d.visits) > 0
        ORDER BY s.site_name, v.k1, v.k2`,
    )
    const { rows: oldTotals } = await admin.query(
      `SELECT s.site_name, sum(d.visits)::int AS visits, sum(d.page_views)::int AS page_views,
              (SELECT count(DISTINCT x.visitor_id)::int FROM "${old}".day_visitors x WHERE x.site_id = s.id) AS unique_visitors
         FROM "${old}".site_days d JOIN "${old}".sites s ON s.id = d.site_id GROUP BY s.id, s.site_name ORDER BY s.site_name`,
    )
    const client = await admin.connect()
    try {
      await migrate(client, `"${old}"`, old, 30_000)
    } finally {
      client.release()
    }
    const fresh = await migrated([])
    await record(fresh)
    const reads = async (schema: string) => {
      const store = new PostgresStore({ connectionString: DATABASE_URL, schema, max: 2 })
      try {
        const out: unknown[] = []
        for (const [from, to] of [
          ['2024-01-01', '2024-01-03'],
          ['2024-01-02', '2024-01-02'],
          ['2024-01-03', '2024-01-09'],
        ] as const) {
          for (const site of ['alpha', 'beta']) {
            out.push(await store.siteTraffic(site, from, to), await store.siteActivities(site, from, to))
            for (const dim of ['system', 'geo'] as const)
              out.push(await store.siteTraffic(site, from, to, dim), await store.siteActivities(site, from, to, dim))
          }
          out.push(await store.mostTraffic('alice', from, to, 10))
        }
        return { out, dump: (await store.exportState()).analytics }
      } finally {
        await store.close()
      }
    }
    const store = new PostgresStore({ connectionString: DATABASE_URL, schema: old, max: 2 })
    try {
      const totals = []
      const geo = []
      for (const site of ['alpha', 'beta']) {
        const [all] = await store.siteTraffic(site, days[0]!, days[2]!)
        totals.push({ site_name: site, ...all!.data })
        for (const row of await store.siteTraffic(site, days[0]!, days[2]!, 'geo'))
          geo.push({ site_name: site, k1: row.key[0], k2: row.key[1], ...row.data })
      }
      t.strictSame(totals, oldTotals, 'each site: the visits, page views and distinct visitors of the old tables')
      t.strictSame(geo, oldGeo, 'each geo value: likewise')
    } finally {
      await store.close()
    }
    const converted = await reads(old)
    const recorded = await reads(fresh)
    t.strictSame(converted.out, recorded.out, 'every read answers as if recorded on version 6')
    t.strictSame(converted.dump, recorded.dump, 'and the exports are equal')
    const [alpha] = (converted.out[0] as { data: { unique_visitors: number } }[]) ?? []
    t.equal(alpha?.data.unique_visitors, 710, 'alpha: 10 visitors over the days plus 700 on one day, exact')
    const spilled = await admin.query(`SELECT count(*) AS n FROM "${old}".visitor_overflow`)
    t.ok(Number(spilled.rows[0].n) > 0, 'the triples past visitor_slots() went to visitor_overflow')
    const tables = await admin.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name IN ('dim_days', 'day_visitors')`,
      [old],
    )
    t.equal(tables.rows.length, 0, 'the old tables are gone')
  })
}
