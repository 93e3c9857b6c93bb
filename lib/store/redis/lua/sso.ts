/**
 * The Lua script behind RedisStore's single sign-on (redis/sso.ts):
 * redemption takes (reads and deletes) the token in one atomic step.
 */
import { lua } from '../conn.js'

/**
 * KEYS: token. Reads and deletes the token in one step, so two processes
 * redeeming it at once get it once between them. Returns { grant JSON,
 * expires_at }, or nil when there is no such token. sso.ts writes the session
 * next (its key is in another slot): a crash in between loses the token, never
 * doubles the session.
 */
export const TAKE_TOKEN = lua(`
local v = redis.call('HMGET', KEYS[1], 'grant', 'expires_at')
if not v[1] then return false end
redis.call('DEL', KEYS[1])
return v
`)
