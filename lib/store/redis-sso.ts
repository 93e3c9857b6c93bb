/**
 * RedisStore's single sign-on tokens and dashboard sessions.
 *
 * | key               | type | holds                                          |
 * |-------------------|------|------------------------------------------------|
 * | ssotok:<digest>   | hash | `grant` (SsoGrant JSON), `expires_at` (engine ms) |
 * | sess:<digest>     | hash | the same, for a session                        |
 *
 * Redemption is one Lua script (one round trip): read the token, delete it,
 * and, if it was alive on the engine clock, write the session. Two processes
 * redeeming the same token at once therefore get one session between them.
 * Keys also carry a Redis TTL of their remaining life plus a margin, only so
 * that dead records do not pile up; the engine clock alone decides expiry.
 */
import type { SsoGrant, SsoRecord } from './contract.js'
import { lua, type RedisConn } from './redis-conn.js'

/** Kept past a record's remaining life, so an engine clock a little behind Redis' never loses one early. */
const TTL_MARGIN_MS = 60_000

/**
 * KEYS: token, session. ARGV: now, session expires_at, session TTL (ms).
 * Returns the grant JSON, or nil when the token is missing or dead.
 */
const REDEEM = lua(`
local v = redis.call('HMGET', KEYS[1], 'grant', 'expires_at')
if not v[1] then return false end
redis.call('DEL', KEYS[1])
if tonumber(ARGV[1]) >= tonumber(v[2]) then return false end
redis.call('HSET', KEYS[2], 'grant', v[1], 'expires_at', ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return v[1]
`)

function ttl(expires_at: number, now: number): number {
  return Math.max(1, Math.ceil(expires_at - now)) + TTL_MARGIN_MS
}

/** Only the grant's own fields, in a fixed order. */
function grantJson(record: SsoGrant): string {
  const { account_name, owner, incarnation, target, site_name } = record
  return JSON.stringify(
    site_name === undefined
      ? { account_name, owner, incarnation, target }
      : { account_name, owner, incarnation, target, site_name },
  )
}

/** The tokens and sessions of one RedisStore. */
export class RedisSso {
  constructor(
    private readonly conn: RedisConn,
    private readonly prefix: string,
  ) {}

  private token(digest: string): string {
    return `${this.prefix}ssotok:${digest}`
  }

  private session(digest: string): string {
    return `${this.prefix}sess:${digest}`
  }

  async issue(digest: string, token: SsoRecord, now: number): Promise<void> {
    const key = this.token(digest)
    const expiresAt = String(token.expires_at)
    await this.conn.call((c) =>
      c
        .multi()
        .hset(key, 'grant', grantJson(token), 'expires_at', expiresAt)
        .pexpire(key, ttl(token.expires_at, now))
        .exec(),
    )
  }

  async redeem(
    digest: string,
    now: number,
    session_digest: string,
    session_expires_at: number,
  ): Promise<SsoGrant | undefined> {
    const grant = await this.conn.run(
      REDEEM,
      [this.token(digest), this.session(session_digest)],
      [now, session_expires_at, ttl(session_expires_at, now)],
    )
    return typeof grant === 'string' ? (JSON.parse(grant) as SsoGrant) : undefined
  }

  async get(digest: string, now: number): Promise<SsoRecord | undefined> {
    const [grant, expiresAt] = await this.conn.call((c) => c.hmget(this.session(digest), 'grant', 'expires_at'))
    if (grant == null || expiresAt == null) return undefined
    const expires_at = Number(expiresAt)
    if (!(now < expires_at)) return undefined
    return { ...(JSON.parse(grant) as SsoGrant), expires_at }
  }

  async end(digest: string): Promise<boolean> {
    return (await this.conn.call((c) => c.del(this.session(digest)))) === 1
  }
}
