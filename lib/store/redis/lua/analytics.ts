/**
 * The Lua scripts behind RedisStore's analytics (redis/analytics.ts). Each
 * call is one script: one round trip, and a visit is recorded atomically,
 * together with the read of the site it is for. The analytics keys (see the
 * table in redis/keys.ts) are built here, in Lua only, so there is one
 * definition; redis/state.ts reads them for an export.
 *
 * Owners appear in analytics keys (`odays:`, `rank:`) and in `aowner` in
 * their stored form, JSON-encoded as in the site hash: recording reads the
 * owner from there, and no script decodes JSON.
 */
import { lua } from '../conn.js'

/** Lua helpers shared by the analytics scripts; `P` is the key prefix. */
const HELPERS = `
local function dvu_key(P, d, dim, site, jk)
  return P .. 'dvu:' .. d .. ':' .. dim .. ':' .. #site .. ':' .. site .. ':' .. jk
end
-- PFCOUNT of many keys is the size of their union; merge in chunks so that
-- unpack never meets Lua's stack limit on long periods.
local function pfcount(P, keys)
  if #keys == 0 then return 0 end
  if #keys <= 500 then return redis.call('PFCOUNT', unpack(keys)) end
  local tmp = P .. 'tmp:pf'
  redis.call('DEL', tmp)
  for i = 1, #keys, 500 do
    redis.call('PFMERGE', tmp, unpack(keys, i, math.min(i + 499, #keys)))
  end
  local n = redis.call('PFCOUNT', tmp)
  redis.call('DEL', tmp)
  return n
end
`

/**
 * Lua functions: `drop_site_analytics` drops every analytics key of a site
 * and its ranking entries (DELETE_SITE in sites.ts, beside this file, embeds
 * it); `claim` records which owner (stored form) a site's analytics belong
 * to, and drops them first when another owner starts recording under that
 * name, so a site never inherits analytics. Delete Site drops them already;
 * this also covers analytics written before recording checked the site.
 */
export const DROP_SITE_ANALYTICS_LUA = `
local function drop_site_analytics(P, site)
  local owner = redis.call('HGET', P .. 'aowner', site)
  redis.call('HDEL', P .. 'aowner', site)
  if not owner then return end
  local index = P .. 'days:' .. site
  for _, d in ipairs(redis.call('ZRANGE', index, 0, -1)) do
    redis.call('DEL', P .. 'day:' .. d .. ':' .. site, P .. 'dayu:' .. d .. ':' .. site)
    for _, dim in ipairs({'sys', 'geo'}) do
      local hk = P .. 'dv:' .. d .. ':' .. dim .. ':' .. site
      for _, f in ipairs(redis.call('HKEYS', hk)) do
        if string.sub(f, 1, 7) == 'visits:' then
          redis.call('DEL', P .. 'dvu:' .. d .. ':' .. dim .. ':' .. #site .. ':' .. site .. ':' .. string.sub(f, 8))
        end
      end
      redis.call('DEL', hk)
    end
    redis.call('ZREM', P .. 'rank:' .. d .. ':' .. owner, site)
  end
  redis.call('DEL', index)
end
local function claim(P, site, owner)
  local known = redis.call('HGET', P .. 'aowner', site)
  if known == owner then return end
  if known then drop_site_analytics(P, site) end
  redis.call('HSET', P .. 'aowner', site, owner)
end
`

/**
 * Reads the owner and build of the site (KEYS[1], its hash); nil when there is
 * no such site. Recording scripts start with it, so they record nothing for a
 * missing site and answer the owner and build in the same atomic step.
 */
const SITE_OF = `
local found = redis.call('HMGET', KEYS[1], 'owner', 'build')
if not found[1] then return false end
local owner = found[1]
`

// KEYS: site hash. ARGV: prefix, site, day, visitor, page_views, system key, geo key.
// Returns nil (nothing recorded) or { owner, build }, both in stored (JSON) form.
export const RECORD_VISIT = lua(`${HELPERS}${DROP_SITE_ANALYTICS_LUA}${SITE_OF}
local P, site, d, visitor, pv = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
claim(P, site, owner)
local dk = P .. 'day:' .. d .. ':' .. site
redis.call('HINCRBY', dk, 'visits', 1)
redis.call('HINCRBY', dk, 'page_views', pv)
redis.call('PFADD', P .. 'dayu:' .. d .. ':' .. site, visitor)
local dims = { {'sys', ARGV[6]}, {'geo', ARGV[7]} }
for _, e in ipairs(dims) do
  local hk = P .. 'dv:' .. d .. ':' .. e[1] .. ':' .. site
  redis.call('HINCRBY', hk, 'visits:' .. e[2], 1)
  redis.call('HINCRBY', hk, 'page_views:' .. e[2], pv)
  redis.call('PFADD', dvu_key(P, d, e[1], site, e[2]), visitor)
end
redis.call('ZADD', P .. 'days:' .. site, 0, d)
redis.call('ZADD', P .. 'odays:' .. owner, 0, d)
redis.call('ZINCRBY', P .. 'rank:' .. d .. ':' .. owner, 1, site)
return found
`)

