/**
 * Analytics half of RedisStore. One set of keys per site-day (counters hash,
 * visitor HyperLogLog, per-dimension counters and HyperLogLogs), a per-site
 * and per-owner index of days, and a per-owner per-day ranking of visits.
 * Distinct visitors over a period are PFCOUNT over the period's HyperLogLogs,
 * i.e. the size of their union, with about 0.81 % standard error.
 *
 * Each call is one Lua script: one round trip, and a visit is recorded
 * atomically, together with the read of the site it is for. The key layout is
 * described in lib/store/redis-keys.ts; the analytics keys are built here, in
 * Lua only, so there is one definition.
 *
 * Owners appear in analytics keys (`odays:`, `rank:`) and in `aowner` in
 * their stored form, JSON-encoded as in the site hash: recording reads the
 * owner from there, and no script decodes JSON.
 */
import { ACTIVITY_KINDS, type ActivityKind } from '../../types/index.js'
import type {
  ActivityEvent,
  ActivityTotals,
  BuildState,
  Dimension,
  PeriodRow,
  RecordOutcome,
  TrafficTotals,
  VisitEvent,
} from './contract.js'
import { lua, type RedisConn } from './redis-conn.js'
import type { RedisKeys } from './redis-keys.js'

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
 * and its ranking entries (deleteSite in lib/store/redis-scripts.ts embeds
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
const RECORD_VISIT = lua(`${HELPERS}${DROP_SITE_ANALYTICS_LUA}${SITE_OF}
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
const RECORD_ACTIVITY = lua(`${DROP_SITE_ANALYTICS_LUA}${SITE_OF}
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
const PERIOD = lua(`${HELPERS}
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
const MOST_TRAFFIC = lua(`${HELPERS}
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

const KINDS: readonly ActivityKind[] = ACTIVITY_KINDS
const DIM: Record<Dimension, string> = { system: 'sys', geo: 'geo' }

/** A recording script's reply: nil, or the site's owner and build in stored (JSON) form. */
function recordOutcome(reply: unknown): RecordOutcome | undefined {
  if (reply === null) return undefined
  const [owner, build] = reply as [string, string]
  return { owner: JSON.parse(owner) as string, build: JSON.parse(build) as BuildState }
}

/** Metric sums as the scripts return them: a flat name/count array. */
function sums(flat: unknown): Map<string, number> {
  const out = new Map<string, number>()
  const a = flat as (string | number)[]
  for (let i = 0; i + 1 < a.length; i += 2) out.set(String(a[i]), Number(a[i + 1]))
  return out
}

function traffic(m: Map<string, number>, visitors: unknown): TrafficTotals {
  return { visits: m.get('visits') ?? 0, page_views: m.get('page_views') ?? 0, unique_visitors: Number(visitors) }
}

function activities(m: Map<string, number>): ActivityTotals {
  const out = {} as ActivityTotals
  for (const k of KINDS) out[k] = m.get(k) ?? 0
  return out
}

/** Orders dimension keys element by element (code-unit order, like Redis for ASCII). */
export function compareKeys(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] as string
    const y = b[i] as string
    if (x !== y) return x < y ? -1 : 1
  }
  return a.length - b.length
}

/** The analytics methods of the Store contract, on Redis. */
export class RedisAnalytics {
  private readonly prefix: string

  constructor(
    private readonly conn: RedisConn,
    private readonly keys: RedisKeys,
  ) {
    this.prefix = keys.prefix
  }

  /** See {@link Store.recordVisit}. */
  async recordVisit(v: VisitEvent): Promise<RecordOutcome | undefined> {
    const reply = await this.conn.run(
      RECORD_VISIT,
      [this.keys.site(v.site_name)],
      [
        this.prefix,
        v.site_name,
        v.day,
        v.visitor_id,
        v.page_views,
        JSON.stringify([v.browser, v.os]),
        JSON.stringify([v.country, v.region]),
      ],
    )
    return recordOutcome(reply)
  }

  /** See {@link Store.recordActivity}. */
  async recordActivity(a: ActivityEvent): Promise<RecordOutcome | undefined> {
    const reply = await this.conn.run(
      RECORD_ACTIVITY,
      [this.keys.site(a.site_name)],
      [
        this.prefix,
        a.site_name,
        a.day,
        a.kind,
        JSON.stringify([a.browser, a.os]),
        JSON.stringify([a.country, a.region]),
      ],
    )
    return recordOutcome(reply)
  }

  /** See {@link Store.siteTraffic}. */
  async siteTraffic(
    site: string,
    from: string,
    to: string,
    dimension?: Dimension,
  ): Promise<PeriodRow<TrafficTotals>[]> {
    if (!dimension) {
      const [flat, visitors] = (await this.period(site, from, to, '', true)) as [unknown, unknown]
      return [{ key: [], data: traffic(sums(flat), visitors) }]
    }
    const rows = (await this.period(site, from, to, DIM[dimension], true)) as [string, unknown, unknown][]
    return rows
      .map(([jk, flat, visitors]) => ({ key: JSON.parse(jk) as string[], data: traffic(sums(flat), visitors) }))
      .filter((r) => r.data.visits > 0)
      .sort((a, b) => compareKeys(a.key, b.key))
  }

  /** See {@link Store.siteActivities}. */
  async siteActivities(
    site: string,
    from: string,
    to: string,
    dimension?: Dimension,
  ): Promise<PeriodRow<ActivityTotals>[]> {
    if (!dimension) {
      const [flat] = (await this.period(site, from, to, '', false)) as [unknown, unknown]
      return [{ key: [], data: activities(sums(flat)) }]
    }
    const rows = (await this.period(site, from, to, DIM[dimension], false)) as [string, unknown, unknown][]
    return rows
      .map(([jk, flat]) => ({ key: JSON.parse(jk) as string[], data: activities(sums(flat)) }))
      .filter((r) => KINDS.some((k) => r.data[k] > 0))
      .sort((a, b) => compareKeys(a.key, b.key))
  }

  /** See {@link Store.mostTraffic}. */
  async mostTraffic(
    owner: string,
    from: string,
    to: string,
    limit: number,
  ): Promise<{ site_name: string; data: TrafficTotals }[]> {
    if (from > to || limit < 1) return []
    const rows = (await this.conn.run(MOST_TRAFFIC, [], [this.prefix, JSON.stringify(owner), from, to, limit])) as [
      string,
      number,
      number,
      number,
    ][]
    return rows
      .map(([site_name, visits, page_views, unique_visitors]) => ({
        site_name,
        data: { visits: Number(visits), page_views: Number(page_views), unique_visitors: Number(unique_visitors) },
      }))
      .sort(
        (a, b) => b.data.visits - a.data.visits || (a.site_name < b.site_name ? -1 : a.site_name > b.site_name ? 1 : 0),
      )
      .slice(0, limit)
  }

  private period(site: string, from: string, to: string, dim: string, visitors: boolean): Promise<unknown> {
    return this.conn.run(PERIOD, [], [this.prefix, site, from, to, dim, visitors ? '1' : '0'])
  }
}
