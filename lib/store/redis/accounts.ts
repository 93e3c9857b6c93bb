/**
 * RedisStore's masters, sub-user accounts, grants and limit counters. A
 * master is a JSON string, an account a hash (hash-fields.ts), grants a set
 * each way; each conditional write is one Lua script (lua/accounts.ts).
 */
import type { AccountRecord, GrantOutcome, LimitOutcome, MasterRecord } from '../contract.js'
import type { AccountOps } from '../shared/composed-store.js'
import { foldName } from '../shared/name-fold.js'
import type { RedisConn } from './conn.js'
import { checkAccountPatch, decodeFields, encodeFields, encodePatch } from './hash-fields.js'
import type { RedisKeys } from './keys.js'
import {
  CREATE_ACCOUNT,
  DELETE_ACCOUNT,
  GET_GRANT,
  GRANT,
  INCREMENT_WITHIN_LIMIT,
  LIST_GRANTS,
  PUT_MASTER_IF,
  UPDATE_ACCOUNT,
} from './lua/accounts.js'
import { GET_HASHES } from './lua/sites.js'

/** The master, account, grant and limit methods of the Store contract, on Redis. */
export function redisAccounts(conn: RedisConn, k: RedisKeys): AccountOps {
  const grant = async (
    owner: string,
    account: string,
    site: string,
    op: 'grant' | 'revoke',
    permissions?: string[],
  ) => {
    const keys = [
      k.account(account),
      k.site(site),
      k.accountGrants(account),
      k.siteGrants(site),
      k.grantPermissions(account),
    ]
    const perms = permissions === undefined ? '' : JSON.stringify(permissions)
    return (await conn.run(GRANT, keys, [JSON.stringify(owner), account, site, op, perms])) as GrantOutcome
  }

  return {
    async putMaster(master) {
      await conn.call((c) => c.set(k.master(master.user), JSON.stringify(master)))
    },

    async getMaster(user) {
      const json = await conn.call((c) => c.get(k.master(user)))
      return json === null ? undefined : (JSON.parse(json) as MasterRecord)
    },

    async putMasterIf(master, expected_hash) {
      const args = [JSON.stringify(master), expected_hash ?? '']
      return (await conn.run(PUT_MASTER_IF, [k.master(master.user)], args)) === 1
    },

    async createAccount(account) {
      const args = [foldName(account.account_name), account.account_name, ...encodeFields(account)]
      return (await conn.run(CREATE_ACCOUNT, [k.account(account.account_name), k.accountFolds()], args)) === 1
    },

    async getAccount(account_name) {
      const [hash] = (await conn.run(GET_HASHES, [k.account(account_name)], [])) as unknown[]
      return decodeFields<AccountRecord>(hash)
    },

    async updateAccount(owner, account_name, patch) {
      checkAccountPatch(patch)
      const args = [JSON.stringify(owner), ...encodePatch(patch)]
      return (await conn.run(UPDATE_ACCOUNT, [k.account(account_name)], args)) === 1
    },

    async deleteAccount(owner, account_name) {
      const keys = [
        k.account(account_name),
        k.accountGrants(account_name),
        k.accountFolds(),
        k.grantPermissions(account_name),
      ]
      const args = [k.prefix, JSON.stringify(owner), account_name, foldName(account_name)]
      return (await conn.run(DELETE_ACCOUNT, keys, args)) === 1
    },

    grantAccess(owner, account_name, site_name, permissions) {
      return grant(owner, account_name, site_name, 'grant', permissions)
    },

    async getGrant(owner, account_name, site_name) {
      const keys = [
        k.account(account_name),
        k.site(site_name),
        k.accountGrants(account_name),
        k.grantPermissions(account_name),
      ]
      const reply = (await conn.run(GET_GRANT, keys, [JSON.stringify(owner), site_name])) as
        | 'no-account'
        | 'no-site'
        | 'no-grant'
        | [string, string | null]
      if (typeof reply === 'string') return reply
      return { permissions: reply[1] === null ? null : (JSON.parse(reply[1]) as string[]) }
    },

    revokeAccess(owner, account_name, site_name) {
      return grant(owner, account_name, site_name, 'revoke')
    },

    async listGrants(owner, account_name) {
      const keys = [k.account(account_name), k.accountGrants(account_name)]
      const sites = (await conn.run(LIST_GRANTS, keys, [JSON.stringify(owner)])) as string[] | null
      return sites === null ? undefined : sites.sort()
    },

    async incrementWithinLimit(key, limit, expiresAt): Promise<LimitOutcome> {
      const reply = await conn.run(INCREMENT_WITHIN_LIMIT, [k.limit(key)], [limit, Math.ceil(expiresAt)])
      const [allowed, count] = reply as [number, number]
      return { allowed: allowed === 1, count }
    },
  }
}
