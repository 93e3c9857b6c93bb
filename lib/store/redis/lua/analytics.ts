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

// ARGV: prefix, site, from, to, dimension ('' | 'sys' | 'geo'), count visitors ('1' | '0').
// Without a dimension: { {metric, n, ...}, visitors }. With one: { {jsonKey, {metric, n, ...}, visitors}, ... }.
export const PERIOD = lua(`${HELPERS}
local P, site, from, to, dim, want = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6] == '1'
local days = redis.call('ZRANGEBYLEX', P .. 'days:' .. site, '[' .. from, '[' .. to)
local function flatten(sums)
  local out = {}
  for m, n in pairs(sums) do out[#out + 1] = m; out[#out + 1] = n end
  return out
end
if dim == '' then
  local sums, hlls = {}, {}
  for _, d in ipairs(days) do
    local h = redis.call('HGETALL', P .. 'day:' .. d .. ':' .. site)
    for i = 1, #h, 2 do sums[h[i]] = (sums[h[i]] or 0) + tonumber(h[i + 1]) end
    hlls[#hlls + 1] = P .. 'dayu:' .. d .. ':' .. site
  end
  return { flatten(sums), want and pfcount(P, hlls) or 0 }
end
local rows, order = {}, {}
for _, d in ipairs(days) do
  local h = redis.call('HGETALL', P .. 'dv:' .. d .. ':' .. dim .. ':' .. site)
  for i = 1, #h, 2 do
    local f = h[i]
    local c = string.find(f, ':', 1, true)
    local m, jk = string.sub(f, 1, c - 1), string.sub(f, c + 1)
    local row = rows[jk]
    if not row then
      row = { sums = {}, hlls = {} }
      rows[jk] = row
      order[#order + 1] = jk
    end
    row.sums[m] = (row.sums[m] or 0) + tonumber(h[i + 1])
    if want and m == 'visits' then row.hlls[#row.hlls + 1] = dvu_key(P, d, dim, site, jk) end
  end
end
local out = {}
for _, jk in ipairs(order) do
  local row = rows[jk]
  out[#out + 1] = { jk, flatten(row.sums), want and pfcount(P, row.hlls) or 0 }
end
return out
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
