/**
 * RedisStore's masters, sub-user accounts, grants and limit counters. A
 * master is a JSON string, an account a hash (hash-fields.ts), grants a set
 * each way (with the permissions of each grant in a hash on the account's
 * side); each conditional write is one Lua script (lua/accounts.ts).
 */
import type { AccountRecord, GrantLookup, GrantOutcome, LimitOutcome, MasterRecord } from '../contract/index.js'
import { StoreUnavailableError } from '../contract/index.js'
import type { AccountsStore } from '../contract/accounts.js'
import { foldName } from '../shared/name-fold.js'
import { claimName, releaseName } from './claims.js'
import type { RedisConn } from './conn.js'
import { checkAccountPatch, decodeFieldBuffers, encodeFields, encodePatch } from './hash-fields.js'
import type { RedisKeys } from './keys.js'
import {
  CREATE_ACCOUNT,
  CREATE_ACCOUNT_1,
  DELETE_ACCOUNT,
  DELETE_ACCOUNT_1,
  GET_GRANT_1,
  GET_GRANT_ACCOUNT,
  GET_GRANT_SITE,
  GRANT_1,
  GRANT_SIDE,
  INCREMENT_WITHIN_LIMIT,
  LIST_GRANTS,
  LIST_GRANTS_1,
  PUT_MASTER_IF,
  UPDATE_ACCOUNT,
} from './lua/accounts.js'

