/**
 * The Lua scripts behind RedisStore's masters, sub-user accounts, grants and
 * limit counters (redis/accounts.ts), each rule in its two forms side by
 * side, as in lua/sites.ts: on a Redis Cluster each script touches one slot
 * (keys.ts) and accounts.ts chains them where a rule spans an account and a
 * site; on a single Redis (the `_1` scripts) such a rule is one script,
 * built from the same Lua functions as the chain's steps.
 */
import { lua } from '../conn.js'
import { CLAIM_NEW_LUA, RELEASE_LUA, WRITE_CLAIMED_LUA } from './claims.js'
import { KEY_LUA } from './keys.js'

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

/** Create Account on a cluster: the last step, writing the account hash (see WRITE_CLAIMED_LUA). */
export const CREATE_ACCOUNT = lua(WRITE_CLAIMED_LUA)

/**
 * Create Account on a single Redis. KEYS: claim, account. ARGV: prefix,
 * name, claim timeout, fields... Returns 1 when created, 0 when the name is taken.
 */
export const CREATE_ACCOUNT_1 = lua(`${CLAIM_NEW_LUA}
local at = claim_new(ARGV[1], 'a', KEYS[1], KEYS[2], ARGV[2], tonumber(ARGV[3]), ':acct')
if not at then return 0 end
redis.call('HSET', KEYS[2], '#claim', at, unpack(ARGV, 4))
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
 * `delete_account(account, grants, perms, owner)`: nil when the account is
 * not the owner's; else deletes it with its grants set and grant
 * permissions, and answers the granted sites and its claim's `at` (false if
 * none): the sites' sides of the grants and the claim are left to clean up.
 */
const DELETE_ACCOUNT_LUA = `
local function delete_account(account, grants, perms, owner)
  if redis.call('HGET', account, 'owner') ~= owner then return nil end
  local at = redis.call('HGET', account, '#claim')
  local sites = redis.call('SMEMBERS', grants)
  redis.call('DEL', account, grants, perms)
  return sites, at
end
`

/**
 * Delete Account on a cluster, first step. KEYS: account, account grants,
 * account grant permissions. ARGV: owner. Returns nil when not the owner's,
 * else { claim at ('' if none), granted sites }, whose grant entries
 * accounts.ts removes next, each in its site's slot.
 */
export const DELETE_ACCOUNT = lua(`${DELETE_ACCOUNT_LUA}
local sites, at = delete_account(KEYS[1], KEYS[2], KEYS[3], ARGV[1])
if not sites then return false end
return { at or '', sites }
`)

/**
 * Delete Account on a single Redis. KEYS: account, account grants, claim,
 * account grant permissions. ARGV: owner, prefix, name. Returns 1 or 0.
 */
export const DELETE_ACCOUNT_1 = lua(`${DELETE_ACCOUNT_LUA}${KEY_LUA}${RELEASE_LUA}
local sites, at = delete_account(KEYS[1], KEYS[2], KEYS[4], ARGV[1])
if not sites then return 0 end
for _, s in ipairs(sites) do redis.call('SREM', key(ARGV[2], 's', s, ':grants'), ARGV[3]) end
release(KEYS[3], ARGV[3], at)
return 1
`)

/**
 * `grant_side(set, perms, member, op, permissions)`: one side of a grant or
 * revoke ('grant' | 'revoke') of `member` in a record's grants set; on the
 * account's side (`perms` given) the grant's permissions (JSON, '' for
 * every permission) are written with it. A grant holds when both sides have it.
 */
const GRANT_SIDE_LUA = `
local function grant_side(set, perms, member, op, permissions)
  if op == 'grant' then redis.call('SADD', set, member) else redis.call('SREM', set, member) end
  if perms then
    if op == 'grant' and permissions ~= '' then
      redis.call('HSET', perms, member, permissions)
    else
      redis.call('HDEL', perms, member)
    end
  end
end
`

/**
 * Grant or revoke on a cluster, one side, in that record's slot. KEYS:
 * record (site or account), its grants set, [the account's grant
 * permissions]. ARGV: owner, member, 'grant' | 'revoke', [the permissions as
 * JSON, '' for every permission]. 1 when the record is the owner's (and the
 * set changed as asked), else 0. accounts.ts does the site's side first.
 */
export const GRANT_SIDE = lua(`${GRANT_SIDE_LUA}
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
grant_side(KEYS[2], KEYS[3], ARGV[2], ARGV[3], ARGV[4])
return 1
`)

/**
 * Grant or revoke on a single Redis, both sides. KEYS: account, site,
 * account grants, site grants, account grant permissions. ARGV: owner,
 * account name, site name, 'grant' | 'revoke', the permissions as JSON (''
 * for every permission). Returns 'ok', 'no-account' or 'no-site'.
 */
export const GRANT_1 = lua(`${GRANT_SIDE_LUA}
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 'no-account' end
if redis.call('HGET', KEYS[2], 'owner') ~= ARGV[1] then return 'no-site' end
grant_side(KEYS[3], KEYS[5], ARGV[3], ARGV[4], ARGV[5])
grant_side(KEYS[4], nil, ARGV[2], ARGV[4])
return 'ok'
`)

/**
 * `granted(record, set, owner, member, missing)`: one side of getGrant:
 * `missing` when the record is not the owner's, 'no-grant' when its set
 * lacks `member`, else 'ok'.
 */
const GRANTED_LUA = `
local function granted(record, set, owner, member, missing)
  if redis.call('HGET', record, 'owner') ~= owner then return missing end
  if redis.call('SISMEMBER', set, member) == 0 then return 'no-grant' end
  return 'ok'
end
`

/**
 * getGrant on a cluster, the account's side. KEYS: account, account grants,
 * account grant permissions. ARGV: owner, site name. 'no-account',
 * 'no-grant', or {'ok', permissions JSON or false}.
 */
export const GET_GRANT_ACCOUNT = lua(`${GRANTED_LUA}
local side = granted(KEYS[1], KEYS[2], ARGV[1], ARGV[2], 'no-account')
if side ~= 'ok' then return side end
return { 'ok', redis.call('HGET', KEYS[3], ARGV[2]) }
`)

/**
 * getGrant on a cluster, the site's side. KEYS: site, site grants. ARGV:
 * owner, account name. 'no-site', 'no-grant' or 'ok'.
 */
export const GET_GRANT_SITE = lua(`${GRANTED_LUA}
return granted(KEYS[1], KEYS[2], ARGV[1], ARGV[2], 'no-site')
`)

/**
 * getGrant on a single Redis, both sides, answering as accounts.ts combines
 * the cluster's two. KEYS: account, site, account grants, account grant
 * permissions, site grants. ARGV: owner, account name, site name.
 * 'no-account', 'no-site', 'no-grant' (unless both sides have it), or
 * {'ok', permissions JSON or false}.
 */
export const GET_GRANT_1 = lua(`${GRANTED_LUA}
local account = granted(KEYS[1], KEYS[3], ARGV[1], ARGV[3], 'no-account')
if account == 'no-account' then return account end
local site = granted(KEYS[2], KEYS[5], ARGV[1], ARGV[2], 'no-site')
if site ~= 'ok' then return site end
if account ~= 'ok' then return account end
return { 'ok', redis.call('HGET', KEYS[4], ARGV[3]) }
`)

/**
 * listGrants on a cluster. KEYS: account, account grants. ARGV: owner. The
 * granted sites, or nil when not the owner's; accounts.ts keeps those whose
 * side has the grant too.
 */
export const LIST_GRANTS = lua(`
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return false end
return redis.call('SMEMBERS', KEYS[2])
`)

/**
 * listGrants on a single Redis. KEYS: account, account grants. ARGV: owner,
 * prefix, account name. The granted sites whose side has the grant too, or
 * nil when not the owner's.
 */
export const LIST_GRANTS_1 = lua(`${KEY_LUA}
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return false end
local out = {}
for _, s in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  if redis.call('SISMEMBER', key(ARGV[2], 's', s, ':grants'), ARGV[3]) == 1 then out[#out + 1] = s end
end
return out
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
