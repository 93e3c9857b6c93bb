/**
 * RedisStore's single sign-on tokens and dashboard sessions: one hash each
 * (`{t:<digest>}`, `{x:<digest>}`; keys.ts), redeemed by one Lua script
 * (lua/sso.ts). Keys also carry a Redis TTL of their remaining life plus a
 * margin, only so that dead records do not pile up; the engine clock alone
 * decides expiry.
 */
import type { SsoGrant } from '../contract/index.js'
import type { SsoStore } from '../contract/sso.js'
import { grantOf, keepFor } from '../shared/sso-records.js'
import type { RedisConn } from './conn.js'
import type { RedisKeys } from './keys.js'
import { TAKE_TOKEN } from './lua/sso.js'

/** The SSO methods of the Store contract, on Redis. */
export function redisSso(conn: RedisConn, keys: RedisKeys): SsoStore {
  return {
    async issueSsoToken(digest, token, now) {
      const key = keys.ssoToken(digest)
      const grant = JSON.stringify(grantOf(token))
      const expiresAt = String(token.expires_at)
      await conn.writeCommands((p) =>
        p.hset(key, 'grant', grant, 'expires_at', expiresAt).pexpire(key, keepFor(token.expires_at, now)),
      )
    },

    async redeemSsoToken(digest, now, session_digest, session_expires_at) {
      // Two steps (the token and the session are in different slots): the
      // token is taken atomically, so one redemption wins.
      const taken = (await conn.write(TAKE_TOKEN, [keys.ssoToken(digest)], [])) as [string, string] | null
      if (taken === null || !(now < Number(taken[1]))) return undefined
      const key = keys.session(session_digest)
      const ttl = keepFor(session_expires_at, now)
      await conn.writeCommands((p) =>
        p.hset(key, 'grant', taken[0], 'expires_at', String(session_expires_at)).pexpire(key, ttl),
      )
      return JSON.parse(taken[0]) as SsoGrant
    },

    async getSession(digest, now) {
      const [grant, expiresAt] = await conn.call((c) => c.hmget(keys.session(digest), 'grant', 'expires_at'))
      if (grant == null || expiresAt == null) return undefined
      const expires_at = Number(expiresAt)
      if (!(now < expires_at)) return undefined
      return { ...(JSON.parse(grant) as SsoGrant), expires_at }
    },

    async deleteSession(digest) {
      return (await conn.writeCommands((p) => p.del(keys.session(digest)))) === 1
    },
  }
}
