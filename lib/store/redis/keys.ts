/**
 * Key layout of RedisStore. Every key is `prefix + '{' + tag + '}' + rest`:
 * the hash tag decides the Redis Cluster slot, so every key one atomic step
 * touches carries the same tag. A name inside a tag has `%`, `{` and `}`
 * percent-encoded, so the tag always ends at its own `}` and two inputs never
 * share a key. The prefix may not contain `{` or `}` (it would become the tag).
 *
 * | key                          | type   | holds                                            |
 * |------------------------------|--------|--------------------------------------------------|
 * | {m:<user>}                   | string | MasterRecord JSON                                |
 * | {n:<folded site name>}       | hash   | the site-name claim: `name`, `at` (claim time, ms, Redis clock) |
 * | {s:<site>}:site              | hash   | SiteRecord fields, each JSON-encoded; bookkeeping `#xkey` (its external-uid index key), `#sub` (its subscription's index), `#claim` (the claim's `at`), `#obase` (the owner's key start, for the recording scripts) |
 * | {s:<site>}:grants            | set    | accounts granted the site (a grant holds when both sets have it) |
 * | {s:<site>}:aowner, :days, :day:<d>, :du:<d>, :dayu:<d> | | the site's analytics (lua/analytics.ts, RECORD_EVENTS) |
 * | {o:<owner>}:created / :modified | zset | site names scored by created_at / modified_at    |
 * | {o:<owner>}:xuid:<uid>       | zset   | the owner's sites with that external_uid, by created_at |
 * | {o:<owner>}:charges / :subs  | list   | billing ledger entries, JSON                     |
 * | {o:<owner>}:odays, :rank:<d> | zset   | days with analytics; the owner's sites by the day's visits |
 * | {na:<folded account name>}   | hash   | the account-name claim, as for sites             |
 * | {a:<account>}:acct           | hash   | AccountRecord fields, each JSON-encoded          |
 * | {a:<account>}:grants         | set    | sites granted to the account                     |
 * | {a:<account>}:gperm          | hash   | site → its grant's permissions (JSON); none: every permission |
 * | {l:<key>}                    | string | incrementWithinLimit counter                     |
 * | {t:<digest>} / {x:<digest>}  | hash   | SSO tokens / sessions: `grant` (SsoGrant JSON), `expires_at` (engine ms) |
 *
 * Owner indexes may list a site whose create or delete was interrupted
 * between steps; readers check each entry against the site (sites.ts), so an
 * entry alone is never visible. Records are kept as described in
 * hash-fields.ts.
 */

/** Percent-encodes what would end a hash tag early or make two names meet. */
export function tagPart(name: string): string {
  return name.replace(/[%{}]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
}

/** Throws unless `prefix` can precede a hash tag. */
export function checkPrefix(prefix: string): string {
  if (/[{}]/.test(prefix)) {
    throw new TypeError(`RedisStore: the key prefix may not contain '{' or '}' (got ${JSON.stringify(prefix)})`)
  }
  return prefix
}

/** Builds the keys RedisStore computes on the client side. */
export class RedisKeys {
  constructor(readonly prefix: string) {
    checkPrefix(prefix)
  }

  /** `prefix{kind:name}`: the start of every key of one slot. */
  tag(kind: string, name: string): string {
    return `${this.prefix}{${kind}:${tagPart(name)}}`
  }

  master(user: string): string {
    return this.tag('m', user)
  }
  siteClaim(folded: string): string {
    return this.tag('n', folded)
  }
  accountClaim(folded: string): string {
    return this.tag('na', folded)
  }
  /** `prefix{s:site}:`: the start of the site's keys (its analytics scripts append to it). */
  siteBase(name: string): string {
    return `${this.tag('s', name)}:`
  }
  site(name: string): string {
    return `${this.siteBase(name)}site`
  }
  siteGrants(site: string): string {
    return `${this.siteBase(site)}grants`
  }
  /** `prefix{o:owner}:`: the start of the owner's keys. */
  ownerBase(owner: string): string {
    return `${this.tag('o', owner)}:`
  }
  created(owner: string): string {
    return `${this.ownerBase(owner)}created`
  }
  modified(owner: string): string {
    return `${this.ownerBase(owner)}modified`
  }
  externalUid(owner: string, uid: string): string {
    return `${this.ownerBase(owner)}xuid:${uid}`
  }
  charges(owner: string): string {
    return `${this.ownerBase(owner)}charges`
  }
  subscriptions(owner: string): string {
    return `${this.ownerBase(owner)}subs`
  }
  account(name: string): string {
    return `${this.tag('a', name)}:acct`
  }
  accountGrants(account: string): string {
    return `${this.tag('a', account)}:grants`
  }
  /** Kept with the account's side of each grant (accounts.ts). */
  grantPermissions(account: string): string {
    return `${this.tag('a', account)}:gperm`
  }
  limit(key: string): string {
    return this.tag('l', key)
  }
  ssoToken(digest: string): string {
    return this.tag('t', digest)
  }
  session(digest: string): string {
    return this.tag('x', digest)
  }

  // Analytics keys, for an export or import (the scripts in lua/analytics.ts build the same in Lua).
  analyticsOwner(site: string): string {
    return `${this.siteBase(site)}aowner`
  }
  siteDays(site: string): string {
    return `${this.siteBase(site)}days`
  }
  day(day: string, site: string): string {
    return `${this.siteBase(site)}day:${day}`
  }
  dayVisitors(day: string, site: string): string {
    return `${this.siteBase(site)}dayu:${day}`
  }
  /** A hash of the day's dimension values' HyperLogLogs, by the values' field names in `day`. */
  dayValues(day: string, site: string): string {
    return `${this.siteBase(site)}du:${day}`
  }
  /** The previous layout's per-dimension hash of a day: read by migrateRedisLayout only. */
  legacyDimension(day: string, dim: string, site: string): string {
    return `${this.siteBase(site)}dv:${day}:${dim}`
  }
  /** The previous layout's HyperLogLog of one dimension value: read by migrateRedisLayout only. */
  legacyDimensionVisitors(day: string, dim: string, site: string, jsonKey: string): string {
    return `${this.siteBase(site)}dvu:${day}:${dim}:${jsonKey}`
  }
  ownerDays(owner: string): string {
    return `${this.ownerBase(owner)}odays`
  }
  rank(day: string, owner: string): string {
    return `${this.ownerBase(owner)}rank:${day}`
  }
  /** A scratch key in the slot of `base` (a key or key start) that one step writes and deletes. */
  scratch(name: string, base = `${this.prefix}{tmp}:`): string {
    return `${base}tmp:${name}`
  }
}
