/**
 * The Lua scripts behind RedisStore's sites and billing (redis/sites.ts).
 * Each touches the keys of one slot only (keys.ts): a site's own keys, or an
 * owner's indexes and ledger; sites.ts chains them where a rule spans both.
 * Owners are compared in their stored form (JSON-encoded, as every hash field
 * is), so no script decodes JSON but the activity log's.
 *
 * Replies: a missing or foreign record is `false` (nil) or 0; the callers
 * turn them into the contract's answers.
 */
import { lua } from '../conn.js'
import { DROP_SITE_ANALYTICS_LUA } from './analytics.js'
import { NOW_LUA } from './claims.js'

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

/**
 * KEYS: site. ARGV: the claim's `at`, how long after it the write is still
 * allowed (ms), fields... Returns 1 (created), 0 (a site has the name) or -1
 * (too late: the claim may have been taken over).
 */
export const CREATE_SITE = lua(`${NOW_LUA}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if now_ms() > tonumber(ARGV[1]) + tonumber(ARGV[2]) then return -1 end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
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
 * KEYS: site. ARGV: owner, new external-uid index key ('' keep, '-' remove),
 * expected created_at, expected build, then field/value pairs ('' deletes).
 * Returns { hash, old external-uid index key or false }, or nil when not the
 * owner's or not as expected. The owner's indexes are sites.ts's next step.
 */
export const UPDATE_SITE = lua(`${UNMET_LUA}
local site = KEYS[1]
if unmet(site, ARGV[1], ARGV[3], ARGV[4]) then return false end
for i = 5, #ARGV, 2 do
  local f, v = ARGV[i], ARGV[i + 1]
  if v == '' then redis.call('HDEL', site, f) else redis.call('HSET', site, f, v) end
end
local old = redis.call('HGET', site, '#xkey')
local x = ARGV[2]
if x == '-' then redis.call('HDEL', site, '#xkey') elseif x ~= '' then redis.call('HSET', site, '#xkey', x) end
return { redis.call('HGETALL', site), old }
`)

/**
 * KEYS: site. ARGV: owner, at, charge ('1'|'0'), expected created_at,
 * expected build. Returns -1 (not found or not as expected), 1 (first
 * publish, to be charged) or 0. Deciding the first publish here, in one
 * step, is what makes a charge happen once however many publish at once.
 * A publish without charge (a test publish) is not a first publish: it
 * leaves first_published_at unset.
 */
export const PUBLISH_SITE = lua(`${UNMET_LUA}
local site = KEYS[1]
if unmet(site, ARGV[1], ARGV[4], ARGV[5]) then return -1 end
redis.call('HSET', site, 'published_at', ARGV[2], 'modified_at', ARGV[2])
if redis.call('HEXISTS', site, 'first_published_at') == 1 then return 0 end
if ARGV[3] ~= '1' then return 0 end
redis.call('HSET', site, 'first_published_at', ARGV[2])
return 1
`)

/**
 * KEYS: owner's modified index, charges, subscriptions. ARGV: name, at,
 * charge ('1'|'0'), charge entry, subscription entry. Returns the new
 * subscription's index, or -1 when not charged.
 */
export const RECORD_PUBLISH = lua(`
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
if ARGV[3] ~= '1' then return -1 end
redis.call('RPUSH', KEYS[2], ARGV[4])
return redis.call('RPUSH', KEYS[3], ARGV[5]) - 1
`)

/** KEYS: site. ARGV: owner, subscription index. Notes the index if the site still exists; 1 or 0. */
export const NOTE_SUBSCRIPTION = lua(`
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], '#sub', ARGV[2])
return 1
`)

/**
 * KEYS: site, site grants, then the site's analytics keys' start (for the
 * cluster's routing only). ARGV: owner (stored form), expected created_at,
 * expected build. Deletes the site, its grants and its analytics. Returns nil
 * when not the owner's or not as expected, else { external-uid index key,
 * subscription index, claim at, granted accounts, analytics days } ('' where
 * none): what sites.ts's next steps clean up in other slots.
 */
export const DELETE_SITE = lua(`${DROP_SITE_ANALYTICS_LUA}${UNMET_LUA}
local site = KEYS[1]
if unmet(site, ARGV[1], ARGV[2], ARGV[3]) then return false end
local v = redis.call('HMGET', site, '#xkey', '#sub', '#claim')
local accounts = redis.call('SMEMBERS', KEYS[2])
redis.call('DEL', KEYS[2], site)
local days = drop_site_analytics(KEYS[3])
return { v[1] or '', v[2] or '', v[3] or '', accounts, days }
`)

/** KEYS: charges, subscriptions. Both lists. */
export const GET_BILLING = lua(`
return { redis.call('LRANGE', KEYS[1], 0, -1), redis.call('LRANGE', KEYS[2], 0, -1) }
`)
