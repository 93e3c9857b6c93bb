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
 * `prefix{o:<owner>}:`, which the site hash keeps in `#obase`). `aowner`
 * holds the owner in stored form (JSON), as the site hash does.
 *
 * Every recording is a batch (RECORD_EVENTS): on a single Redis one call
 * takes every site of the batch and ranks through each site hash's `#obase`;
 * on a cluster analytics-record.ts calls it once per site and ranks with
 * RANK_VISITS, once per owner.
 */
import { lua } from '../conn.js'
import { KEY_LUA } from './keys.js'

/** Lua helpers shared by the analytics scripts; `B` is the site's key base. */
const HELPERS = `
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
 * `drop_site_analytics` drops every analytics key of a site (base `B`) and
 * returns the days it had, whose ranking entries the caller drops in the
 * owner's slot (DELETE_SITE in sites.ts, beside this file, embeds it);
 * `claim` records which owner (stored form) a site's analytics belong to,
 * and drops them first when another owner starts recording under that name,
 * so a site never inherits analytics (rankings are read through `aowner`, so
 * the old owner's entries no longer count). Delete Site drops them already;
 * this also covers analytics written before recording checked the site.
 */
export const DROP_SITE_ANALYTICS_LUA = `
local function drop_site_analytics(B)
  local days = redis.call('ZRANGE', B .. 'days', 0, -1)
  for _, d in ipairs(days) do
    redis.call('DEL', B .. 'day:' .. d, B .. 'dayu:' .. d, B .. 'du:' .. d)
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
 * KEYS: the site's days index. ARGV: site base, from, to, count visitors ('1' | '0'). Returns
 * { {metric, n, ...}, visitors }: the day totals (a dimension's are analytics-read.ts', in short commands).
 */
export const PERIOD = lua(`${HELPERS}
local B, from, to, want = ARGV[1], ARGV[2], ARGV[3], ARGV[4] == '1'
local FIELDS = { 'visits', 'page_views', 'click_to_call', 'click_to_map', 'click_to_email', 'form_submit' }
local days = redis.call('ZRANGEBYLEX', KEYS[1], '[' .. from, '[' .. to)
local sums, hlls = {}, {}
for _, d in ipairs(days) do
  local h = redis.call('HMGET', B .. 'day:' .. d, unpack(FIELDS))
  for i, m in ipairs(FIELDS) do
    if h[i] then sums[m] = (sums[m] or 0) + tonumber(h[i]) end
  end
  hlls[#hlls + 1] = B .. 'dayu:' .. d
end
local out = {}
for m, n in pairs(sums) do out[#out + 1] = m; out[#out + 1] = n end
return { out, want and pfcount(B, hlls) or 0 }
`)

/**
 * The distinct visitors of one dimension value over some days: the union of
 * the value's HyperLogLogs, each kept as a field of its day's `du:<day>`
 * hash. KEYS[1]: an accumulator (a scratch key in the site's slot). ARGV:
 * the value's field, '1' to answer the count and drop the accumulator ('0':
 * more days follow in another call), then the `du:` keys of up to
 * PF_CHUNK days. A read of many days is several calls, each short.
 */
export const VALUE_VISITORS = lua(`
local acc, tmp = KEYS[1], KEYS[1] .. ':in'
for i = 3, #ARGV do
  local blob = redis.call('HGET', ARGV[i], ARGV[1])
  if blob then
    redis.call('SET', tmp, blob)
    redis.call('PFMERGE', acc, tmp)
  end
end
redis.call('DEL', tmp)
if ARGV[2] ~= '1' then
  redis.call('EXPIRE', acc, 60)
  return 0
end
local n = redis.call('PFCOUNT', acc)
redis.call('DEL', acc)
return n
`)

/**
 * Adds visitors to a dimension value's HyperLogLog field (state import).
 * KEYS: the `du:<day>` hash, a scratch key in its slot. ARGV: field, 'ids'
 * (then the visitor ids) or 'sketch' (then a HyperLogLog's bytes).
 */
