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

/**
 * Builds the keys RedisStore computes on the client side: one line per key
 * of the table above, grouped by the tag the keys share (the scripts in
 * lua/analytics.ts build the analytics keys of a site base in Lua too).
 */
export class RedisKeys {
  constructor(readonly prefix: string) {
    checkPrefix(prefix)
  }

  /** `prefix{kind:name}`: the start of every key of one slot. */
  tag(kind: string, name: string): string {
    return `${this.prefix}{${kind}:${tagPart(name)}}`
  }

  // Records that are a slot of their own.
  readonly master = (user: string): string => this.tag('m', user)
  readonly siteClaim = (folded: string): string => this.tag('n', folded)
  readonly accountClaim = (folded: string): string => this.tag('na', folded)
  readonly limit = (key: string): string => this.tag('l', key)
  readonly ssoToken = (digest: string): string => this.tag('t', digest)
  readonly session = (digest: string): string => this.tag('x', digest)

  /** `prefix{s:site}:`: the start of the site's keys (its analytics scripts append to it). */
  readonly siteBase = (site: string): string => `${this.tag('s', site)}:`
  readonly site = (site: string): string => `${this.siteBase(site)}site`
  readonly siteGrants = (site: string): string => `${this.siteBase(site)}grants`
  // The site's analytics, for an export or import (RECORD_EVENTS writes them).
  readonly analyticsOwner = (site: string): string => `${this.siteBase(site)}aowner`
  readonly siteDays = (site: string): string => `${this.siteBase(site)}days`
  readonly day = (day: string, site: string): string => `${this.siteBase(site)}day:${day}`
  readonly dayVisitors = (day: string, site: string): string => `${this.siteBase(site)}dayu:${day}`
  /** A hash of the day's dimension values' HyperLogLogs, by the values' field names in `day`. */
  readonly dayValues = (day: string, site: string): string => `${this.siteBase(site)}du:${day}`
  /** The previous layout's per-dimension hash of a day: read by migrateRedisLayout only. */
  readonly legacyDimension = (day: string, dim: string, site: string): string =>
    `${this.siteBase(site)}dv:${day}:${dim}`
  /** The previous layout's HyperLogLog of one dimension value: read by migrateRedisLayout only. */
  readonly legacyDimensionVisitors = (day: string, dim: string, site: string, jsonKey: string): string =>
    `${this.siteBase(site)}dvu:${day}:${dim}:${jsonKey}`

  /** `prefix{o:owner}:`: the start of the owner's keys. */
  readonly ownerBase = (owner: string): string => `${this.tag('o', owner)}:`
  readonly created = (owner: string): string => `${this.ownerBase(owner)}created`
  readonly modified = (owner: string): string => `${this.ownerBase(owner)}modified`
  readonly externalUid = (owner: string, uid: string): string => `${this.ownerBase(owner)}xuid:${uid}`
  readonly charges = (owner: string): string => `${this.ownerBase(owner)}charges`
  readonly subscriptions = (owner: string): string => `${this.ownerBase(owner)}subs`
  readonly ownerDays = (owner: string): string => `${this.ownerBase(owner)}odays`
  readonly rank = (day: string, owner: string): string => `${this.ownerBase(owner)}rank:${day}`

  // An account's keys, under {a:account}.
  readonly account = (name: string): string => `${this.tag('a', name)}:acct`
  readonly accountGrants = (account: string): string => `${this.tag('a', account)}:grants`
  /** Kept with the account's side of each grant (accounts.ts). */
  readonly grantPermissions = (account: string): string => `${this.tag('a', account)}:gperm`

  /** A scratch key in the slot of `base` (a key or key start) that one step writes and deletes. */
  scratch(name: string, base = `${this.prefix}{tmp}:`): string {
    return `${base}tmp:${name}`
  }
}
