/**
 * The Lua scripts behind RedisStore's masters, sub-user accounts, grants and
 * limit counters (redis/accounts.ts). Each script touches one slot (keys.ts);
 * accounts.ts chains them where a rule spans an account and a site.
 */
import { lua } from '../conn.js'
import { NOW_LUA } from './claims.js'

/**
 * KEYS: master. ARGV: the new record's JSON, the expected password_hash
 * ('' = only if absent). Returns 1 when written, 0 otherwise.
 */
export const PUT_MASTER_IF = lua(`
local current = redis.call('GET', KEYS[1])
if ARGV[2] == '' then
  if current then return 0 end
elseif not current or cjson.decode(current).password_hash ~= ARGV[2] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1])
return 1
`)

/**
 * KEYS: account. ARGV: the claim's `at`, how long after it the write is still
 * allowed (ms), fields... Returns 1 (created), 0 (an account has the name)
 * or -1 (too late: the claim may have been taken over). See claims.ts.
 */
export const CREATE_ACCOUNT = lua(`${NOW_LUA}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if now_ms() > tonumber(ARGV[1]) + tonumber(ARGV[2]) then return -1 end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
return 1
`)

/** KEYS: account. ARGV: owner, then field/value pairs ('' deletes). Returns 1 or 0. */
export const UPDATE_ACCOUNT = lua(`
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
for i = 2, #ARGV, 2 do
  if ARGV[i + 1] == '' then
    redis.call('HDEL', KEYS[1], ARGV[i])
  else
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  end
end
return 1
`)

/**
 * KEYS: account, account grants, account grant permissions. ARGV: owner.
 * Deletes the three; returns nil when not the owner's, else { claim at (''
 * if none), granted sites }, whose grant entries accounts.ts removes next,
 * each in its site's slot.
 */
export const DELETE_ACCOUNT = lua(`
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return false end
local at = redis.call('HGET', KEYS[1], '#claim') or ''
local sites = redis.call('SMEMBERS', KEYS[2])
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return { at, sites }
`)

/**
 * KEYS: record (site or account), its grants set, [the account's grant
 * permissions]. ARGV: owner, member, 'grant' | 'revoke', [the permissions as
 * JSON, '' for every permission]. One side of a grant, in that record's
 * slot: 1 when the record is the owner's (and the set changed as asked),
 * else 0. A grant holds when both sides have it (accounts.ts); its
 * permissions live on the account's side, written with its set entry.
 */
export const GRANT_SIDE = lua(`
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
if ARGV[3] == 'grant' then redis.call('SADD', KEYS[2], ARGV[2]) else redis.call('SREM', KEYS[2], ARGV[2]) end
if KEYS[3] then
  if ARGV[3] == 'grant' and ARGV[4] ~= '' then
    redis.call('HSET', KEYS[3], ARGV[2], ARGV[4])
  else
    redis.call('HDEL', KEYS[3], ARGV[2])
  end
end
return 1
`)

/**
 * KEYS: account, account grants, account grant permissions. ARGV: owner,
 * site name. The account's side of getGrant: 'no-account', 'no-grant', or
 * {'ok', permissions JSON or false}.
 */
export const GET_GRANT_ACCOUNT = lua(`
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 'no-account' end
if redis.call('SISMEMBER', KEYS[2], ARGV[2]) == 0 then return 'no-grant' end
return { 'ok', redis.call('HGET', KEYS[3], ARGV[2]) }
`)

/**
 * KEYS: site, site grants. ARGV: owner, account name. The site's side of
 * getGrant: 'no-site', 'no-grant' or 'ok'.
 */
export const GET_GRANT_SITE = lua(`
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 'no-site' end
if redis.call('SISMEMBER', KEYS[2], ARGV[2]) == 0 then return 'no-grant' end
return 'ok'
`)

/** KEYS: account, account grants. ARGV: owner. The granted sites, or nil when not the owner's. */
export const LIST_GRANTS = lua(`
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return false end
return redis.call('SMEMBERS', KEYS[2])
`)

/**
 * KEYS: counter. ARGV: limit, expiresAt (epoch ms). Returns {allowed, count}.
 * The expiry is pushed to at least a day past Redis' own clock, so an engine
 * on an injected clock (in the past) never has its counter dropped early.
 */
export const INCREMENT_WITHIN_LIMIT = lua(`
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count >= tonumber(ARGV[1]) then return { 0, count } end
count = redis.call('INCR', KEYS[1])
local t = redis.call('TIME')
local floor = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + 86400000
local at = math.max(tonumber(ARGV[2]), floor)
redis.call('PEXPIREAT', KEYS[1], string.format('%.0f', at))
return { 1, count }
`)