export const VISITORS_INTO_FIELD = lua(`
local H, tmp, f = KEYS[1], KEYS[2], ARGV[1]
local cur = redis.call('HGET', H, f)
if cur then redis.call('SET', tmp, cur) else redis.call('DEL', tmp) end
if ARGV[2] == 'ids' then
  redis.call('PFADD', tmp)
  for i = 3, #ARGV, 500 do redis.call('PFADD', tmp, unpack(ARGV, i, math.min(i + 499, #ARGV))) end
else
  redis.call('SET', tmp .. ':in', ARGV[3])
  redis.call('PFMERGE', tmp, tmp .. ':in')
  redis.call('DEL', tmp .. ':in')
end
redis.call('HSET', H, f, redis.call('GET', tmp))
redis.call('DEL', tmp)
return 1
`)

/**
 * `top_sites(O, days, from, to, limit)`: the top `limit` sites by visits in
 * the owner's rankings (owner base `O`, days index `days`) over [from, to],
 * as { site, visits, ... }, ties broken by name (Redis orders equal scores
 * by member bytes).
 */
const TOP_SITES_LUA = `
local function top_sites(O, days_key, from, to, limit)
  local days = redis.call('ZRANGEBYLEX', days_key, '[' .. from, '[' .. to)
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
end
`

/**
 * `site_traffic(B, from, to, owner)`: the page views and distinct visitors
 * of a site (key base `B`) over [from, to], or nil when its analytics are
 * not the owner's (stored form): a ranking entry left by a deleted site, or
 * one recreated by another owner, is skipped.
 */
const SITE_TRAFFIC_LUA = `${HELPERS}
local function site_traffic(B, from, to, owner)
  if redis.call('GET', B .. 'aowner') ~= owner then return nil end
  local pv, hlls = 0, {}
  for _, d in ipairs(redis.call('ZRANGEBYLEX', B .. 'days', '[' .. from, '[' .. to)) do
    pv = pv + tonumber(redis.call('HGET', B .. 'day:' .. d, 'page_views') or '0')
    hlls[#hlls + 1] = B .. 'dayu:' .. d
  end
  return pv, pfcount(B, hlls)
end
`

/**
 * Most traffic on a cluster, first step, in the owner's slot. KEYS: the
 * owner's days index. ARGV: owner base, from, to, limit. Returns
 * `top_sites`'; analytics.ts then reads each site's own totals (SITE_TRAFFIC).
 */
export const TOP_SITES = lua(`${TOP_SITES_LUA}
return top_sites(ARGV[1], KEYS[1], ARGV[2], ARGV[3], tonumber(ARGV[4]))
`)

/**
 * Most traffic on a cluster, second step, once per picked site, in its slot.
 * KEYS: the site's days index. ARGV: site base, from, to, owner (stored
 * form). Returns { page_views, visitors }, or nil (see `site_traffic`).
 */
export const SITE_TRAFFIC = lua(`${SITE_TRAFFIC_LUA}
local pv, visitors = site_traffic(ARGV[1], ARGV[2], ARGV[3], ARGV[4])
if not pv then return false end
return { pv, visitors }
`)

/**
 * Most traffic on a single Redis: both steps in one script. KEYS: the
 * owner's days index. ARGV: owner base, from, to, limit, prefix, owner
 * (stored form). Returns { {site, visits, page_views, visitors}, ... }; the
 * caller sorts.
 */
export const MOST_TRAFFIC_1 = lua(`${TOP_SITES_LUA}${SITE_TRAFFIC_LUA}${KEY_LUA}
local from, to = ARGV[2], ARGV[3]
local picked = top_sites(ARGV[1], KEYS[1], from, to, tonumber(ARGV[4]))
local out = {}
for i = 1, #picked, 2 do
  local site = picked[i]
  local pv, visitors = site_traffic(key(ARGV[5], 's', site, ':'), from, to, ARGV[6])
  if pv then out[#out + 1] = { site, tonumber(picked[i + 1]), pv, visitors } end
end
return out
`)