// KEYS: site hash. ARGV: prefix, site, day, kind, system key, geo key. Returns as RECORD_VISIT.
export const RECORD_ACTIVITY = lua(`${DROP_SITE_ANALYTICS_LUA}${SITE_OF}
local P, site, d, kind = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
claim(P, site, owner)
redis.call('HINCRBY', P .. 'day:' .. d .. ':' .. site, kind, 1)
redis.call('HINCRBY', P .. 'dv:' .. d .. ':sys:' .. site, kind .. ':' .. ARGV[5], 1)
redis.call('HINCRBY', P .. 'dv:' .. d .. ':geo:' .. site, kind .. ':' .. ARGV[6], 1)
redis.call('ZADD', P .. 'days:' .. site, 0, d)
return found
`)

// ARGV: prefix, site, from, to, '' (no dimension: dimension reads are analytics-read.ts, in short
// commands), count visitors ('1' | '0'). Returns { {metric, n, ...}, visitors }.
export const PERIOD = lua(`${HELPERS}
local P, site, from, to, want = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[6] == '1'
local days = redis.call('ZRANGEBYLEX', P .. 'days:' .. site, '[' .. from, '[' .. to)
local sums, hlls = {}, {}
for _, d in ipairs(days) do
  local h = redis.call('HGETALL', P .. 'day:' .. d .. ':' .. site)
  for i = 1, #h, 2 do sums[h[i]] = (sums[h[i]] or 0) + tonumber(h[i + 1]) end
  hlls[#hlls + 1] = P .. 'dayu:' .. d .. ':' .. site
end
local out = {}
for m, n in pairs(sums) do out[#out + 1] = m; out[#out + 1] = n end
return { out, want and pfcount(P, hlls) or 0 }
`)

// ARGV: prefix, owner (stored form), from, to, limit. Returns { {site, visits, page_views, visitors}, ... }:
// the top \`limit\` by visits, ties broken by name (Redis orders equal scores
// by member bytes); the caller sorts the rows.
export const MOST_TRAFFIC = lua(`${HELPERS}
local P, owner, from, to, limit = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
local days = redis.call('ZRANGEBYLEX', P .. 'odays:' .. owner, '[' .. from, '[' .. to)
if #days == 0 or limit < 1 then return {} end
local tmp = P .. 'tmp:rank'
redis.call('DEL', tmp)
for i = 1, #days, 500 do
  local keys = {}
  for j = i, math.min(i + 499, #days) do keys[#keys + 1] = P .. 'rank:' .. days[j] .. ':' .. owner end
  if i == 1 then
    redis.call('ZUNIONSTORE', tmp, #keys, unpack(keys))
  else
    redis.call('ZUNIONSTORE', tmp, #keys + 1, tmp, unpack(keys))
  end
end
local picked
if redis.call('ZCARD', tmp) <= limit then
  picked = redis.call('ZRANGE', tmp, 0, -1, 'WITHSCORES')
else
  local nth = redis.call('ZREVRANGE', tmp, limit - 1, limit - 1, 'WITHSCORES')[2]
  picked = redis.call('ZRANGEBYSCORE', tmp, '(' .. nth, '+inf', 'WITHSCORES')
  local ties = redis.call('ZRANGEBYSCORE', tmp, nth, nth, 'WITHSCORES', 'LIMIT', 0, limit - #picked / 2)
  for _, v in ipairs(ties) do picked[#picked + 1] = v end
end
redis.call('DEL', tmp)
local out = {}
for i = 1, #picked, 2 do
  local site = picked[i]
  local pv, hlls = 0, {}
  for _, d in ipairs(redis.call('ZRANGEBYLEX', P .. 'days:' .. site, '[' .. from, '[' .. to)) do
    pv = pv + tonumber(redis.call('HGET', P .. 'day:' .. d .. ':' .. site, 'page_views') or '0')
    hlls[#hlls + 1] = P .. 'dayu:' .. d .. ':' .. site
  end
  out[#out + 1] = { site, tonumber(picked[i + 1]), pv, pfcount(P, hlls) }
end
return out
`)