/** The master, account, grant and limit methods of the Store contract, on Redis. */
export function redisAccounts(conn: RedisConn, k: RedisKeys, claimTimeout: number): AccountsStore {
  // On a single Redis each rule below is one script (the `_1` forms in lua/accounts.ts).
  const cluster = conn.cluster
  const accountOwner = (name: string) => conn.call((c) => c.hget(k.account(name), 'owner'))
  /**
   * A grant spans the account's slot and the site's: each side is a set, and
   * a grant holds when both have it (listGrants checks the site's side). So
   * grant adds the site's side first and revoke removes it first: a crash in
   * between leaves a half that no reader counts. The grant's permissions
   * are written with the account's side ('' = every permission).
   */
  const grant = async (owner: string, account: string, site: string, op: 'grant' | 'revoke', perms = '') => {
    const ownerJson = JSON.stringify(owner)
    const accountKeys = [k.account(account), k.accountGrants(account), k.grantPermissions(account)]
    if (!cluster) {
      const keys = [k.account(account), k.site(site), k.accountGrants(account), k.siteGrants(site)]
      keys.push(k.grantPermissions(account))
      return (await conn.write(GRANT_1, keys, [ownerJson, account, site, op, perms])) as GrantOutcome
    }
    if ((await accountOwner(account)) !== ownerJson) return 'no-account' as GrantOutcome
    const siteSide = (o: 'grant' | 'revoke') =>
      conn.write(GRANT_SIDE, [k.site(site), k.siteGrants(site)], [ownerJson, account, o])
    if ((await siteSide(op)) !== 1) return 'no-site' as GrantOutcome
    const done = await conn.write(GRANT_SIDE, accountKeys, [ownerJson, site, op, perms])
    if (done === 1) return 'ok' as GrantOutcome
    if (op === 'grant') await siteSide('revoke') // the account went meanwhile
    return 'no-account' as GrantOutcome
  }

  return {
    async putMaster(master) {
      await conn.writeCommands((p) => p.set(k.master(master.user), JSON.stringify(master)))
    },

    async getMaster(user) {
      const json = await conn.call((c) => c.get(k.master(user)))
      return json === null ? undefined : (JSON.parse(json) as MasterRecord)
    },

    async putMasterIf(master, expected_hash) {
      const args = [JSON.stringify(master), expected_hash ?? '']
      return (await conn.write(PUT_MASTER_IF, [k.master(master.user)], args)) === 1
    },

    async createAccount(account) {
      const name = account.account_name
      if (!cluster) {
        const keys = [k.accountClaim(foldName(name)), k.account(name)]
        const args = [k.prefix, name, claimTimeout, ...encodeFields(account)]
        return (await conn.write(CREATE_ACCOUNT_1, keys, args)) === 1
      }
      const exists = async (holder: string) => (await accountOwner(holder)) !== null
      const at = await claimName(conn, k.accountClaim(foldName(name)), name, claimTimeout, exists)
      if (at === undefined) return false
      const args = [at, Math.floor(claimTimeout / 2), ...encodeFields(account), '#claim', at]
      const created = await conn.write(CREATE_ACCOUNT, [k.account(name)], args)
      if (created === -1) throw new StoreUnavailableError(`creating account ${name} took too long; try again`)
      return created === 1
    },

    async getAccount(account_name) {
      const key = k.account(account_name)
      return conn.call((c) => c.callBuffer('HGETALL', key)).then(decodeFieldBuffers<AccountRecord>)
    },

    async updateAccount(owner, account_name, patch) {
      checkAccountPatch(patch)
      const args = [JSON.stringify(owner), ...encodePatch(patch)]
      return (await conn.write(UPDATE_ACCOUNT, [k.account(account_name)], args)) === 1
    },

    async deleteAccount(owner, account_name) {
      const keys = [k.account(account_name), k.accountGrants(account_name)]
      const perms = k.grantPermissions(account_name)
      if (!cluster) {
        const args = [JSON.stringify(owner), k.prefix, account_name]
        const all = [...keys, k.accountClaim(foldName(account_name)), perms]
        return (await conn.write(DELETE_ACCOUNT_1, all, args)) === 1
      }
      const reply = (await conn.write(DELETE_ACCOUNT, [...keys, perms], [JSON.stringify(owner)])) as
        | [string, string[]]
        | null
      if (reply === null) return false
      const [at, sites] = reply
      await Promise.all(sites.map((site) => conn.writeCommands((p) => p.srem(k.siteGrants(site), account_name))))
      await releaseName(conn, k.accountClaim(foldName(account_name)), account_name, at || undefined)
      return true
    },

    grantAccess(owner, account_name, site_name, permissions) {
      const perms = permissions === undefined ? '' : JSON.stringify(permissions)
      return grant(owner, account_name, site_name, 'grant', perms)
    },

    async getGrant(owner, account_name, site_name): Promise<GrantLookup> {
      const ownerJson = JSON.stringify(owner)
      const [account, grants, perms] = [
        k.account(account_name),
        k.accountGrants(account_name),
        k.grantPermissions(account_name),
      ]
      const [site, siteGrants] = [k.site(site_name), k.siteGrants(site_name)]
      const accountKeys = [account, grants, perms]
      const siteKeys = [site, siteGrants]
      type Reply = 'no-account' | 'no-site' | 'no-grant' | [string, string | null]
      let reply: Reply
      if (!cluster) {
        const keys = [account, site, grants, perms, siteGrants]
        reply = (await conn.run(GET_GRANT_1, keys, [ownerJson, account_name, site_name])) as Reply
      } else {
        // Each side in its own slot; the grant holds when both have it.
        const [accountSide, siteSide] = (await Promise.all([
          conn.run(GET_GRANT_ACCOUNT, accountKeys, [ownerJson, site_name]),
          conn.run(GET_GRANT_SITE, siteKeys, [ownerJson, account_name]),
        ])) as [Reply, 'no-site' | 'no-grant' | 'ok']
        reply = accountSide === 'no-account' || siteSide === 'ok' ? accountSide : siteSide
      }
      if (typeof reply === 'string') return reply
      return { permissions: reply[1] === null ? null : (JSON.parse(reply[1]) as string[]) }
    },

    revokeAccess(owner, account_name, site_name) {
      return grant(owner, account_name, site_name, 'revoke')
    },

    async listGrants(owner, account_name) {
      const keys = [k.account(account_name), k.accountGrants(account_name)]
      if (!cluster) {
        const granted = await conn.run(LIST_GRANTS_1, keys, [JSON.stringify(owner), k.prefix, account_name])
        return granted === null ? undefined : (granted as string[]).sort()
      }
      const sites = (await conn.run(LIST_GRANTS, keys, [JSON.stringify(owner)])) as string[] | null
      if (sites === null) return undefined
      const held = await Promise.all(
        sites.map((site) => conn.call((c) => c.sismember(k.siteGrants(site), account_name))),
      )
      return sites.filter((_, i) => held[i] === 1).sort()
    },

    async incrementWithinLimit(key, limit, expiresAt): Promise<LimitOutcome> {
      const reply = await conn.write(INCREMENT_WITHIN_LIMIT, [k.limit(key)], [limit, Math.ceil(expiresAt)])
      const [allowed, count] = reply as [number, number]
      return { allowed: allowed === 1, count }
    },
  }
}
