/**
 * RedisStore's single sign-on tokens and dashboard sessions: one hash each
 * (`ssotok:<digest>`, `sess:<digest>`; keys.ts), redeemed by one Lua script
 * (lua/sso.ts). Keys also carry a Redis TTL of their remaining life plus a
 * margin, only so that dead records do not pile up; the engine clock alone
 * decides expiry.
 */
import type { SsoGrant } from '../contract.js'
import type { SsoOps } from '../shared/composed-store.js'
import { grantOf, keepFor } from '../shared/sso-records.js'
import type { RedisConn } from './conn.js'
import type { RedisKeys } from './keys.js'
import { REDEEM } from './lua/sso.js'

/** The SSO methods of the Store contract, on Redis. */
export function redisSso(conn: RedisConn, keys: RedisKeys): SsoOps {
  return {
    async issueSsoToken(digest, token, now) {
      const key = keys.ssoToken(digest)
      const grant = JSON.stringify(grantOf(token))
      const expiresAt = String(token.expires_at)
      await conn.call((c) =>
        c
          .multi()
          .hset(key, 'grant', grant, 'expires_at', expiresAt)
          .pexpire(key, keepFor(token.expires_at, now))
          .exec(),
      )
    },

    async redeemSsoToken(digest, now, session_digest, session_expires_at) {
      const grant = await conn.run(
        REDEEM,
        [keys.ssoToken(digest), keys.session(session_digest)],
        [now, session_expires_at, keepFor(session_expires_at, now)],
      )
      return typeof grant === 'string' ? (JSON.parse(grant) as SsoGrant) : undefined
    },

    async getSession(digest, now) {
      const [grant, expiresAt] = await conn.call((c) => c.hmget(keys.session(digest), 'grant', 'expires_at'))
      if (grant == null || expiresAt == null) return undefined
      const expires_at = Number(expiresAt)
      if (!(now < expires_at)) return undefined
      return { ...(JSON.parse(grant) as SsoGrant), expires_at }
    },

    async deleteSession(digest) {
      return (await conn.call((c) => c.del(keys.session(digest)))) === 1
    },
  }
}
