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
import { MIGRATIONS, migrate } from '../lib/store/postgres/migrate.js'
import { DATABASE_URL, dropSchema, postgresOrSkip, randomSchema } from './helpers/postgres.js'

/** SHA-256 of each released migration's SQL for the schema `"mobisite"`, by version. */
const RELEASED: ReadonlyArray<[version: number, sha256: string]> = [
  [1, '8cb382137514e7ef3afa66453ba016971eafe6b1128230f48ee8161f4a5aa7a6'],
  [2, '27d63f4c2c163fc81864a44fc50ae263a590243d8a2c43efb5459c13c533edaa'],
  [3, '58e736c08ae9b3d4882767a03872f5db0764e6395f98fe467dae7399fdfe11d0'],
  [4, '58af0a79e563008d1526fb77a4f7ba25afc1ef8223baf46e199e28efe889e31c'],
  [5, 'd83e15eba172b1d462a1a2e66690bdef78c27fee5ddc54742821ed29ca3325e1'],
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
}
