/**
 * `mobisite/postgres`: the PostgreSQL store. A separate entry so that the
 * package root never loads `pg` (an optional peer dependency).
 *
 * ```ts
 * import { createEngine } from 'mobisite'
 * import { PostgresStore } from 'mobisite/postgres'
 * const engine = createEngine({ store: new PostgresStore({ connectionString: process.env.DATABASE_URL }) })
 * ```
 */
export { PostgresStore, type PostgresStoreOptions } from './store/postgres/store.js'
export { APPLICATION_NAME } from './store/postgres/conn.js'
