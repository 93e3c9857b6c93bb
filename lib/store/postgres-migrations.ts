/**
 * The schema of PostgresStore, as numbered migrations.
 *
 * `migrate` runs in ONE transaction holding a transaction-level advisory lock
 * keyed by the schema name: two processes starting at once on an empty
 * database queue on the lock; the second finds every migration applied and
 * does nothing. A migration that fails rolls back whole (PostgreSQL DDL is
 * transactional), so a schema is never half-built. Each migration runs once,
 * recorded in `<schema>.migrations`; new ones are appended, never edited.
 *
 * The SQL names every object with the quoted schema (`S`), so a store works
 * with any `search_path` and with a pool it did not configure.
 */
import type { PoolClient } from 'pg'
import { ANALYTICS_FUNCTIONS } from './postgres-analytics-sql.js'
import { SITE_FUNCTIONS } from './postgres-functions.js'
import { SSO_TABLES } from './postgres-sso.js'

/** First half of the advisory-lock key: "mobisite" folded into an int4; the second half is hashtext(schema). */
const LOCK_CLASS = 0x6d6f6273

/** One migration: a version and the SQL that brings the schema to it. */
interface Migration {
  version: number
  name: string
  sql: (S: string) => string
}

/** Every migration, oldest first. Append only. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'tables, indexes and functions',
    sql: (S) => `
CREATE TABLE ${S}.masters (
  user_name text COLLATE "C" PRIMARY KEY,
  rec jsonb NOT NULL
);

-- A site is its record (jsonb) plus columns generated from it for the
-- indexes; id is one incarnation of the name (analytics hang off it, so a
-- re-created name starts from nothing).
CREATE TABLE ${S}.sites (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  site_name text COLLATE "C" NOT NULL UNIQUE,
  rec jsonb NOT NULL,
  owner text COLLATE "C" NOT NULL GENERATED ALWAYS AS (rec->>'owner') STORED,
  created_at float8 NOT NULL GENERATED ALWAYS AS ((rec->>'created_at')::float8) STORED,
  modified_at float8 NOT NULL GENERATED ALWAYS AS ((rec->>'modified_at')::float8) STORED,
  external_uid text COLLATE "C" GENERATED ALWAYS AS (rec->>'external_uid') STORED,
  -- The active subscription of this incarnation, cancelled by Delete Site.
  subscription_id bigint
);
-- Names are unique regardless of letter case; lookups stay exact.
CREATE UNIQUE INDEX sites_name_folded ON ${S}.sites (lower(site_name));
CREATE INDEX sites_by_created ON ${S}.sites (owner, created_at, site_name);
CREATE INDEX sites_by_modified ON ${S}.sites (owner, modified_at, site_name);
CREATE INDEX sites_by_external_uid ON ${S}.sites (owner, external_uid, created_at DESC, site_name DESC)
  WHERE external_uid IS NOT NULL;

CREATE TABLE ${S}.accounts (
  account_name text COLLATE "C" PRIMARY KEY,
  rec jsonb NOT NULL,
  owner text COLLATE "C" NOT NULL GENERATED ALWAYS AS (rec->>'owner') STORED
);
CREATE UNIQUE INDEX accounts_name_folded ON ${S}.accounts (lower(account_name));

-- Grants die with their site or account: the foreign keys cascade inside
-- the deleting statement.
CREATE TABLE ${S}.grants (
  account_name text COLLATE "C" NOT NULL REFERENCES ${S}.accounts (account_name) ON DELETE CASCADE,
  site_name text COLLATE "C" NOT NULL REFERENCES ${S}.sites (site_name) ON DELETE CASCADE,
  PRIMARY KEY (account_name, site_name)
);
CREATE INDEX grants_by_site ON ${S}.grants (site_name);

CREATE TABLE ${S}.charges (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner text COLLATE "C" NOT NULL,
  site_name text NOT NULL,
  at float8 NOT NULL
);
CREATE INDEX charges_by_owner ON ${S}.charges (owner, id);
CREATE TABLE ${S}.subscriptions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner text COLLATE "C" NOT NULL,
  site_name text NOT NULL,
  status text NOT NULL
);
CREATE INDEX subscriptions_by_owner ON ${S}.subscriptions (owner, id);

CREATE TABLE ${S}.limits (
  key text COLLATE "C" PRIMARY KEY,
  count integer NOT NULL,
  expires_at float8 NOT NULL
);
CREATE INDEX limits_by_expiry ON ${S}.limits (expires_at);

-- Analytics: one row per site and UTC day, one per site, day and dimension
-- value, and one per distinct (visitor, system, geo) of a site-day, which
-- gives exact distinct visitors over any period and dimension value.
CREATE TABLE ${S}.dim_values (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  dim smallint NOT NULL,
  k1 text COLLATE "C" NOT NULL,
  k2 text COLLATE "C" NOT NULL,
  UNIQUE (dim, k1, k2)
);
CREATE TABLE ${S}.site_days (
  site_id bigint NOT NULL,
  day date NOT NULL,
  owner text COLLATE "C" NOT NULL,
  visits integer NOT NULL DEFAULT 0,
  page_views bigint NOT NULL DEFAULT 0,
  click_to_call integer NOT NULL DEFAULT 0,
  click_to_map integer NOT NULL DEFAULT 0,
  click_to_email integer NOT NULL DEFAULT 0,
  form_submit integer NOT NULL DEFAULT 0,
  PRIMARY KEY (site_id, day)
);
-- Most-traffic reads an owner's days with an index-only scan.
CREATE INDEX site_days_by_owner ON ${S}.site_days (owner, day) INCLUDE (site_id, visits);
CREATE TABLE ${S}.dim_days (
  site_id bigint NOT NULL,
  day date NOT NULL,
  dim_id integer NOT NULL,
  visits integer NOT NULL DEFAULT 0,
  page_views bigint NOT NULL DEFAULT 0,
  click_to_call integer NOT NULL DEFAULT 0,
  click_to_map integer NOT NULL DEFAULT 0,
  click_to_email integer NOT NULL DEFAULT 0,
  form_submit integer NOT NULL DEFAULT 0,
  PRIMARY KEY (site_id, day, dim_id)
);
CREATE TABLE ${S}.day_visitors (
  site_id bigint NOT NULL,
  day date NOT NULL,
  visitor_id text COLLATE "C" NOT NULL,
  sys_id integer NOT NULL,
  geo_id integer NOT NULL,
  PRIMARY KEY (site_id, day, visitor_id, sys_id, geo_id)
);
${SITE_FUNCTIONS(S)}
${ANALYTICS_FUNCTIONS(S)}
`,
  },
  { version: 2, name: 'single sign-on tokens and dashboard sessions', sql: SSO_TABLES },
  {
    version: 3,
    name: 'names folded like every store (ASCII letters only), whatever the database locale',
    // lower() folds by the database's LC_CTYPE, non-ASCII letters too;
    // lib/store/names.ts folds A-Z only, and so must the unique indexes.
    sql: (S) => `
DROP INDEX ${S}.sites_name_folded;
CREATE UNIQUE INDEX sites_name_folded ON ${S}.sites (${ASCII_FOLD('site_name')});
DROP INDEX ${S}.accounts_name_folded;
CREATE UNIQUE INDEX accounts_name_folded ON ${S}.accounts (${ASCII_FOLD('account_name')});
`,
  },
]

/** SQL for foldName (lib/store/names.ts): A-Z to a-z, nothing else. Immutable, so it can be indexed. */
function ASCII_FOLD(column: string): string {
  return `translate(${column}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`
}

/**
 * Brings the schema up to the newest migration, under the advisory lock, in
 * one transaction. Safe to call from any number of processes at once.
 */
export async function migrate(client: PoolClient, S: string, schema: string, timeoutMs: number): Promise<void> {
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
      if (m.version <= current) continue
      await client.query(m.sql(S))
      await client.query(`INSERT INTO ${S}.migrations (version, name) VALUES ($1, $2)`, [m.version, m.name])
    }
    await client.query('COMMIT')
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {})
    throw err
  }
}
