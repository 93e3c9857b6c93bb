/**
 * The Lua script behind RedisStore's single sign-on (redis/sso.ts):
 * redemption reads the token, deletes it and, if it was alive on the engine
 * clock, writes the session, in one atomic round trip. Two processes
 * redeeming the same token at once therefore get one session between them.
 */
import { lua } from '../conn.js'

/**
 * KEYS: token, session. ARGV: now, session expires_at, session TTL (ms).
 * Returns the grant JSON, or nil when the token is missing or dead.
 */
export const REDEEM = lua(`
local v = redis.call('HMGET', KEYS[1], 'grant', 'expires_at')
if not v[1] then return false end
redis.call('DEL', KEYS[1])
if tonumber(ARGV[1]) >= tonumber(v[2]) then return false end
redis.call('HSET', KEYS[2], 'grant', v[1], 'expires_at', ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return v[1]
`)
