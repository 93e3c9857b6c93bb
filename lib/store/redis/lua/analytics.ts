/**
 * The Lua scripts behind RedisStore's analytics (redis/analytics.ts). Each
 * call is one script: one round trip, and a visit is recorded atomically,
 * together with the read of the site it is for. The analytics keys (see the
 * table in redis/keys.ts) are built here, in Lua only, so there is one
 * definition; redis/state.ts reads them for an export.
 *
 * A site's analytics keys share the site's hash tag (they start with the
 * site's base `B`, `prefix{s:<site>}:`), so each script below touches one
 * slot; the owner's days and rankings live under the owner's tag (base `O`,
 * `prefix{o:<owner>}:`, which the site hash keeps in `#obase`). On a single
 * Redis the recording scripts update the ranking in the same step; on a
 * cluster analytics.ts does it as a second step in the owner's slot. `aowner`
 * holds the owner in stored form (JSON), as the site hash does.
 */
import { lua } from '../conn.js'

/** Lua helpers shared by the analytics scripts; `B` is the site's key base. */
const HELPERS = `
local function dvu_key(B, d, dim, jk)
  return B .. 'dvu:' .. d .. ':' .. dim .. ':' .. jk
end
-- PFCOUNT of many keys is the size of their union; merge in chunks so that
-- unpack never meets Lua's stack limit on long periods.
local function pfcount(B, keys)
  if #keys == 0 then return 0 end
  if #keys <= 500 then return redis.call('PFCOUNT', unpack(keys)) end
  local tmp = B .. 'tmp:pf'
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
 * (base `B`) and returns the days it had, whose ranking entries the caller
 * drops in the owner's slot (DELETE_SITE in sites.ts, beside this file, embeds
 * it); `claim` records which owner (stored form) a site's analytics belong
 * to, and drops them first when another owner starts recording under that
 * name, so a site never inherits analytics (rankings are read through
 * `aowner`, so the old owner's entries no longer count). Delete Site drops
 * them already; this also covers analytics written before recording checked
 * the site.
 */
export const DROP_SITE_ANALYTICS_LUA = `
local function drop_site_analytics(B)
  local days = redis.call('ZRANGE', B .. 'days', 0, -1)
  for _, d in ipairs(days) do
    redis.call('DEL', B .. 'day:' .. d, B .. 'dayu:' .. d)
    for _, dim in ipairs({'sys', 'geo'}) do
      local hk = B .. 'dv:' .. d .. ':' .. dim
      for _, f in ipairs(redis.call('HKEYS', hk)) do
        if string.sub(f, 1, 7) == 'visits:' then
          redis.call('DEL', B .. 'dvu:' .. d .. ':' .. dim .. ':' .. string.sub(f, 8))
        end
      end
      redis.call('DEL', hk)
    end
  end
  redis.call('DEL', B .. 'days', B .. 'aowner')
  return days
end
local function claim(B, owner)
  local known = redis.call('GET', B .. 'aowner')
  if known == owner then return end
  if known then drop_site_analytics(B) end
  redis.call('SET', B .. 'aowner', owner)
end
`

/**
 * Reads the owner, build and owner key base of the site (KEYS[1], its hash);
 * nil when there is no such site. Recording scripts start with it, so they
 * record nothing for a missing site and answer the owner and build in the
 * same atomic step.
 */
const SITE_OF = `
local found = redis.call('HMGET', KEYS[1], 'owner', 'build', '#obase')
if not found[1] then return false end
local owner, obase = found[1], found[3]
`

// KEYS: site hash. ARGV: site base, site, day, visitor, page_views, system key, geo key,
// rank here ('1': a single Redis, the owner's ranking is updated in this step).
// Returns nil (nothing recorded) or { owner, build }, both in stored (JSON) form.
export const RECORD_VISIT = lua(`${HELPERS}${DROP_SITE_ANALYTICS_LUA}${SITE_OF}
local B, site, d, visitor, pv = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
claim(B, owner)
local dk = B .. 'day:' .. d
redis.call('HINCRBY', dk, 'visits', 1)
redis.call('HINCRBY', dk, 'page_views', pv)
redis.call('PFADD', B .. 'dayu:' .. d, visitor)
local dims = { {'sys', ARGV[6]}, {'geo', ARGV[7]} }
for _, e in ipairs(dims) do
  local hk = B .. 'dv:' .. d .. ':' .. e[1]
  redis.call('HINCRBY', hk, 'visits:' .. e[2], 1)
  redis.call('HINCRBY', hk, 'page_views:' .. e[2], pv)
  redis.call('PFADD', dvu_key(B, d, e[1], e[2]), visitor)
end
redis.call('ZADD', B .. 'days', 0, d)
if ARGV[8] == '1' and obase then
  redis.call('ZADD', obase .. 'odays', 0, d)
  redis.call('ZINCRBY', obase .. 'rank:' .. d, 1, site)
