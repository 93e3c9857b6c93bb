/**
 * RedisStore's conditional master write, one Lua script so "only if unchanged"
 * and "only if absent" hold across processes sharing the store.
 */
import { lua } from './redis-conn.js'

/**
 * KEYS: master. ARGV: the new record's JSON, the expected password_hash
 * ('' = only if absent). Returns 1 when written, 0 otherwise.
 */
export const PUT_MASTER_IF = lua(`
local current = redis.call('GET', KEYS[1])
if ARGV[2] == '' then
  if current then return 0 end
elseif not current or cjson.decode(current).password_hash ~= ARGV[2] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1])
return 1
`)
