/**
 * The query plans behind docs/postgres.md: seeds a schema with 10,000 sites of
 * one owner (plus 20,000 of 200 others), 30 days of visits on them and one
 * site with 90 busy days, then prints `EXPLAIN (ANALYZE)` of the store's own
 * listing, get-many and analytics statements, run as the store runs them
 * (prepared, with parameters).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx benchmark/postgres-explain.ts
 *
 * Writes only in a random `mobisite_bench_<hex>` schema, dropped at the end.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { analyticsQueries } from '../lib/store/postgres/analytics.js'
import { quoteIdent } from '../lib/store/postgres/conn.js'
import { PostgresStore } from '../lib/store/postgres/store.js'
import { siteStatements } from '../lib/store/postgres/sites.js'

const url = process.env.DATABASE_URL
if (!url) {
  console.log('DATABASE_URL not set: nothing to explain')
  process.exit(0)
}
const schema = `mobisite_bench_${randomBytes(6).toString('hex')}`
const S = quoteIdent(schema)
const T0 = Date.UTC(2024, 0, 1)
const db = new pg.Client({ connectionString: url })
await db.connect()
const store = new PostgresStore({ connectionString: url, schema })

try {
  await store.getSite('migrate') // creates the schema
  const site = (name: string, owner: string, i: string) => `jsonb_build_object(
      'site_name', ${name}, 'owner', ${owner}, 'original_site_url', 'https://a.example/', 'auto_sync_cache_ttl', 'SHORT',
      'initial', jsonb_build_object('original_site_url', 'https://a.example/', 'auto_sync_cache_ttl', 'SHORT'),
      'created_at', ${T0} + ${i} * 60000, 'modified_at', ${T0} + ((${i} * 7919) % 10000) * 60000, 'build', 'built')
      || CASE WHEN ${i} % 10 = 0 THEN jsonb_build_object('external_uid', 'uid-' || (${i} % 100)) ELSE '{}' END`
  await db.query(
    `INSERT INTO ${S}.sites (site_name, rec) SELECT 's' || i, ${site(`'s' || i`, `'ranker'`, 'i')} FROM generate_series(0, 9999) i`,
  )
  await db.query(
    `INSERT INTO ${S}.sites (site_name, rec) SELECT 'o' || i, ${site(`'o' || i`, `'other-' || (i % 200)`, 'i')} FROM generate_series(0, 19999) i`,
  )
  await db.query(`INSERT INTO ${S}.sites (site_name, rec) SELECT 'busy', ${site(`'busy'`, `'owner-busy'`, '0')}`)
  // Visits through the store's own recording function, in one transaction (no commit per visit).
  await db.query(`SELECT count(*) FROM generate_series(0, 29) d, generate_series(0, 9999) i,
      LATERAL ${S}.record_visit('s' || i, DATE '2024-03-01' + d, 'v' || ((i * 31 + d) % 97), 2,
      'Chrome ' || (100 + i % 3), CASE WHEN i % 2 = 1 THEN 'Android' ELSE 'iOS' END, 'US', (ARRAY['CA', 'NY', 'TX'])[1 + i % 3]) r
    WHERE (i + d) % (1 + i % 5) = 0`)
  await db.query(`SELECT count(*) FROM generate_series(0, 29) d, generate_series(0, 19999) i,
      LATERAL ${S}.record_visit('o' || i, DATE '2024-03-01' + d, 'w' || (i % 50), 1, 'Chrome 120', 'Android', 'JP', 'Tokyo') r
    WHERE (i + d) % 6 = 0`)
  await db.query(`SELECT count(*) FROM generate_series(0, 89) d, generate_series(0, 39) k,
      LATERAL ${S}.record_visit('busy', DATE '2024-01-01' + d, 'b' || ((d * 13 + k * 7) % 400), 1 + k % 3,
      (ARRAY['Chrome 120', 'Mobile Safari 17', 'Samsung Internet 23', 'Firefox 121'])[1 + k % 4], 'Android', (ARRAY['US', 'JP', 'FR'])[1 + k % 3], 'R' || (k % 5)) r`)
  // What autovacuum does on a live database: statistics and the visibility map (index-only scans).
  await db.query(`VACUUM ANALYZE ${S}.sites, ${S}.site_days, ${S}.visitor_overflow, ${S}.dim_values`)
  const counts =
    await db.query(`SELECT (SELECT count(*) FROM ${S}.sites) AS sites, (SELECT count(*) FROM ${S}.site_days) AS site_days,
      (SELECT count(*) FROM ${S}.visitor_overflow) AS visitor_overflow`)
  console.log(`Data: ${JSON.stringify(counts.rows[0])}\n`)

  const st = siteStatements(S)
  const q = analyticsQueries(S)
  const plans: [string, string, unknown[]][] = [
    ['Retrieve Site (getSite)', st.get!.text, ['s1234']],
    [
      'Retrieve Multiple Sites, 50 names (getSites)',
      st.getMany!.text,
      [Array.from({ length: 50 }, (_, i) => `s${i * 97}`)],
    ],
    [
      "Sites created in a period: 50 of the owner's 10,000 (listSites created)",
      st.listCreated!.text,
      ['ranker', T0 + 1000 * 60000, T0 + 1049 * 60000],
    ],
    [
      'Sites modified in a period (listSites modified)',
      st.listModified!.text,
      ['ranker', T0 + 1000 * 60000, T0 + 1049 * 60000],
    ],
    ['Site by external uid (findSiteByExternalUid)', st.byExternalUid!.text, ['ranker', 'uid-42']],
    ['90-day traffic of one site (siteTraffic)', q.traffic, ['busy', '2024-01-01', '2024-03-30']],
    [
      '90-day traffic by system of one site (siteTraffic system)',
      q.trafficBySystem,
      ['busy', '2024-01-01', '2024-03-30'],
    ],
    ['Most traffic: 10,000 sites x 30 days (mostTraffic)', q.mostTraffic, ['ranker', '2024-03-01', '2024-03-30', 10]],
    [
      'Most traffic of an owner with 100 sites among many (mostTraffic)',
      q.mostTraffic,
      ['other-7', '2024-03-01', '2024-03-30', 10],
    ],
  ]
  for (const [title, text, values] of plans) {
    await db.query('DEALLOCATE ALL')
    await db.query(`PREPARE q AS ${text}`)
    const args = values.map((v) =>
      Array.isArray(v) ? `ARRAY[${v.map((x) => `'${x}'`).join(', ')}]` : typeof v === 'string' ? `'${v}'` : String(v),
    )
    const { rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE q(${args.join(', ')})`)
    console.log(`### ${title}\n\n\`\`\`\n${rows.map((r) => r['QUERY PLAN']).join('\n')}\n\`\`\`\n`)
  }
} finally {
  await store.close()
  await db.query(`DROP SCHEMA IF EXISTS ${S} CASCADE`)
  await db.end()
}
