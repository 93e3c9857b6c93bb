/**
 * PostgresStore's single sign-on tokens and dashboard sessions. Redemption
 * is one statement: the token row is deleted (of two racing deletes, one
 * gets the row, the other waits and finds nothing) and, when it was alive on
 * the engine clock, the session row is inserted from it. Rows also carry a
 * `drop_after` on the database clock (their remaining life plus a margin),
 * past which the writes sweep them; the engine clock alone decides expiry.
 */
import type { SsoGrant, SsoRecord } from './contract.js'
import { statement, type PgConn, type Statement } from './postgres-conn.js'

/** Kept past a record's remaining life, so an engine clock a little behind the database's never loses one early. */
const TTL_MARGIN_MS = 60_000

/** The migration that adds the two tables. */
export const SSO_TABLES = (S: string): string => `
CREATE TABLE ${S}.sso_tokens (
  digest text COLLATE "C" PRIMARY KEY,
  grant_rec jsonb NOT NULL,
  expires_at float8 NOT NULL,
  drop_after timestamptz NOT NULL
);
CREATE INDEX sso_tokens_by_drop ON ${S}.sso_tokens (drop_after);
CREATE TABLE ${S}.sessions (
  digest text COLLATE "C" PRIMARY KEY,
  grant_rec jsonb NOT NULL,
  expires_at float8 NOT NULL,
  drop_after timestamptz NOT NULL
);
CREATE INDEX sessions_by_drop ON ${S}.sessions (drop_after);
`

function ttl(expires_at: number, now: number): number {
  return Math.max(1, Math.ceil(expires_at - now)) + TTL_MARGIN_MS
}

/** Only the grant's own fields. */
function grantOf(record: SsoGrant): SsoGrant {
  const { account_name, owner, incarnation, target, site_name } = record
  return site_name === undefined
    ? { account_name, owner, incarnation, target }
    : { account_name, owner, incarnation, target, site_name }
}

/** The SSO methods of the Store contract, on PostgreSQL. */
export class PgSso {
  private readonly st: Record<'issue' | 'redeem' | 'get' | 'end', Statement>

  constructor(private readonly conn: PgConn) {
    const S = conn.s
    this.st = {
      issue: statement(
        `WITH sweep AS (DELETE FROM ${S}.sso_tokens WHERE drop_after < now())
         INSERT INTO ${S}.sso_tokens (digest, grant_rec, expires_at, drop_after)
         VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')
         ON CONFLICT (digest) DO UPDATE SET grant_rec = excluded.grant_rec, expires_at = excluded.expires_at, drop_after = excluded.drop_after`,
      ),
      redeem: statement(
        `WITH token AS (DELETE FROM ${S}.sso_tokens WHERE digest = $1 RETURNING grant_rec, expires_at),
              sweep AS (DELETE FROM ${S}.sessions WHERE drop_after < now()),
              session AS (
                INSERT INTO ${S}.sessions (digest, grant_rec, expires_at, drop_after)
                SELECT $3, grant_rec, $4, now() + $5 * interval '1 millisecond' FROM token WHERE $2 < token.expires_at
                ON CONFLICT (digest) DO NOTHING
                RETURNING grant_rec)
         SELECT grant_rec FROM session`,
      ),
      get: statement(`SELECT grant_rec, expires_at FROM ${S}.sessions WHERE digest = $1 AND $2 < expires_at`),
      end: statement(`DELETE FROM ${S}.sessions WHERE digest = $1 RETURNING 1`),
    }
  }

  async issue(digest: string, token: SsoRecord, now: number): Promise<void> {
    await this.conn.query(
      this.st.issue,
      [digest, JSON.stringify(grantOf(token)), token.expires_at, ttl(token.expires_at, now)],
      'write',
    )
  }

  async redeem(
    digest: string,
    now: number,
    session_digest: string,
    session_expires_at: number,
  ): Promise<SsoGrant | undefined> {
    // Not retried on a lost connection: a redemption that may have happened must not happen twice.
    const [row] = await this.conn.query<{ grant_rec: SsoGrant }>(
      this.st.redeem,
      [digest, now, session_digest, session_expires_at, ttl(session_expires_at, now)],
      'write',
    )
    return row?.grant_rec
  }

  async get(digest: string, now: number): Promise<SsoRecord | undefined> {
    const [row] = await this.conn.query<{ grant_rec: SsoGrant; expires_at: number }>(this.st.get, [digest, now])
    return row && { ...row.grant_rec, expires_at: row.expires_at }
  }

  async end(digest: string): Promise<boolean> {
    return (await this.conn.query(this.st.end, [digest], 'write')).length === 1
  }
}
