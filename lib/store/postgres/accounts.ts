/**
 * PostgresStore's masters, sub-user accounts, grants and limit counters.
 * Each method is one statement (grants and the limit call a function from
 * migrations/): one round trip.
 */
import type { AccountRecord, GrantOutcome, MasterRecord } from '../contract/index.js'
import type { AccountsStore } from '../contract/accounts.js'
import { accountPatchEntries } from '../shared/patch-checks.js'
import { type PgConn, statement } from './conn.js'
import { encodePatch } from './sites.js'

/** The master, account, grant and limit methods of the Store contract, on PostgreSQL. */
export function pgAccounts(conn: PgConn): AccountsStore {
  const S = conn.s
  const st = {
    putMaster: statement(
      `INSERT INTO ${S}.masters (user_name, rec) VALUES ($1, $2) ON CONFLICT (user_name) DO UPDATE SET rec = excluded.rec`,
    ),
    getMaster: statement(`SELECT rec FROM ${S}.masters WHERE user_name = $1`),
    putMasterIfAbsent: statement(
      `INSERT INTO ${S}.masters (user_name, rec) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1`,
    ),
    putMasterOver: statement(
      `UPDATE ${S}.masters SET rec = $2 WHERE user_name = $1 AND rec->>'password_hash' = $3 RETURNING 1`,
    ),
    create: statement(
      `INSERT INTO ${S}.accounts (account_name, rec) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1`,
    ),
    get: statement(`SELECT rec FROM ${S}.accounts WHERE account_name = $1`),
    update: statement(
      `UPDATE ${S}.accounts SET rec = (rec - $3::text[]) || $4::jsonb WHERE account_name = $2 AND owner = $1 RETURNING 1`,
    ),
    delete: statement(`DELETE FROM ${S}.accounts WHERE account_name = $2 AND owner = $1 RETURNING 1`),
    grant: statement(`SELECT ${S}.set_grant($1, $2, $3, $4) AS outcome`),
    grantWith: statement(`SELECT ${S}.set_grant_permissions($1, $2, $3, $4) AS outcome`),
    getGrant: statement(
      `SELECT CASE WHEN a.owner IS DISTINCT FROM $1 THEN 'no-account'
                   WHEN s.owner IS DISTINCT FROM $1 THEN 'no-site'
                   WHEN g.account_name IS NULL THEN 'no-grant' ELSE 'ok' END AS outcome, g.permissions
         FROM (SELECT 1) one
         LEFT JOIN ${S}.accounts a ON a.account_name = $2
         LEFT JOIN ${S}.sites s ON s.site_name = $3
         LEFT JOIN ${S}.grants g ON g.account_name = $2 AND g.site_name = $3`,
    ),
    listGrants: statement(
      `SELECT array(SELECT g.site_name FROM ${S}.grants g WHERE g.account_name = a.account_name) AS sites
           FROM ${S}.accounts a WHERE a.account_name = $2 AND a.owner = $1`,
    ),
    limit: statement(`SELECT o_allowed, o_count FROM ${S}.increment_within_limit($1, $2, $3)`),
  }

  /** The account is checked first: when neither is the owner's the answer is 'no-account'. */
  const setGrant = async (owner: string, account_name: string, site_name: string, grant: boolean) => {
    const values = [owner, account_name, site_name, grant]
    const [row] = await conn.query<{ outcome: GrantOutcome }>(st.grant, values, 'write')
    return row!.outcome
  }

  return {
    async putMaster(master) {
      await conn.query(st.putMaster, [master.user, JSON.stringify(master)], 'write')
    },

    async getMaster(user) {
      const [row] = await conn.query<{ rec: MasterRecord }>(st.getMaster, [user])
      return row?.rec
    },

    /** One statement: an insert that yields to an existing row, or an update guarded by the stored hash. */
    async putMasterIf(master, expected_hash) {
      const rows =
        expected_hash === null
          ? await conn.query(st.putMasterIfAbsent, [master.user, JSON.stringify(master)], 'write')
          : await conn.query(st.putMasterOver, [master.user, JSON.stringify(master), expected_hash], 'write')
      return rows.length === 1
    },

    async createAccount(account) {
      const rows = await conn.query(st.create, [account.account_name, JSON.stringify(account)], 'write')
      return rows.length === 1
    },

    async getAccount(account_name) {
      const [row] = await conn.query<{ rec: AccountRecord }>(st.get, [account_name])
      return row?.rec
    },

    async updateAccount(owner, account_name, patch) {
      const [set, removed] = encodePatch(accountPatchEntries(patch))
      const rows = await conn.query(st.update, [owner, account_name, removed, set], 'write')
      return rows.length === 1
    },

    /** The grants go with it (foreign-key cascade, same statement). */
    async deleteAccount(owner, account_name) {
      const rows = await conn.query(st.delete, [owner, account_name], 'write')
      return rows.length === 1
    },

    async grantAccess(owner, account_name, site_name, permissions) {
      const values = [owner, account_name, site_name, permissions === undefined ? null : JSON.stringify(permissions)]
      const [row] = await conn.query<{ outcome: GrantOutcome }>(st.grantWith, values, 'write')
      return row!.outcome
    },

    async getGrant(owner, account_name, site_name) {
      const [row] = await conn.query<{ outcome: GrantOutcome | 'no-grant'; permissions: string[] | null }>(
        st.getGrant,
        [owner, account_name, site_name],
      )
      return row!.outcome === 'ok' ? { permissions: row!.permissions } : row!.outcome
    },

    revokeAccess(owner, account_name, site_name) {
      return setGrant(owner, account_name, site_name, false)
    },

    async listGrants(owner, account_name) {
      const [row] = await conn.query<{ sites: string[] }>(st.listGrants, [owner, account_name])
      return row?.sites.sort()
    },

    async incrementWithinLimit(key, limit, expiresAt) {
      const values = [key, limit, expiresAt]
      const [row] = await conn.query<{ o_allowed: boolean; o_count: number }>(st.limit, values, 'write')
      return { allowed: row!.o_allowed, count: row!.o_count }
    },
  }
}
