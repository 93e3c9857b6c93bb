/**
 * The scripts RedisStore runs on a single Redis (not a cluster) for the
 * rules that span hash tags: there every key is on the one server, so each
 * such rule stays one script, one atomic round trip, as before the tagged
 * layout. Each does what the chain of single-slot steps in sites.ts and
 * accounts.ts does on a cluster, in the same order, and leaves the same keys.
 * Keys of other records are built here from the prefix (`P`) with the tag
 * encoding of keys.ts.
 */
import { lua } from '../conn.js'
import { DROP_SITE_ANALYTICS_LUA } from './analytics.js'
import { NOW_LUA } from './claims.js'

/** `key(P, kind, name, rest)`: keys.ts's `prefix{kind:name}rest`, `%`, `{`, `}` percent-encoded. */
const KEY_LUA = `
local function key(P, kind, name, rest)
  local n = string.gsub(name, '[%%{}]', function(c) return string.format('%%%02X', string.byte(c)) end)
  return P .. '{' .. kind .. ':' .. n .. '}' .. rest
end
`

/** `held(P, kind, claim, timeout, record_rest)`: true when the claim stands (its record exists, or it is young). */
const HELD_LUA = `${NOW_LUA}${KEY_LUA}
local function held(P, kind, claim, timeout, rest)
  local v = redis.call('HMGET', claim, 'name', 'at')
  if not v[1] then return false end
  if redis.call('EXISTS', key(P, kind, v[1], rest)) == 1 then return true end
  return now_ms() - tonumber(v[2]) < timeout
end
`

const UNMET_LUA = `
local function unmet(site, owner, created_at, build)
  local v = redis.call('HMGET', site, 'owner', 'created_at', 'build')
  return v[1] ~= owner or (created_at ~= '' and v[2] ~= created_at) or (build ~= '' and v[3] ~= build)
end
`

/**
 * KEYS: claim, site, created index, modified index, [external-uid index].
 * ARGV: prefix, name, created_at, modified_at, claim timeout, fields...
 * Returns 1 when created, 0 when the name is taken.
 */
export const CREATE_SITE_1 = lua(`${HELD_LUA}
local P, name = ARGV[1], ARGV[2]
if held(P, 's', KEYS[1], tonumber(ARGV[5]), ':site') or redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local at = string.format('%.0f', now_ms())
redis.call('HSET', KEYS[1], 'name', name, 'at', at)
redis.call('ZADD', KEYS[3], ARGV[3], name)
redis.call('ZADD', KEYS[4], ARGV[4], name)
if KEYS[5] then redis.call('ZADD', KEYS[5], ARGV[3], name) end
redis.call('HSET', KEYS[2], '#claim', at, unpack(ARGV, 6))
return 1
`)

/**
 * KEYS: claim, account. ARGV: prefix, name, claim timeout, fields...
 * Returns 1 when created, 0 when the name is taken.
 */
export const CREATE_ACCOUNT_1 = lua(`${HELD_LUA}
local P, name = ARGV[1], ARGV[2]
if held(P, 'a', KEYS[1], tonumber(ARGV[3]), ':acct') or redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local at = string.format('%.0f', now_ms())
redis.call('HSET', KEYS[1], 'name', name, 'at', at)
redis.call('HSET', KEYS[2], '#claim', at, unpack(ARGV, 4))
return 1
`)

/** Releases the claim when `name` (and the claim made at `at`, when known) holds it. */
const RELEASE_LUA = `
local function release(claim, name, at)
  local v = redis.call('HMGET', claim, 'name', 'at')
  if v[1] == name and (not at or v[2] == at) then redis.call('DEL', claim) end
end
`

/**
 * KEYS: site, site grants, site key base, created, modified, subscriptions, claim.
 * ARGV: owner (stored form), expected created_at, expected build, prefix,
 * name, cancelled subscription entry, owner key base. Returns 1 or 0.
 */
export const DELETE_SITE_1 = lua(`${DROP_SITE_ANALYTICS_LUA}${UNMET_LUA}${KEY_LUA}${RELEASE_LUA}
local site, P, name = KEYS[1], ARGV[4], ARGV[5]
if unmet(site, ARGV[1], ARGV[2], ARGV[3]) then return 0 end
local v = redis.call('HMGET', site, '#xkey', '#sub', '#claim')
local accounts = redis.call('SMEMBERS', KEYS[2])
redis.call('DEL', KEYS[2], site)
local days = drop_site_analytics(KEYS[3])
if v[1] then redis.call('ZREM', v[1], name) end
redis.call('ZREM', KEYS[4], name)
redis.call('ZREM', KEYS[5], name)
if v[2] then redis.call('LSET', KEYS[6], v[2], ARGV[6]) end
for _, d in ipairs(days) do redis.call('ZREM', ARGV[7] .. 'rank:' .. d, name) end
for _, a in ipairs(accounts) do
  redis.call('SREM', key(P, 'a', a, ':grants'), name)
  redis.call('HDEL', key(P, 'a', a, ':gperm'), name)
end
release(KEYS[7], name, v[3])
return 1
`)