end
return { found[1], found[2] }
`)

// KEYS: owner's days index, owner's ranking of the day. ARGV: day, site. The cluster's second step of a visit.
export const RANK_VISIT = lua(`
redis.call('ZADD', KEYS[1], 0, ARGV[1])
redis.call('ZINCRBY', KEYS[2], 1, ARGV[2])
return 1
`)

// KEYS: site hash. ARGV: site base, site, day, kind, system key, geo key. Returns as RECORD_VISIT.
export const RECORD_ACTIVITY = lua(`${DROP_SITE_ANALYTICS_LUA}${SITE_OF}
local B, site, d, kind = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
claim(B, owner)
redis.call('HINCRBY', B .. 'day:' .. d, kind, 1)
redis.call('HINCRBY', B .. 'dv:' .. d .. ':sys', kind .. ':' .. ARGV[5], 1)
redis.call('HINCRBY', B .. 'dv:' .. d .. ':geo', kind .. ':' .. ARGV[6], 1)
redis.call('ZADD', B .. 'days', 0, d)
return { found[1], found[2] }
`)

// KEYS: the site's days index. ARGV: site base, from, to, dimension ('' | 'sys' | 'geo'), count visitors ('1' | '0').
// Without a dimension: { {metric, n, ...}, visitors }. With one: { {jsonKey, {metric, n, ...}, visitors}, ... }.
export const PERIOD = lua(`${HELPERS}
local B, from, to, dim, want = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5] == '1'
local days = redis.call('ZRANGEBYLEX', KEYS[1], '[' .. from, '[' .. to)
local function flatten(sums)
  local out = {}
  for m, n in pairs(sums) do out[#out + 1] = m; out[#out + 1] = n end
  return out
end
if dim == '' then
  local sums, hlls = {}, {}
  for _, d in ipairs(days) do
    local h = redis.call('HGETALL', B .. 'day:' .. d)
    for i = 1, #h, 2 do sums[h[i]] = (sums[h[i]] or 0) + tonumber(h[i + 1]) end
    hlls[#hlls + 1] = B .. 'dayu:' .. d
  end
  return { flatten(sums), want and pfcount(B, hlls) or 0 }
end
local rows, order = {}, {}
for _, d in ipairs(days) do
  local h = redis.call('HGETALL', B .. 'dv:' .. d .. ':' .. dim)
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
    if want and m == 'visits' then row.hlls[#row.hlls + 1] = dvu_key(B, d, dim, jk) end
  end
end
local out = {}
for _, jk in ipairs(order) do
  local row = rows[jk]
  out[#out + 1] = { jk, flatten(row.sums), want and pfcount(B, row.hlls) or 0 }
end
return out
`)

// KEYS: the owner's days index. ARGV: owner base, from, to, limit. Returns { site, visits, ... }:
// the top \`limit\` by visits in the owner's rankings, ties broken by name (Redis orders equal
// scores by member bytes). analytics.ts then reads each site's own totals (SITE_TRAFFIC).
export const TOP_SITES = lua(`
local O, from, to, limit = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local days = redis.call('ZRANGEBYLEX', KEYS[1], '[' .. from, '[' .. to)
if #days == 0 or limit < 1 then return {} end
local tmp = O .. 'tmp:rank'
redis.call('DEL', tmp)
for i = 1, #days, 500 do
  local keys = {}
  for j = i, math.min(i + 499, #days) do keys[#keys + 1] = O .. 'rank:' .. days[j] end
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
return picked
`)

// KEYS: the site's days index. ARGV: site base, from, to, owner (stored form).
// Returns { page_views, visitors } over the period, or nil when the site's analytics are not the owner's.
export const SITE_TRAFFIC = lua(`${HELPERS}
local B, from, to = ARGV[1], ARGV[2], ARGV[3]
if redis.call('GET', B .. 'aowner') ~= ARGV[4] then return false end
local pv, hlls = 0, {}
for _, d in ipairs(redis.call('ZRANGEBYLEX', KEYS[1], '[' .. from, '[' .. to)) do
  pv = pv + tonumber(redis.call('HGET', B .. 'day:' .. d, 'page_views') or '0')
  hlls[#hlls + 1] = B .. 'dayu:' .. d
end
return { pv, pfcount(B, hlls) }
`)

// The single-Redis form of most traffic (every key on one server): TOP_SITES, then SITE_TRAFFIC for
// each picked site, in one script. KEYS: the owner's days index. ARGV: owner base, from, to, limit,
// prefix, owner (stored form). Returns { {site, visits, page_views, visitors}, ... }; the caller sorts.
export const MOST_TRAFFIC_1 = lua(`${HELPERS}
local O, from, to, limit, P, owner = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6]
local days = redis.call('ZRANGEBYLEX', KEYS[1], '[' .. from, '[' .. to)
if #days == 0 or limit < 1 then return {} end
local tmp = O .. 'tmp:rank'
redis.call('DEL', tmp)
for i = 1, #days, 500 do
  local keys = {}
  for j = i, math.min(i + 499, #days) do keys[#keys + 1] = O .. 'rank:' .. days[j] end
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
  local n = string.gsub(site, '[%%{}]', function(c) return string.format('%%%02X', string.byte(c)) end)
  local B = P .. '{s:' .. n .. '}:'
  if redis.call('GET', B .. 'aowner') == owner then
    local pv, hlls = 0, {}
    for _, d in ipairs(redis.call('ZRANGEBYLEX', B .. 'days', '[' .. from, '[' .. to)) do
      pv = pv + tonumber(redis.call('HGET', B .. 'day:' .. d, 'page_views') or '0')
      hlls[#hlls + 1] = B .. 'dayu:' .. d
    end
    out[#out + 1] = { site, tonumber(picked[i + 1]), pv, pfcount(B, hlls) }
  end
end
return out
`)