/** `expire(key, ttl)`: sets a key's time to live, never shortening it (GT, or NX when it had none); '' is none. */
const EXPIRE_LUA = `
local function expire(key, ttl)
  if ttl ~= '' and redis.call('EXPIRE', key, ttl, 'GT') == 0 then redis.call('EXPIRE', key, ttl, 'NX') end
end
`

/**
 * `rank(O, first, d, site, n, ttl, trimmed)`: adds `n` visits of `site` on day
 * `d` to the owner's ranking (owner base `O`), with the keys' expiry, and
 * drops the days before `first` ('' for none) from the owner's days index.
 */
const RANK_LUA = `${EXPIRE_LUA}
local function rank(O, first, d, site, n, ttl, trimmed)
  local odays, rk = O .. 'odays', O .. 'rank:' .. d
  redis.call('ZADD', odays, 0, d)
  redis.call('ZINCRBY', rk, n, site)
  expire(rk, ttl)
  expire(odays, ttl)
  if first ~= '' and not trimmed[odays] then
    trimmed[odays] = true
    redis.call('ZREMRANGEBYLEX', odays, '-', '(' .. first)
  end
end
`

/**
 * Records a batch of visits and activities in order, under the cardinality
 * cap and retention.
 *
 * KEYS: the site hashes of the batch (each once; on a cluster, one site, so
 * the script touches one slot). ARGV: cap, first day kept ('' for no
 * retention), OTHER's JSON key, rank here ('1': a single Redis, the owner's
 * ranking is updated in this step through the site hash's `#obase`; on a
 * cluster analytics.ts does it with RANK_VISITS), then per site of KEYS its
 * name and base, then per group of identical events: 'v' or 'a', index of
 * its site in KEYS, day, kind ('' for visits), system key, geo key, events,
 * page views (summed), time to live in seconds ('' for none), the number of
 * visitor ids, and those ids. Returns one entry per site of KEYS: false (no
 * such site) or { owner, build } in stored form.
 *
 * A site-day is three keys (keys.ts): `day:<d>` holds the day's counters and,
 * per dimension value, a field `s:<JSON key>` / `g:<JSON key>` with the
 * value's counters packed as "visits page_views click_to_call click_to_map
 * click_to_email form_submit" (trailing zeros left out); `du:<d>` holds each
 * value's distinct visitors as a HyperLogLog in the field of the same name
 * (copied through a scratch key to PFADD, written back only when it changed);
 * `dayu:<d>` is the day's HyperLogLog. Fields instead of a key per value:
 * a key costs about 100 bytes of its own, more than a small HyperLogLog.
 *
 * Cap: the day hash counts the values of each dimension (`nsys`, `ngeo`); a
 * value not yet in the day hash, once the count has reached the cap, is
 * recorded as OTHER instead. Every key written gets its expiry (GT: never
 * shortened by an event of an older day), and the day indexes lose the days
 * before the first one kept, so nothing outlives retention.
 */
