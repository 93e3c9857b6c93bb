/**
 * The Lua scripts behind RedisStore's sites and billing (redis/sites.ts),
 * each rule in its two forms side by side:
 *
 * - on a Redis Cluster, a script touches the keys of one slot only
 *   (keys.ts): a site's own keys, or an owner's indexes and ledger, and
 *   sites.ts chains them where a rule spans both;
 * - on a single Redis (the `_1` scripts) every key is on the one server, so
 *   each such rule stays one script, one atomic round trip. It does what the
 *   chain does, in the same order, and leaves the same keys, through the
 *   same Lua functions where the steps are the same.
 *
 * Owners are compared in their stored form (JSON-encoded, as every hash
 * field is), so no script decodes JSON but the activity log's. Replies: a
 * missing or foreign record is `false` (nil) or 0; the callers turn them
 * into the contract's answers.
 */
import { lua } from '../conn.js'
import { DROP_SITE_ANALYTICS_LUA } from './analytics.js'
import { CLAIM_NEW_LUA, RELEASE_LUA, WRITE_CLAIMED_LUA } from './claims.js'
import { KEY_LUA } from './keys.js'

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

// ------------------------------------------------------------------ create

/** Create Site on a cluster: the last step, writing the site hash (see WRITE_CLAIMED_LUA). */
export const CREATE_SITE = lua(WRITE_CLAIMED_LUA)

/**
 * Create Site on a single Redis. KEYS: claim, site, created index, modified
 * index, [external-uid index]. ARGV: prefix, name, created_at, modified_at,
 * claim timeout, fields... Returns 1 when created, 0 when the name is taken.
 */
export const CREATE_SITE_1 = lua(`${CLAIM_NEW_LUA}
local name = ARGV[2]
local at = claim_new(ARGV[1], 's', KEYS[1], KEYS[2], name, tonumber(ARGV[5]), ':site')
if not at then return 0 end
redis.call('ZADD', KEYS[3], ARGV[3], name)
redis.call('ZADD', KEYS[4], ARGV[4], name)
if KEYS[5] then redis.call('ZADD', KEYS[5], ARGV[3], name) end
redis.call('HSET', KEYS[2], '#claim', at, unpack(ARGV, 6))
return 1
`)

// ------------------------------------------------------------------ update

/**
 * `apply_patch(site, from)`: writes the field/value pairs of ARGV from
 * `from` on ('' deletes the field); answers the patch's modified_at, if any.
 * `set_xkey(site, x)`: notes the site's external-uid index key ('' keep,
 * '-' remove, else the new key); answers the one noted before.
 */
const PATCH_LUA = `
local function apply_patch(site, from)
  local modified
  for i = from, #ARGV, 2 do
    local f, v = ARGV[i], ARGV[i + 1]
    if v == '' then redis.call('HDEL', site, f) else redis.call('HSET', site, f, v) end
    if f == 'modified_at' then modified = v end
  end
  return modified
end
local function set_xkey(site, x)
  local old = redis.call('HGET', site, '#xkey')
  if x == '-' then redis.call('HDEL', site, '#xkey') elseif x ~= '' then redis.call('HSET', site, '#xkey', x) end
  return old
end
`

/**
 * Update Site on a cluster. KEYS: site. ARGV: owner, new external-uid index
 * key ('' keep, '-' remove), expected created_at, expected build, then
 * field/value pairs ('' deletes). Returns { hash, old external-uid index key
 * or false }, or nil when not the owner's or not as expected. The owner's
 * indexes are sites.ts's next step.
 */
export const UPDATE_SITE = lua(`${UNMET_LUA}${PATCH_LUA}
local site = KEYS[1]
if unmet(site, ARGV[1], ARGV[3], ARGV[4]) then return false end
apply_patch(site, 5)
local old = set_xkey(site, ARGV[2])
return { redis.call('HGETALL', site), old }
`)

/**
 * Update Site on a single Redis. KEYS: site, modified index. ARGV: owner,
 * name, external-uid action (as UPDATE_SITE's), expected created_at,
 * expected build, then field/value pairs. Returns the updated hash, or nil.
 */
