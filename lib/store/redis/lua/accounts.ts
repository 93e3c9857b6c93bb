/**
 * The Lua scripts behind RedisStore's masters, sub-user accounts, grants and
 * limit counters (redis/accounts.ts): each rule that must hold across
 * processes sharing the store is one script, one atomic round trip.
 */
import { lua } from '../conn.js'

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
 * KEYS: account, account-name folds. ARGV: folded name, name, fields...
 * Returns 1 when created, 0 when the name is taken in any letter case.
 */
export const CREATE_ACCOUNT = lua(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then return 0 end
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
 * KEYS: account, account grants, account-name folds, account grant
 * permissions. ARGV: prefix, owner, name, folded name. Returns 1 or 0.
 */
export const DELETE_ACCOUNT = lua(`
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[2] then return 0 end
for _, site in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  redis.call('SREM', ARGV[1] .. 'gsite:' .. site, ARGV[3])
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[4])
if redis.call('HGET', KEYS[3], ARGV[4]) == ARGV[3] then redis.call('HDEL', KEYS[3], ARGV[4]) end
return 1
`)

/**
 * KEYS: account, site, account grants, site grants, account grant
 * permissions. ARGV: owner, account name, site name, 'grant' | 'revoke',
 * the permissions as JSON ('' for every permission). Returns 'ok',
 * 'no-account' or 'no-site'. Delete Site and Delete Account remove the
 * permissions with the grant.
 */
export const GRANT = lua(`
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
 * KEYS: account, site, account grants, account grant permissions. ARGV:
 * owner, site name. Returns 'no-account', 'no-site', 'no-grant', or
 * {'ok', permissions JSON or false}.
 */
export const GET_GRANT = lua(`
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 'no-account' end
if redis.call('HGET', KEYS[2], 'owner') ~= ARGV[1] then return 'no-site' end
if redis.call('SISMEMBER', KEYS[3], ARGV[2]) == 0 then return 'no-grant' end
return { 'ok', redis.call('HGET', KEYS[4], ARGV[2]) }
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
