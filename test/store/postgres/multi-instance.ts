/**
 * Two mobisite servers in separate processes on one PostgreSQL schema
 * (`mobisite --store postgres://…`): what one does the other sees, and racing
 * them against each other breaks no rule (unique names regardless of case,
 * the daily limit, the first-publish charge, grants against deletes) and
 * loses nothing. Both start at the same moment on an empty schema, so their
 * migrations race too.
 * Needs DATABASE_URL; without it the file skips and says so.
 */
import t from 'tap'
import { PostgresStore } from '../../../lib/store/postgres/store.js'
import { MIGRATIONS } from '../../../lib/store/postgres/migrate.js'
import { twoProcessSuite } from '../../helpers/multi-instance.js'
import { DATABASE_URL, dropSchema, postgresOrSkip, randomSchema } from '../../helpers/postgres.js'
import { request, spawnMobisite } from '../../helpers/redis.js'

const admin = await postgresOrSkip(t, 'PostgreSQL multi-instance suite')

if (admin && DATABASE_URL) {
  const schema = randomSchema('multi')
  await twoProcessSuite(t, {
    env: { MOBISITE_STORE: DATABASE_URL, MOBISITE_PG_SCHEMA: schema },
    store: new PostgresStore({ connectionString: DATABASE_URL, schema }),
    cleanup: () => dropSchema(admin, schema),
    more: ({ A, B, auth, env, call, either, createBody }) => {
      t.test('both serve on PostgreSQL, migrated once', async (t) => {
        t.match(A.output(), /PostgreSQL store at .*schema mobisite_multi_/, 'A says which store')
        t.not(A.child.pid, B.child.pid)
        const recorded = await admin.query(`SELECT version FROM "${schema}".migrations ORDER BY version`)
        const versions = (rows: ReadonlyArray<{ version: number }>) => rows.map((r) => r.version)
        const message = 'each migration recorded once although both started together'
        t.strictSame(versions(recorded.rows), versions(MIGRATIONS), message)
      })

      t.test('concurrent creates of abcd, ABCD and AbCd over both servers: exactly one winner', async (t) => {
        const names = ['casey', 'CASEY', 'CaSeY', 'cAsEy']
        const results = await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            call(either(i), 'POST', '/sites/create', createBody(names[i % names.length]!)),
          ),
        )
        t.equal(results.filter((r) => r.status === 200).length, 1, 'one 200')
        t.ok(
          results.filter((r) => r.status !== 200).every((r) => r.body?.error_code === 'ResourceAlreadyExist'),
          'the rest refused',
        )
      })

      t.test(
        'a third process named by --store alone (over REDIS_URL and DATABASE_URL) serves the same data',
        async (t) => {
          const third = await spawnMobisite(
            {
              ...env,
              MOBISITE_STORE: '',
              REDIS_URL: 'redis://127.0.0.1:1',
              DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
            },
            ['--store', DATABASE_URL!],
          )
          t.teardown(() => third.stop())
          t.match(third.output(), /PostgreSQL store at .*schema mobisite_multi_/)
          const listed = (await request(third.api, auth, 'GET', '/sites/created?from=2000-01-01')).body as {
            site_name: string
          }[]
          t.ok(
            listed.some((r) => r.site_name === 'contested'),
            'it lists what the other two created',
          )
        },
      )
    },
  })
}
