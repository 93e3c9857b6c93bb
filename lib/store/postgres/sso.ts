/**
 * PostgresStore's single sign-on tokens and dashboard sessions (tables from
 * migrations/002-sso-tables.ts). Redemption is one statement: the token row
 * is deleted (of two racing deletes, one gets the row, the other waits and
 * finds nothing) and, when it was alive on the engine clock, the session row
 * is inserted from it. Rows also carry a `drop_after` on the database clock
 * (their remaining life plus a margin), past which the writes sweep them; the
 * engine clock alone decides expiry.
 */
import type { SsoGrant } from '../contract/index.js'
import type { SsoStore } from '../contract/sso.js'
import { grantOf, keepFor } from '../shared/sso-records.js'
import { type PgConn, statement } from './conn.js'

/** The SSO methods of the Store contract, on PostgreSQL. */
export function pgSso(conn: PgConn): SsoStore {
  const S = conn.s
  const st = {
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

  return {
    async issueSsoToken(digest, token, now) {
      const values = [digest, JSON.stringify(grantOf(token)), token.expires_at, keepFor(token.expires_at, now)]
      await conn.query(st.issue, values, 'write')
    },

    async redeemSsoToken(digest, now, session_digest, session_expires_at) {
      // Not retried on a lost connection: a redemption that may have happened must not happen twice.
      const values = [digest, now, session_digest, session_expires_at, keepFor(session_expires_at, now)]
      const [row] = await conn.query<{ grant_rec: SsoGrant }>(st.redeem, values, 'write')
      return row?.grant_rec
    },

    async getSession(digest, now) {
      const [row] = await conn.query<{ grant_rec: SsoGrant; expires_at: number }>(st.get, [digest, now])
      return row && { ...row.grant_rec, expires_at: row.expires_at }
    },

    async deleteSession(digest) {
      return (await conn.query(st.end, [digest], 'write')).length === 1
    },
  }
}
