/**
 * Masters, sub-user accounts, grants and limits of PostgresStore. Each method
 * is one statement (grants and the limit call a function): one round trip.
 */
import type { AccountPatch, AccountRecord, GrantOutcome, LimitOutcome, MasterRecord } from './contract.js'
import { accountPatchEntries } from './guards.js'
import { statement, type PgConn, type Statement } from './postgres-conn.js'
import { encodePatch } from './postgres-sites.js'

/** The account, grant, master and limit methods of the Store contract, on PostgreSQL. */
export class PgAccounts {
  private readonly st: Record<string, Statement>

  constructor(private readonly conn: PgConn) {
    const S = conn.s
    this.st = {
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
      listGrants: statement(
        `SELECT array(SELECT g.site_name FROM ${S}.grants g WHERE g.account_name = a.account_name) AS sites
           FROM ${S}.accounts a WHERE a.account_name = $2 AND a.owner = $1`,
      ),
      limit: statement(`SELECT o_allowed, o_count FROM ${S}.increment_within_limit($1, $2, $3)`),
    }
  }

  async putMaster(master: MasterRecord): Promise<void> {
    await this.conn.query(this.st.putMaster!, [master.user, JSON.stringify(master)], 'write')
  }

  async getMaster(user: string): Promise<MasterRecord | undefined> {
    const [row] = await this.conn.query<{ rec: MasterRecord }>(this.st.getMaster!, [user])
    return row?.rec
  }

  /** One statement: an insert that yields to an existing row, or an update guarded by the stored hash. */
  async putMasterIf(master: MasterRecord, expected_hash: string | null): Promise<boolean> {
    const rows =
      expected_hash === null
        ? await this.conn.query(this.st.putMasterIfAbsent!, [master.user, JSON.stringify(master)], 'write')
        : await this.conn.query(this.st.putMasterOver!, [master.user, JSON.stringify(master), expected_hash], 'write')
    return rows.length === 1
  }

  async createAccount(account: AccountRecord): Promise<boolean> {
    const rows = await this.conn.query(this.st.create!, [account.account_name, JSON.stringify(account)], 'write')
    return rows.length === 1
  }

  async getAccount(account_name: string): Promise<AccountRecord | undefined> {
    const [row] = await this.conn.query<{ rec: AccountRecord }>(this.st.get!, [account_name])
    return row?.rec
  }

  async updateAccount(owner: string, account_name: string, patch: AccountPatch): Promise<boolean> {
    const [set, removed] = encodePatch(accountPatchEntries(patch))
    const rows = await this.conn.query(this.st.update!, [owner, account_name, removed, set], 'write')
    return rows.length === 1
  }

  /** The grants go with it (foreign-key cascade, same statement). */
  async deleteAccount(owner: string, account_name: string): Promise<boolean> {
    const rows = await this.conn.query(this.st.delete!, [owner, account_name], 'write')
    return rows.length === 1
  }

  async setGrant(owner: string, account_name: string, site_name: string, grant: boolean): Promise<GrantOutcome> {
    const [row] = await this.conn.query<{ outcome: GrantOutcome }>(
      this.st.grant!,
      [owner, account_name, site_name, grant],
      'write',
    )
    return row!.outcome
  }

  async listGrants(owner: string, account_name: string): Promise<string[] | undefined> {
    const [row] = await this.conn.query<{ sites: string[] }>(this.st.listGrants!, [owner, account_name])
    return row?.sites.sort()
  }

  async incrementWithinLimit(key: string, limit: number, expiresAt: number): Promise<LimitOutcome> {
    const [row] = await this.conn.query<{ o_allowed: boolean; o_count: number }>(
      this.st.limit!,
      [key, limit, expiresAt],
      'write',
    )
    return { allowed: row!.o_allowed, count: row!.o_count }
  }
}