export const UPDATE_SITE_1 = lua(`${UNMET_LUA}${PATCH_LUA}
local site, name = KEYS[1], ARGV[2]
if unmet(site, ARGV[1], ARGV[4], ARGV[5]) then return false end
local modified = apply_patch(site, 6)
if modified == '' then redis.call('ZREM', KEYS[2], name) elseif modified then redis.call('ZADD', KEYS[2], modified, name) end
local x = ARGV[3]
local old = set_xkey(site, x)
if x ~= '' then
  if old then redis.call('ZREM', old, name) end
  if x ~= '-' then redis.call('ZADD', x, redis.call('HGET', site, 'created_at'), name) end
end
return redis.call('HGETALL', site)
`)

/**
 * Append to the activity log, in both forms (the log lives in the site
 * hash: one slot). KEYS: site. ARGV: owner (stored form), the entry (JSON),
 * the most entries kept. Appends to the site's activity_log and drops the
 * oldest beyond the most; 0 when the site is not the owner's. The one script
 * that decodes JSON: the log is a JSON array in one field, and its entries
 * hold only a number and a word (cjson keeps a 13-digit millisecond time exact).
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

// ----------------------------------------------------------------- publish

/**
 * `publish(site, owner, at, charge, created_at, build)`: -1 when the site
 * is not the owner's or not as expected; else publishes it at `at` and
 * answers 1 when this is its first publish, to be charged, or 0. Deciding
 * the first publish here, in one step, is what makes a charge happen once
 * however many publish at once. A publish without charge (a test publish)
 * is not a first publish: it leaves first_published_at unset.
 */
const PUBLISH_LUA = `${UNMET_LUA}
local function publish(site, owner, at, charge, created_at, build)
  if unmet(site, owner, created_at, build) then return -1 end
  redis.call('HSET', site, 'published_at', at, 'modified_at', at)
  if redis.call('HEXISTS', site, 'first_published_at') == 1 then return 0 end
  if charge ~= '1' then return 0 end
  redis.call('HSET', site, 'first_published_at', at)
  return 1
end
`

/**
 * `record_publish(modified, charges, subs, name, at, charged, charge_entry,
 * sub_entry)`: a publish on the owner's side: the modified index and, when
 * charged ('1'), the ledger; answers the new subscription's index, or -1.
 */
const RECORD_PUBLISH_LUA = `
local function record_publish(modified, charges, subs, name, at, charged, charge_entry, sub_entry)
  redis.call('ZADD', modified, at, name)
  if charged ~= '1' then return -1 end
  redis.call('RPUSH', charges, charge_entry)
  return redis.call('RPUSH', subs, sub_entry) - 1
end
`

/**
 * Publish Site on a cluster, first step. KEYS: site. ARGV: owner, at,
 * charge ('1'|'0'), expected created_at, expected build. Returns
 * `publish`'s answer.
 */
export const PUBLISH_SITE = lua(`${PUBLISH_LUA}
return publish(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5])
`)

/**
 * Publish Site on a cluster, second step. KEYS: owner's modified index,
 * charges, subscriptions. ARGV: name, at, charged ('1'|'0'), charge entry,
 * subscription entry. Returns `record_publish`'s answer.
 */
export const RECORD_PUBLISH = lua(`${RECORD_PUBLISH_LUA}
return record_publish(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5])
`)

/**
 * Publish Site on a cluster, last step. KEYS: site. ARGV: owner,
 * subscription index. Notes the index if the site still exists; 1 or 0.
 */
export const NOTE_SUBSCRIPTION = lua(`
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], '#sub', ARGV[2])
return 1
`)

/**
 * Publish Site on a single Redis. KEYS: site, modified index, charges,
 * subscriptions. ARGV: owner, name, at, charge ('1'|'0'), charge entry,
 * subscription entry, expected created_at, expected build. Returns -1 (not
 * found or not as expected), 1 (charged) or 0.
 */
export const PUBLISH_SITE_1 = lua(`${PUBLISH_LUA}${RECORD_PUBLISH_LUA}
local site, at = KEYS[1], ARGV[3]
local first = publish(site, ARGV[1], at, ARGV[4], ARGV[7], ARGV[8])
if first == -1 then return -1 end
local sub = record_publish(KEYS[2], KEYS[3], KEYS[4], ARGV[2], at, first == 1 and '1' or '0', ARGV[5], ARGV[6])
if sub >= 0 then redis.call('HSET', site, '#sub', sub) end
return first
`)

