/**
 * The Lua scripts behind RedisStore's sites and billing (redis/sites.ts).
 * Each rule that must hold under concurrency is one script, hence one atomic
 * round trip. Owners are compared in their stored form (JSON-encoded, as
 * every hash field is), so no script decodes JSON.
 *
 * Replies: a missing or foreign record is `false` (nil) or 0; the callers
 * turn them into the contract's answers.
 */
import { lua } from '../conn.js'
import { DROP_SITE_ANALYTICS_LUA } from './analytics.js'

/**
 * `unmet(site, owner, created_at, build)`: true unless the site hash exists,
 * belongs to `owner` and holds the expected created_at and build ('' = not
 * expected). All are compared in stored (JSON) form; one HMGET reads them.
 */
const UNMET_LUA = `
local function unmet(site, owner, created_at, build)
  local v = redis.call('HMGET', site, 'owner', 'created_at', 'build')
  return v[1] ~= owner or (created_at ~= '' and v[2] ~= created_at) or (build ~= '' and v[3] ~= build)
end
`

/** HGETALL of each key, in order. KEYS: the hashes. */
export const GET_HASHES = lua(`
local out = {}
for i, k in ipairs(KEYS) do out[i] = redis.call('HGETALL', k) end
return out
`)

/**
 * KEYS: site, created index, modified index, site-name folds, [external-uid index].
 * ARGV: name, created_at, modified_at, folded name, fields...
 * The fold entry is claimed with HSETNX in the same script, so names differing
 * only in letter case cannot both be created.
 */
export const CREATE_SITE = lua(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('HSETNX', KEYS[4], ARGV[4], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
if KEYS[5] then
  redis.call('ZADD', KEYS[5], ARGV[2], ARGV[1])
  redis.call('HSET', KEYS[1], '#xkey', KEYS[5])
end
return 1
`)

/**
 * KEYS: site. ARGV: owner (stored form), the entry (JSON), the most entries kept.
 * Appends to the site's activity_log and drops the oldest beyond the most;
 * 0 when the site is not the owner's. The one script that decodes JSON: the
 * log is a JSON array in one field, and its entries hold only a number and a
 * word (cjson keeps a 13-digit millisecond time exact).
 */
export const APPEND_SITE_ACTIVITY = lua(`
local site = KEYS[1]
if redis.call('HGET', site, 'owner') ~= ARGV[1] then return 0 end
local stored = redis.call('HGET', site, 'activity_log')
local log = stored and cjson.decode(stored) or {}
log[#log + 1] = cjson.decode(ARGV[2])
local most = tonumber(ARGV[3])
while #log > most do table.remove(log, 1) end
redis.call('HSET', site, 'activity_log', cjson.encode(log))
return 1
`)

/**
 * KEYS: site, modified index. ARGV: owner, name, external-uid action ('' keep,
 * '-' remove, else the new index key), expected created_at, expected build,
 * then field/value pairs ('' deletes).
 * Returns the updated hash, or nil when not the owner's or not as expected.
 */
export const UPDATE_SITE = lua(`${UNMET_LUA}
local site = KEYS[1]
if unmet(site, ARGV[1], ARGV[4], ARGV[5]) then return false end
local name = ARGV[2]
for i = 6, #ARGV, 2 do
  local f, v = ARGV[i], ARGV[i + 1]
  if v == '' then redis.call('HDEL', site, f) else redis.call('HSET', site, f, v) end
  if f == 'modified_at' then
    if v == '' then redis.call('ZREM', KEYS[2], name) else redis.call('ZADD', KEYS[2], v, name) end
  end
end
local x = ARGV[3]
if x ~= '' then
  local old = redis.call('HGET', site, '#xkey')
  if old then redis.call('ZREM', old, name) end
  if x == '-' then
    redis.call('HDEL', site, '#xkey')
  else
    redis.call('ZADD', x, redis.call('HGET', site, 'created_at'), name)
    redis.call('HSET', site, '#xkey', x)
  end
end
return redis.call('HGETALL', site)
`)

/**
 * KEYS: site, modified index, charges, subscriptions. ARGV: owner, name, at,
 * charge ('1'|'0'), charge entry, subscription entry, expected created_at,
 * expected build.
 * Returns -1 (not found or not as expected), 1 (first publish, charged) or 0.
 */
export const PUBLISH_SITE = lua(`${UNMET_LUA}
local site = KEYS[1]
if unmet(site, ARGV[1], ARGV[7], ARGV[8]) then return -1 end
redis.call('HSET', site, 'published_at', ARGV[3], 'modified_at', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
if redis.call('HEXISTS', site, 'first_published_at') == 1 then return 0 end
if ARGV[4] ~= '1' then return 0 end
redis.call('HSET', site, 'first_published_at', ARGV[3])
redis.call('RPUSH', KEYS[3], ARGV[5])
local n = redis.call('RPUSH', KEYS[4], ARGV[6])
redis.call('HSET', site, '#sub', n - 1)
return 1
`)

/**
 * KEYS: site, created index, modified index, subscriptions, site grants.
 * ARGV: prefix, owner (stored form), owner, name, cancelled subscription
 * entry, expected created_at, expected build (the raw owner is unused: the
 * analytics owner is read from the store).
 * Returns 1 when deleted, 0 when not the owner's or not as expected.
 */
export const DELETE_SITE = lua(`${DROP_SITE_ANALYTICS_LUA}${UNMET_LUA}
local site, P, name = KEYS[1], ARGV[1], ARGV[4]
if unmet(site, ARGV[2], ARGV[6], ARGV[7]) then return 0 end
local x = redis.call('HGET', site, '#xkey')
if x then redis.call('ZREM', x, name) end
redis.call('ZREM', KEYS[2], name)
redis.call('ZREM', KEYS[3], name)
local sub = redis.call('HGET', site, '#sub')
if sub then redis.call('LSET', KEYS[4], sub, ARGV[5]) end
for _, account in ipairs(redis.call('SMEMBERS', KEYS[5])) do
  redis.call('SREM', P .. 'gacct:' .. account, name)
  redis.call('HDEL', P .. 'gperm:' .. account, name)
end
redis.call('DEL', KEYS[5], site)
if redis.call('HGET', KEYS[6], ARGV[8]) == name then redis.call('HDEL', KEYS[6], ARGV[8]) end
drop_site_analytics(P, name)
return 1
`)

/** KEYS: owner's external-uid index. ARGV: prefix. The newest site's hash, or an empty array. */
export const FIND_BY_EXTERNAL_UID = lua(`
local top = redis.call('ZREVRANGE', KEYS[1], 0, 0)
if #top == 0 then return {} end
return redis.call('HGETALL', ARGV[1] .. 'site:' .. top[1])
`)

/** KEYS: charges, subscriptions. Both lists. */
export const GET_BILLING = lua(`
return { redis.call('LRANGE', KEYS[1], 0, -1), redis.call('LRANGE', KEYS[2], 0, -1) }
`)
