/**
 * The Lua scripts behind name claims (redis/claims.ts): a claim is its own
 * key, `{n:<folded name>}` or `{na:<folded name>}`, a hash of the name that
 * holds it and when it was claimed (ms, on Redis' clock). The functions here
 * are also the claim steps of the single-Redis forms of create and delete
 * (lua/sites.ts, lua/accounts.ts), so both forms claim and release alike.
 */
import { lua } from '../conn.js'
import { KEY_LUA } from './keys.js'

/** Redis' clock in milliseconds, as a Lua integer string. */
export const NOW_LUA = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`

/**
 * `release(claim, name, at)`: deletes the claim if `name` (and, when `at` is
 * given, the claim made at `at`) still holds it; true when it did.
 */
export const RELEASE_LUA = `
local function release(claim, name, at)
  local v = redis.call('HMGET', claim, 'name', 'at')
  if v[1] ~= name or (at and v[2] ~= at) then return false end
  redis.call('DEL', claim)
  return true
end
`

/**
 * `claim_new(P, kind, claim, record, name, timeout, rest)`, for a single
 * Redis: claims `name` for a new record unless the record exists or the
 * claim stands (its holder's record, `key(P, kind, holder, rest)`, exists,
 * or the claim is younger than `timeout` ms). Answers the claim's `at`, or
 * nil when the name is taken.
 */
export const CLAIM_NEW_LUA = `${NOW_LUA}${KEY_LUA}
local function claim_new(P, kind, claim, record, name, timeout, rest)
  if redis.call('EXISTS', record) == 1 then return nil end
  local v = redis.call('HMGET', claim, 'name', 'at')
  if v[1] and (redis.call('EXISTS', key(P, kind, v[1], rest)) == 1 or now_ms() - tonumber(v[2]) < timeout) then
    return nil
  end
  local at = string.format('%.0f', now_ms())
  redis.call('HSET', claim, 'name', name, 'at', at)
  return at
end
`

/**
 * The cluster's last step of a create, in the new record's slot (the name
 * is claimed already). KEYS: the record. ARGV: the claim's `at`, how long
 * after it the write is still allowed (ms), fields... Returns 1 (created), 0
 * (a record has the name) or -1 (too late: the claim may have been taken
 * over). Create Site and Create Account both end with it.
 */
export const WRITE_CLAIMED_LUA = `${NOW_LUA}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if now_ms() > tonumber(ARGV[1]) + tonumber(ARGV[2]) then return -1 end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
return 1
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
export const RELEASE = lua(`${RELEASE_LUA}
return release(KEYS[1], ARGV[1], ARGV[2] ~= '' and ARGV[2] or nil) and 1 or 0
`)