// ------------------------------------------------------------------ delete

/**
 * `delete_site(site, grants, B, owner, created_at, build)`: nil when the
 * site is not the owner's or not as expected; else deletes the site hash,
 * its grants and its analytics (key base `B`), and answers the hash's
 * `#xkey`, `#sub` and `#claim` (false where none), the granted accounts and
 * the analytics days: what is left to clean up under other tags.
 */
const DELETE_SITE_LUA = `${DROP_SITE_ANALYTICS_LUA}${UNMET_LUA}
local function delete_site(site, grants, B, owner, created_at, build)
  if unmet(site, owner, created_at, build) then return nil end
  local v = redis.call('HMGET', site, '#xkey', '#sub', '#claim')
  local accounts = redis.call('SMEMBERS', grants)
  redis.call('DEL', grants, site)
  return v, accounts, drop_site_analytics(B)
end
`

/**
 * Delete Site on a cluster, first step. KEYS: site, site grants, then the
 * site's analytics keys' start (for the cluster's routing only). ARGV: owner
 * (stored form), expected created_at, expected build. Returns nil, or {
 * external-uid index key, subscription index, claim at, granted accounts,
 * analytics days } ('' where none): what sites.ts's next steps clean up in
 * other slots.
 */
export const DELETE_SITE = lua(`${DELETE_SITE_LUA}
local v, accounts, days = delete_site(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2], ARGV[3])
if not v then return false end
return { v[1] or '', v[2] or '', v[3] or '', accounts, days }
`)

/**
 * Delete Site on a single Redis. KEYS: site, site grants, site key base,
 * created, modified, subscriptions, claim. ARGV: owner (stored form),
 * expected created_at, expected build, prefix, name, cancelled subscription
 * entry, owner key base. Returns 1 or 0.
 */
export const DELETE_SITE_1 = lua(`${DELETE_SITE_LUA}${KEY_LUA}${RELEASE_LUA}
local P, name = ARGV[4], ARGV[5]
local v, accounts, days = delete_site(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2], ARGV[3])
if not v then return 0 end
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

// ------------------------------------------------------------------- reads

/** KEYS: charges, subscriptions. Both lists (both forms: one slot). */
export const GET_BILLING = lua(`
return { redis.call('LRANGE', KEYS[1], 0, -1), redis.call('LRANGE', KEYS[2], 0, -1) }
`)

/** getSites on a single Redis (a cluster reads each hash in its slot). KEYS: the sites' hashes. HGETALL of each, in order. */
export const GET_HASHES_1 = lua(`
local out = {}
for i, k in ipairs(KEYS) do out[i] = redis.call('HGETALL', k) end
return out
`)

/**
 * listSites on a single Redis (a cluster checks each entry's site from the
 * client). KEYS: an owner's listing index. ARGV: from, to, prefix, owner
 * (stored form). The names in the range whose site exists and is the owner's.
 */
export const LIST_SITES_1 = lua(`${KEY_LUA}
local out = {}
for _, name in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[2])) do
  if redis.call('HGET', key(ARGV[3], 's', name, ':site'), 'owner') == ARGV[4] then out[#out + 1] = name end
end
return out
`)

/**
 * findSiteByExternalUid on a single Redis (a cluster checks each entry's
 * site from the client). KEYS: the owner's external-uid index. ARGV: prefix,
 * owner, external_uid (both stored form). The newest such site's hash, or an
 * empty array.
 */
export const FIND_BY_EXTERNAL_UID_1 = lua(`${KEY_LUA}
for _, name in ipairs(redis.call('ZREVRANGE', KEYS[1], 0, -1)) do
  local site = key(ARGV[1], 's', name, ':site')
  local v = redis.call('HMGET', site, 'owner', 'external_uid')
  if v[1] == ARGV[2] and v[2] == ARGV[3] then return redis.call('HGETALL', site) end
end
return {}
`)
