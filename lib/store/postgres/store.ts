/**
 * PostgresStore: the Store contract on PostgreSQL (node-postgres), a durable
 * system of record that several mobisite processes share.
 *
 * Every rule that must hold across processes is one statement or one
 * function call (one transaction, one round trip): unique names (a unique
 * index, regardless of letter case), the daily limit (an upsert whose WHERE
 * sees the latest count), the first-publish charge (a row lock), grants
 * removed with their site or account (foreign-key cascades) and recording
 * only for a site that exists (a key-share lock), single-use sign-in tokens
 * (a DELETE ... RETURNING feeding the session INSERT). The tables, functions
 * and indexes are created on first use by versioned migrations (migrate.ts,
 * migrations/) in the store's own schema. Each area of the contract is
 * served by the file of that name in this folder (see
 * lib/store/shared/composed-store.ts).
 *
 * When PostgreSQL cannot be reached, or does not answer, every call rejects
 * within `timeoutMs` (default 2 s) with StoreUnavailableError (the API
 * answers 503); broken connections are dropped from the pool and calls
 * succeed again as soon as the database is back, without a restart.
 */
import { ComposedStore } from '../shared/composed-store.js'
import { pgAccounts } from './accounts.js'
import { pgAnalytics } from './analytics.js'
import { PgConn, type PostgresConnOptions } from './conn.js'
import { pgSites } from './sites.js'
import { pgSso } from './sso.js'
import { pgState } from './state.js'

/** Options of {@link PostgresStore}. */
export type PostgresStoreOptions = PostgresConnOptions

/** The Store contract on PostgreSQL. */
export class PostgresStore extends ComposedStore {
  /** The schema holding this store's tables. */
  readonly schema: string
  private readonly conn: PgConn

  constructor(options: PostgresStoreOptions = {}) {
    const conn = new PgConn(options)
    super({
      accounts: pgAccounts(conn),
      sites: pgSites(conn),
      analytics: pgAnalytics(conn),
      sso: pgSso(conn),
      state: pgState(conn),
    })
    this.conn = conn
    this.schema = conn.schema
  }

  /** The pg pool in use (for diagnostics and benchmarks). */
  get pool(): PgConn['pool'] {
    return this.conn.pool
  }

  /** Ends the pool if the store created it (a pool passed in stays open); every later call rejects. */
  close(): Promise<void> {
    return this.conn.close()
  }
}