/**
 * Records a batch of visits and activities in order, each as RECORD_VISIT or
 * RECORD_ACTIVITY would, under the cardinality cap and retention.
 *
 * KEYS: the site hashes of the batch (each once). ARGV: prefix, cap, first
 * day kept ('' for no retention), then 9 values per event: 'v' or 'a', index
 * of its site hash in KEYS, site, day, visitor or kind, page views, system
 * key, geo key, time to live in seconds ('' for none). Returns one entry per
 * event: false (no such site) or { owner, build } in stored form.
 *
 * Cap: the day hash counts the values of each dimension (`nsys`, `ngeo`); a
 * value not yet in the day's dimension hash, once the count has reached the
 * cap, is recorded as OTHER instead. Every key written gets its expiry (GT:
 * never shortened by an event of an older day), and the day indexes lose
 * the days before the first one kept, so nothing outlives retention.
 */
export const RECORD_EVENTS = lua(`${HELPERS}${DROP_SITE_ANALYTICS_LUA}
local P, cap, first = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local OTHER = ARGV[4]
local KINDS = { 'click_to_call', 'click_to_map', 'click_to_email', 'form_submit' }
local sites, out = {}, {}
local function expire(key, ttl)
  if ttl ~= '' and redis.call('EXPIRE', key, ttl, 'GT') == 0 then redis.call('EXPIRE', key, ttl, 'NX') end
end
-- The key a value is counted under: itself when known today or under the cap, else OTHER.
local function capped(dk, hk, dim, jk)
  if jk == OTHER then return jk end
  if redis.call('HEXISTS', hk, 'visits:' .. jk) == 1 then return jk end
  for _, k in ipairs(KINDS) do
    if redis.call('HEXISTS', hk, k .. ':' .. jk) == 1 then return jk end
  end
  local n = tonumber(redis.call('HGET', dk, 'n' .. dim) or '0')
  if n >= cap then return OTHER end
  redis.call('HINCRBY', dk, 'n' .. dim, 1)
  return jk
end
local trimmed = {}
for i = 5, #ARGV, 9 do
  local t, ki, site, d, who, pv = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5]
  local at = ARGV[i + 8]
  local found = sites[ki]
  if found == nil then
    found = redis.call('HMGET', KEYS[ki], 'owner', 'build')
    if not found[1] then found = false end
    sites[ki] = found
    if found then claim(P, site, found[1]) end
  end
  out[#out + 1] = found
  if found and (first == '' or d >= first) then
    local owner = found[1]
    local dk = P .. 'day:' .. d .. ':' .. site
    local days = P .. 'days:' .. site
    if t == 'v' then
      redis.call('HINCRBY', dk, 'visits', 1)
      redis.call('HINCRBY', dk, 'page_views', pv)
      local uk = P .. 'dayu:' .. d .. ':' .. site
      redis.call('PFADD', uk, who)
      expire(uk, at)
    else
      redis.call('HINCRBY', dk, who, 1)
    end
    local dims = { {'sys', ARGV[i + 6]}, {'geo', ARGV[i + 7]} }
    for _, e in ipairs(dims) do
      local hk = P .. 'dv:' .. d .. ':' .. e[1] .. ':' .. site
      local jk = capped(dk, hk, e[1], e[2])
      if t == 'v' then
        redis.call('HINCRBY', hk, 'visits:' .. jk, 1)
        redis.call('HINCRBY', hk, 'page_views:' .. jk, pv)
        local vk = dvu_key(P, d, e[1], site, jk)
        redis.call('PFADD', vk, who)
        expire(vk, at)
      else
        redis.call('HINCRBY', hk, who .. ':' .. jk, 1)
      end
      expire(hk, at)
    end
    expire(dk, at)
    redis.call('ZADD', days, 0, d)
    if t == 'v' then
      local odays = P .. 'odays:' .. owner
      local rk = P .. 'rank:' .. d .. ':' .. owner
      redis.call('ZADD', odays, 0, d)
      redis.call('ZINCRBY', rk, 1, site)
      expire(rk, at)
      expire(odays, at)
      if first ~= '' and not trimmed[odays] then
        trimmed[odays] = true
        redis.call('ZREMRANGEBYLEX', odays, '-', '(' .. first)
      end
    end
    expire(days, at)
    if first ~= '' and not trimmed[days] then
      trimmed[days] = true
      redis.call('ZREMRANGEBYLEX', days, '-', '(' .. first)
    end
  end
end
return out
`)