/** KEYS: account, account grants, claim, account grant permissions. ARGV: owner, prefix, name. Returns 1 or 0. */
export const DELETE_ACCOUNT_1 = lua(`${KEY_LUA}${RELEASE_LUA}
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
local at = redis.call('HGET', KEYS[1], '#claim')
for _, s in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  redis.call('SREM', key(ARGV[2], 's', s, ':grants'), ARGV[3])
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[4])
release(KEYS[3], ARGV[3], at)
return 1
`)

/**
 * KEYS: site, modified index. ARGV: owner, name, external-uid action ('' keep,
 * '-' remove, else the new index key), expected created_at, expected build,
 * then field/value pairs ('' deletes). Returns the updated hash, or nil.
 */
export const UPDATE_SITE_1 = lua(`${UNMET_LUA}
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
 * expected build. Returns -1 (not found or not as expected), 1 (charged) or 0.
 * A publish without charge (a test publish) is not a first publish: it
 * leaves first_published_at unset.
 */
export const PUBLISH_SITE_1 = lua(`${UNMET_LUA}
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

/** KEYS: the sites' hashes. HGETALL of each, in order. */
export const GET_HASHES_1 = lua(`
local out = {}
for i, k in ipairs(KEYS) do out[i] = redis.call('HGETALL', k) end
return out
`)

/**
 * KEYS: an owner's listing index. ARGV: from, to, prefix, owner (stored
 * form). The names in the range whose site exists and is the owner's.
 */
export const LIST_SITES_1 = lua(`${KEY_LUA}
local out = {}
for _, name in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[2])) do
  if redis.call('HGET', key(ARGV[3], 's', name, ':site'), 'owner') == ARGV[4] then out[#out + 1] = name end
end
return out
`)

/**
 * KEYS: the owner's external-uid index. ARGV: prefix, owner, external_uid
 * (both stored form). The newest such site's hash, or an empty array.
 */
export const FIND_BY_EXTERNAL_UID_1 = lua(`${KEY_LUA}
for _, name in ipairs(redis.call('ZREVRANGE', KEYS[1], 0, -1)) do
  local site = key(ARGV[1], 's', name, ':site')
  local v = redis.call('HMGET', site, 'owner', 'external_uid')
  if v[1] == ARGV[2] and v[2] == ARGV[3] then return redis.call('HGETALL', site) end
end
return {}
`)

/**
 * KEYS: account, site, account grants, site grants, account grant
 * permissions. ARGV: owner, account name, site name, 'grant' | 'revoke', the
 * permissions as JSON ('' for every permission). Returns 'ok', 'no-account'
 * or 'no-site'.
 */
export const GRANT_1 = lua(`
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 'no-account' end
if redis.call('HGET', KEYS[2], 'owner') ~= ARGV[1] then return 'no-site' end
if ARGV[4] == 'grant' then
  redis.call('SADD', KEYS[3], ARGV[3])
  redis.call('SADD', KEYS[4], ARGV[2])
  if ARGV[5] == '' then redis.call('HDEL', KEYS[5], ARGV[3]) else redis.call('HSET', KEYS[5], ARGV[3], ARGV[5]) end
else
  redis.call('SREM', KEYS[3], ARGV[3])
  redis.call('SREM', KEYS[4], ARGV[2])
  redis.call('HDEL', KEYS[5], ARGV[3])
end
return 'ok'
`)

/**
 * KEYS: account, site, account grants, account grant permissions, site
 * grants. ARGV: owner, account name, site name. Returns 'no-account',
 * 'no-site', 'no-grant' (unless both sides have it), or {'ok', permissions
 * JSON or false}.
 */
export const GET_GRANT_1 = lua(`
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 'no-account' end
if redis.call('HGET', KEYS[2], 'owner') ~= ARGV[1] then return 'no-site' end
if redis.call('SISMEMBER', KEYS[3], ARGV[3]) == 0 or redis.call('SISMEMBER', KEYS[5], ARGV[2]) == 0 then
  return 'no-grant'
end
return { 'ok', redis.call('HGET', KEYS[4], ARGV[3]) }
`)

/**
 * KEYS: account, account grants. ARGV: owner, prefix, account name. The
 * granted sites whose side has the grant too, or nil when not the owner's.
 */
export const LIST_GRANTS_1 = lua(`${KEY_LUA}
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return false end
local out = {}
for _, s in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  if redis.call('SISMEMBER', key(ARGV[2], 's', s, ':grants'), ARGV[3]) == 1 then out[#out + 1] = s end
end
return out
`)
