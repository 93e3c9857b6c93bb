/**
 * The schema of PostgresStore, as numbered migrations (migrations/, one file
 * each). Every table, index and function of the store is defined there and
 * nowhere else; the statements the store runs are next to the operations
 * that run them (sites.ts, accounts.ts, analytics.ts, sso.ts, state.ts).
 *
 * `migrate` runs in ONE transaction holding a transaction-level advisory lock
 * keyed by the schema name: two processes starting at once on an empty
 * database queue on the lock; the second finds every migration applied and
 * does nothing. A migration that fails rolls back whole (PostgreSQL DDL is
 * transactional), so a schema is never half-built. Each migration runs once,
 * recorded in `<schema>.migrations`.
 *
 * Migrations are append-only: a database runs each one once, so the text of
 * one already released is never edited (a change to a function would reach
 * new databases only); a change is a new migration at the end of the list.
 * test/store/postgres/migrations.ts holds the digest of every released migration
 * and checks that a database migrated one version at a time ends with the
 * same tables, indexes and functions as a new one.
 *
 * The SQL names every object with the quoted schema (`S`), so a store works
 * with any `search_path` and with a pool it did not configure.
 */
import type { PoolClient } from 'pg'
import { migration as m001 } from './migrations/001-tables-and-functions.js'
import { migration as m002 } from './migrations/002-sso-tables.js'
import { migration as m003 } from './migrations/003-ascii-name-fold.js'
import { migration as m004 } from './migrations/004-grant-permissions.js'
import { migration as m005 } from './migrations/005-batched-capped-analytics.js'
import { migration as m006 } from './migrations/006-compact-analytics.js'

/** First half of the advisory-lock key: "mobisite" folded into an int4; the second half is hashtext(schema). */
const LOCK_CLASS = 0x6d6f6273

/** One migration: a version and the SQL that brings the schema to it from the version before. */
export interface Migration {
  version: number
  name: string
  sql: (S: string) => string
}

/** Every migration, oldest first. Append only. */
export const MIGRATIONS: readonly Migration[] = [m001, m002, m003, m004, m005, m006]

/**
 * Brings the schema up to the newest migration (or to version `upTo`), under
 * the advisory lock, in one transaction. Safe to call from any number of
 * processes at once.
 */
export async function migrate(
  client: PoolClient,
  S: string,
  schema: string,
  timeoutMs: number,
  upTo = Number.POSITIVE_INFINITY,
): Promise<void> {
  await client.query('BEGIN')
  try {
    // Waiting for another process's migration, and DDL, may take longer than one call.
    await client.query(
      `SET LOCAL statement_timeout = ${Math.round(timeoutMs)}; SET LOCAL lock_timeout = ${Math.round(timeoutMs)}`,
    )
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS, schema])
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${S}`)
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${S}.migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    )
    const { rows } = await client.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${S}.migrations`)
    const current = rows[0]?.v ?? 0
    for (const m of MIGRATIONS) {
      if (m.version <= current || m.version > upTo) continue
      await client.query(m.sql(S))
      await client.query(`INSERT INTO ${S}.migrations (version, name) VALUES ($1, $2)`, [m.version, m.name])
    }
    await client.query('COMMIT')
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {})
    throw err
  }
}