export const RECORD_EVENTS = lua(`${HELPERS}${DROP_SITE_ANALYTICS_LUA}${RANK_LUA}
local cap, first, OTHER, rank_here = tonumber(ARGV[1]), ARGV[2], ARGV[3], ARGV[4] == '1'
local SLOT = { click_to_call = 3, click_to_map = 4, click_to_email = 5, form_submit = 6 }
local COUNT = { s = 'nsys', g = 'ngeo' }
local sites, out, trimmed, scratch = {}, {}, {}, {}
-- The field a value is counted under: its own when known today or under the cap, else OTHER's.
local function capped(dk, dim, jk)
  local f = dim .. ':' .. jk
  if jk == OTHER or redis.call('HEXISTS', dk, f) == 1 then return f end
  if tonumber(redis.call('HGET', dk, COUNT[dim]) or '0') >= cap then return dim .. ':' .. OTHER end
  redis.call('HINCRBY', dk, COUNT[dim], 1)
  return f
end
-- Adds n to slot i of a value's packed counters (and pv page views to slot 2 with visits).
local function bump(dk, f, i, n, pv)
  local t, j = { 0, 0, 0, 0, 0, 0 }, 1
  for x in string.gmatch(redis.call('HGET', dk, f) or '', '%d+') do
    t[j] = tonumber(x)
    j = j + 1
  end
  t[i] = t[i] + n
  if i == 1 then t[2] = t[2] + pv end
  local last = 2
  for k = 3, 6 do if t[k] ~= 0 then last = k end end
  local parts = {}
  for k = 1, last do parts[k] = string.format('%.0f', t[k]) end
  redis.call('HSET', dk, f, table.concat(parts, ' '))
end
-- PFADD of ARGV[v0 .. v1] to a HyperLogLog kept in a hash field, through the scratch key tmp.
local function pfadd_field(H, f, v0, v1, tmp)
  local cur = redis.call('HGET', H, f)
  if cur then redis.call('SET', tmp, cur) else redis.call('DEL', tmp) end
  if redis.call('PFADD', tmp, unpack(ARGV, v0, v1)) == 1 then redis.call('HSET', H, f, redis.call('GET', tmp)) end
end
for ki = 1, #KEYS do
  local found = redis.call('HMGET', KEYS[ki], 'owner', 'build', '#obase')
  if found[1] then
    claim(ARGV[4 + 2 * ki], found[1])
    sites[ki] = found
    out[ki] = { found[1], found[2] }
  else
    out[ki] = false
  end
end
local i = 5 + 2 * #KEYS
while i <= #ARGV do
  local t, ki, d, kind, sys, geo = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5]
  local n, pv, at, v0 = tonumber(ARGV[i + 6]), tonumber(ARGV[i + 7]), ARGV[i + 8], i + 10
  local v1 = v0 + tonumber(ARGV[i + 9]) - 1
  i = v1 + 1
  local site, B, found = ARGV[3 + 2 * ki], ARGV[4 + 2 * ki], sites[ki]
  if found and (first == '' or d >= first) then
    local dk, du = B .. 'day:' .. d, B .. 'du:' .. d
    local days = B .. 'days'
    local tmp = B .. 'tmp:hll'
    if t == 'v' then
      redis.call('HINCRBY', dk, 'visits', n)
      redis.call('HINCRBY', dk, 'page_views', pv)
      local uk = B .. 'dayu:' .. d
      redis.call('PFADD', uk, unpack(ARGV, v0, v1))
      expire(uk, at)
    else
      redis.call('HINCRBY', dk, kind, n)
    end
    for _, e in ipairs({ {'s', sys}, {'g', geo} }) do
      local f = capped(dk, e[1], e[2])
      if t == 'v' then
        bump(dk, f, 1, n, pv)
        pfadd_field(du, f, v0, v1, tmp)
        scratch[tmp] = true
      else
        bump(dk, f, SLOT[kind], n, 0)
      end
    end
    if t == 'v' then expire(du, at) end
    expire(dk, at)
    redis.call('ZADD', days, 0, d)
    expire(days, at)
    expire(B .. 'aowner', at)
    if first ~= '' and not trimmed[days] then
      trimmed[days] = true
      redis.call('ZREMRANGEBYLEX', days, '-', '(' .. first)
    end
    if t == 'v' and rank_here and found[3] then rank(found[3], first, d, site, n, at, trimmed) end
  end
end
for tmp in pairs(scratch) do redis.call('DEL', tmp) end
return out
`)

/**
 * The cluster's second step of a batch: the visits it recorded, added to
 * one owner's rankings, in the owner's slot. KEYS: the owner's days index.
 * ARGV: owner base, first day kept ('' for none), then 4 values per site-day:
 * day, site, visits, time to live ('' for none).
 */
export const RANK_VISITS = lua(`${RANK_LUA}
local O, first, trimmed = ARGV[1], ARGV[2], {}
for i = 3, #ARGV, 4 do rank(O, first, ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2]), ARGV[i + 3], trimmed) end
return 1
`)
