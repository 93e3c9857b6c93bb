/**
 * PostgresStore against a real PostgreSQL: the shared Store conformance
 * suite, unchanged, each test on its own random schema; then what only this
 * store has to show (migrations, schema isolation, pools, names regardless of
 * case, several pools racing).
 * Needs DATABASE_URL; without it the file skips and says so.
 */
import t from 'tap'
import pg from 'pg'
import { StoreUnavailableError } from '../../../lib/store/contract/index.js'
import { PostgresStore } from '../../../lib/store/postgres/store.js'
import { MIGRATIONS } from '../../../lib/store/postgres/migrate.js'
import { accountRecord, siteRecord } from '../../../lib/testing/conformance/fixtures.js'
import { storeConformance } from '../../../lib/testing/conformance/index.js'
import { DATABASE_URL, dropSchema, postgresOrSkip, randomSchema, schemaExists } from '../../helpers/postgres.js'

const admin = await postgresOrSkip(t, 'PostgreSQL store suite')

if (admin && DATABASE_URL) {
  const url = DATABASE_URL
  const schemas: string[] = []
  /** A store on a fresh schema, dropped at the end of the file. */
  const fresh = (schema = randomSchema()): PostgresStore => {
    if (!schemas.includes(schema)) schemas.push(schema)
    return new PostgresStore({ connectionString: url, schema, max: 4 })
  }
  t.teardown(async () => {
    for (const s of schemas) await dropSchema(admin, s)
  })

  // Visitors are kept as 64-bit hashes (migration 6): exact counts, exported as this store's sketches.
  await storeConformance(t, 'PostgresStore', () => fresh(), { uniqueVisitors: 'exact', visitorSketches: true })

  t.test('migrations: created on first use, recorded once, idempotent', async (t) => {
    const schema = randomSchema()
    const store = fresh(schema)
    t.teardown(() => store.close())
    t.equal(await schemaExists(admin, schema), false, 'nothing is created before the first call')
    t.equal(await store.getSite('x'), undefined)
    t.equal(await schemaExists(admin, schema), true, 'the first call creates the schema')
    const tables = await admin.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`,
      [schema],
    )
    t.strictSame(
      tables.rows.map((r) => r.table_name),
      [
        'accounts',
        'charges',
        'dim_values',
        'grants',
        'limits',
        'masters',
        'migrations',
        'sessions',
        'site_days',
        'sites',
        'sso_tokens',
        'subscriptions',
        'visitor_overflow',
      ],
    )
    t.equal(await store.createSite(siteRecord('kept', 'alice')), true)
    const again = new PostgresStore({ connectionString: url, schema })
    t.teardown(() => again.close())
    t.equal(
      (await again.getSite('kept'))?.owner,
      'alice',
      'a second store on the schema migrates nothing and sees the data',
    )
    const { rows } = await admin.query(`SELECT version, name FROM "${schema}".migrations`)
    t.strictSame(
      rows.map((r) => r.version).sort(),
      MIGRATIONS.map((m) => m.version),
      'each migration recorded once',
    )
  })

  t.test('migrations: ten stores starting at once on an empty schema', async (t) => {
    const schema = randomSchema()
    const stores = Array.from({ length: 10 }, () => fresh(schema))
    t.teardown(() => Promise.all(stores.map((s) => s.close())))
    const created = await Promise.all(stores.map((s, i) => s.createSite(siteRecord(`first-${i}`, 'alice'))))
    t.ok(created.every(Boolean), 'every store started and wrote')
    const { rows } = await admin.query(`SELECT count(*)::int AS n FROM "${schema}".migrations`)
    t.equal(rows[0].n, MIGRATIONS.length, 'the advisory lock let one of them migrate (each migration recorded once)')
  })

  t.test('migrations: a schema made by an older version is brought forward in place', async (t) => {
    const schema = randomSchema()
    schemas.push(schema)
    const client = await admin.connect()
    try {
      // What the first release created: migration 1 only.
      await client.query('BEGIN')
      await client.query(`CREATE SCHEMA "${schema}"`)
      await client.query(
        `CREATE TABLE "${schema}".migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      )
      await client.query(MIGRATIONS[0]!.sql(`"${schema}"`))
      await client.query(`INSERT INTO "${schema}".migrations (version, name) VALUES (1, 'v1')`)
      await client.query(`INSERT INTO "${schema}".sites (site_name, rec) VALUES ('oldsite', $1)`, [
        JSON.stringify(siteRecord('oldsite', 'alice')),
      ])
      await client.query('COMMIT')
    } finally {
      client.release()
    }
    const store = fresh(schema)
    t.teardown(() => store.close())
    t.equal((await store.getSite('oldsite'))?.owner, 'alice', 'the data of the old version is read')
    t.equal(await store.createSite(siteRecord('OLDSITE', 'bob')), false, 'and the names keep their uniqueness')
    const { rows } = await admin.query(`SELECT version FROM "${schema}".migrations ORDER BY version`)
    t.strictSame(
      rows.map((r) => r.version),
      MIGRATIONS.map((m) => m.version),
      'the newer migrations were applied',
    )
  })

  t.test('names are folded like every store: ASCII letters only, whatever the database locale', async (t) => {
    const store = fresh()
    t.teardown(() => store.close())
    t.equal(await store.createSite(siteRecord('caf\u00e9-site', 'alice')), true)
    t.equal(
      await store.createSite(siteRecord('CAF\u00c9-SITE', 'bob')),
      true,
      'É and é are different letters to foldName',
    )
    t.equal(await store.createSite(siteRecord('CAF\u00e9-SITE', 'bob')), false, 'A-Z fold to a-z')
  })

  t.test('two schemas on one database never see each other', async (t) => {
    const a = fresh()
    const b = fresh()
    t.teardown(() => Promise.all([a.close(), b.close()]))
    t.equal(await a.createSite(siteRecord('shared-name', 'alice')), true)
    t.equal(await b.createSite(siteRecord('shared-name', 'alice')), true, 'the same name is free in another schema')
    await a.publishSite('alice', 'shared-name', 1000, true)
    t.strictSame(await b.getBilling('alice'), { charges: [], subscriptions: [] })
    t.equal((await a.incrementWithinLimit('k', 5, Date.UTC(2999, 0, 1))).count, 1)
    t.equal((await b.incrementWithinLimit('k', 5, Date.UTC(2999, 0, 1))).count, 1)
  })

  t.test('names are unique regardless of letter case; lookups stay exact', async (t) => {
    const store = fresh()
    t.teardown(() => store.close())
    t.equal(await store.createSite(siteRecord('abcd', 'alice')), true)
    t.equal(await store.createSite(siteRecord('ABCD', 'bob')), false, 'ABCD while abcd exists')
    t.equal(await store.getSite('ABCD'), undefined, 'lookups are exact')
    t.equal(await store.createAccount(accountRecord('ada@example.com', 'alice')), true)
    t.equal(await store.createAccount(accountRecord('ADA@example.com', 'alice')), false)
    const racers = ['race', 'RACE', 'Race', 'rAcE']
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => store.createSite(siteRecord(racers[i % 4]!, `o${i}`))),
    )
    t.equal(results.filter(Boolean).length, 1, 'parallel creates differing only in case: one winner')
    t.equal(await store.deleteSite('alice', 'abcd'), true)
    t.equal(await store.createSite(siteRecord('ABCD', 'bob')), true, 'a deleted name is free in any case')
  })

  t.test('creates grouped into one INSERT: each answered alone, a bad row fails only itself', async (t) => {
    const store = fresh()
    t.teardown(() => store.close())
    const names = Array.from({ length: 120 }, (_, i) => `group-${i}`)
    const bad = siteRecord('bad-row', 'alice', { site_vertical: 'nul\u0000inside' })
    const results = await Promise.allSettled([
      ...names.map((n) => store.createSite(siteRecord(n, 'alice'))),
      store.createSite(bad),
      ...['twin', 'TWIN', 'Twin'].map((n) => store.createSite(siteRecord(n, 'bob'))),
      store.createSite(siteRecord('group-0', 'carol')),
    ])
    const values = results.map((r) => (r.status === 'fulfilled' ? r.value : r.reason))
    t.ok(
      values.slice(0, 120).every((v) => v === true),
      'all 120 distinct names created',
    )
    t.type(values[120], Error, 'the row PostgreSQL refuses rejects its own call')
    t.notOk(values[120] instanceof StoreUnavailableError, 'as an error, not an outage')
    t.equal(
      values.slice(121, 124).filter((v) => v === true).length,
      1,
      'names equal regardless of case in one group: one winner',
    )
    t.equal(values[124], false, 'a name taken earlier in the same group is refused')
    t.equal((await store.getSite('group-0'))?.owner, 'alice')
    t.equal(await store.getSite('bad-row'), undefined)
    t.equal((await store.listSites('alice', 'created', 0, Number.MAX_SAFE_INTEGER)).length, 120)
  })

  t.test('getSite calls of one turn go as one statement, each answered alone, never stale', async (t) => {
    const schema = randomSchema()
    schemas.push(schema)
    const pool = new pg.Pool({ connectionString: url, max: 4 })
    let statements = 0
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown
      ;(client as unknown as { query: typeof query }).query = (...args) => {
        statements++
        return query(...args)
      }
    })
    const store = new PostgresStore({ pool, schema })
    const other = fresh(schema)
    t.teardown(async () => {
      await store.close()
      await other.close()
      await pool.end()
    })
    t.equal(await store.createSite(siteRecord('turn-a', 'alice')), true)
    t.equal(await store.createSite(siteRecord('turn-b', 'bob')), true)
    statements = 0
    const reads = await Promise.all(['turn-a', 'nosuch', 'turn-b', 'turn-a'].map((n) => store.getSite(n)))
    t.strictSame(
      reads.map((r) => r?.owner),
      ['alice', undefined, 'bob', 'alice'],
      'each call gets its own record',
    )
    t.equal(statements, 1, '4 reads in one turn: one statement')
    reads[0]!.owner = 'changed'
    t.equal(reads[3]!.owner, 'alice', 'the same name twice: two separate records')
    statements = 0
    t.equal((await store.getSite('turn-b'))?.owner, 'bob', 'a lone read')
    t.equal(statements, 1, 'a lone read: one statement')
    // A read issued after another store acknowledged a write sees it (the
    // read issued before the write raced it and may see either state).
    const inFlight = store.getSite('turn-c')
    t.equal(await other.createSite(siteRecord('turn-c', 'carol')), true)
    t.equal((await store.getSite('turn-c'))?.owner, 'carol', 'the read issued after the acknowledged create sees it')
    await inFlight
  })

  t.test('two pools race on one schema: one winner per name, one charge, 300 of 400', async (t) => {
    const schema = randomSchema()
    const stores = [fresh(schema), fresh(schema)]
    t.teardown(() => Promise.all(stores.map((s) => s.close())))
    const creates = await Promise.all(
      Array.from({ length: 50 }, (_, i) => stores[i % 2]!.createSite(siteRecord('contested', `owner${i}`))),
    )
    t.equal(creates.filter(Boolean).length, 1, 'exactly one create wins')
    const winner = (await stores[1]!.getSite('contested'))!.owner
    const pubs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => stores[i % 2]!.publishSite(winner, 'contested', 1000 + i, true)),
    )
    t.equal(pubs.filter((p) => p?.charged).length, 1, 'one publish charged')
    t.equal((await stores[0]!.getBilling(winner)).charges.length, 1)
    const far = Date.UTC(2999, 0, 1)
    const limits = await Promise.all(
      Array.from({ length: 400 }, (_, i) => stores[i % 2]!.incrementWithinLimit('daily', 300, far)),
    )
    t.equal(limits.filter((o) => o.allowed).length, 300, 'exactly 300 allowed')
  })

  t.test('a pool passed in is used and left open by close()', async (t) => {
    const schema = randomSchema()
    schemas.push(schema)
    const pool = new pg.Pool({ connectionString: url, max: 2 })
    t.teardown(() => pool.end())
    const store = new PostgresStore({ pool, schema })
    t.equal(await store.createSite(siteRecord('via-pool', 'alice')), true)
    await store.close()
    await t.rejects(store.getSite('via-pool'), StoreUnavailableError, 'the store is unusable after close')
    const { rows } = await pool.query(`SELECT site_name FROM "${schema}".sites`)
    t.strictSame(rows, [{ site_name: 'via-pool' }], 'the pool still works and the data is there')
  })

  t.test('an acknowledged write survives the store: a new process-like store reads it back', async (t) => {
    const schema = randomSchema()
    const first = fresh(schema)
    t.equal(await first.createSite(siteRecord('durable', 'alice', { external_uid: 'u' })), true)
    t.strictSame(await first.publishSite('alice', 'durable', 5000, true), { charged: true })
    await first.close()
    const second = fresh(schema)
    t.teardown(() => second.close())
    t.equal((await second.getSite('durable'))?.published_at, 5000)
    t.equal((await second.findSiteByExternalUid('alice', 'u'))?.site_name, 'durable')
    t.strictSame((await second.getBilling('alice')).charges, [{ site_name: 'durable', at: 5000 }])
  })

  t.test('patches that would corrupt a record reject with TypeError and change nothing', async (t) => {
    const store = fresh()
    t.teardown(() => store.close())
    const site = siteRecord('guarded', 'alice', { external_uid: 'uid' })
    await store.createSite(site)
    const bad: [string, object][] = [
      ['site_name', { site_name: 'renamed' }],
      ['owner', { owner: 'bob' }],
      ['created_at', { created_at: 9 }],
      ['first_published_at', { first_published_at: 9 }],
      ['removing original_site_url', { original_site_url: null }],
      ['removing modified_at', { modified_at: null }],
      ['__proto__', JSON.parse('{"__proto__": {"polluted": true}}')],
    ]
    for (const [label, patch] of bad) {
      await t.rejects(store.updateSite('alice', 'guarded', { site_domain: 'x.example', ...patch }), TypeError, label)
    }
    t.strictSame(await store.getSite('guarded'), site, 'the site is untouched')
  })
}
