/**
 * The Lua scripts behind name claims (redis/claims.ts): a claim is its own
 * key, `{n:<folded name>}` or `{na:<folded name>}`, a hash of the name that
 * holds it and when it was claimed (ms, on Redis' clock).
 */
import { lua } from '../conn.js'

/** Redis' clock in milliseconds, as a Lua integer string. */
export const NOW_LUA = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`

/**
 * KEYS: claim. ARGV: name, expected `at` ('' = only when free).
 * Claims the name when free, or when its `at` is the expected one (a takeover
 * of a claim the caller found stale). Returns { '', at } when claimed, else
 * { holder, at, now } of the claim in place.
 */
export const CLAIM = lua(`${NOW_LUA}
local now = string.format('%.0f', now_ms())
local v = redis.call('HMGET', KEYS[1], 'name', 'at')
if v[1] and v[2] ~= ARGV[2] then return { v[1], v[2], now } end
redis.call('HSET', KEYS[1], 'name', ARGV[1], 'at', now)
return { '', now }
`)

/**
 * KEYS: claim. ARGV: name, `at` ('' = any). Deletes the claim if that name
 * (and that claim, when `at` is given) still holds it. Returns 1 or 0.
 */
export const RELEASE = lua(`
local v = redis.call('HMGET', KEYS[1], 'name', 'at')
if v[1] ~= ARGV[1] or (ARGV[2] ~= '' and v[2] ~= ARGV[2]) then return 0 end
redis.call('DEL', KEYS[1])
return 1
`)
