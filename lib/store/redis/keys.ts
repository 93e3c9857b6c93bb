/**
 * Key layout of RedisStore. Every key is `prefix + namespace + ':' + rest`
 * (or just `prefix + namespace`, like `aowner`); a namespace never contains
 * ':', so namespaces cannot collide, and inside a namespace at most one
 * variable part is unbounded (it comes last) or the earlier one is
 * length-prefixed, so two different inputs never share a key.
 *
 * | key                                   | type   | holds                                       |
 * |---------------------------------------|--------|---------------------------------------------|
 * | master:<user>                         | string | MasterRecord JSON                           |
 * | site:<name>                           | hash   | SiteRecord fields, each JSON-encoded; `#xkey` (its external-uid index key), `#sub` (its subscription's list index) |
 * | acct:<name>                           | hash   | AccountRecord fields, each JSON-encoded     |
 * | created:<owner> / modified:<owner>    | zset   | site names scored by created_at / modified_at |
 * | xuid:<len(owner)>:<owner>:<uid>       | zset   | the owner's sites with that external_uid, scored by created_at |
 * | charges:<owner> / subs:<owner>        | list   | billing ledger entries, JSON                |
 * | gsite:<site> / gacct:<account>        | set    | grants, both directions                     |
 * | gperm:<account>                       | hash   | site → its grant's permissions (JSON); none: every permission |
 * | limit:<key>                           | string | incrementWithinLimit counter                |
 * | sfold / afold                         | hash   | folded (lower-case) site / account name → the name in use |
 * | aowner                                | hash   | site name → the owner its analytics belong to (JSON) |
 * | days:<site>, odays:<owner JSON>       | zset   | days with analytics (lexicographic)         |
 * | day:<day>:<site>                      | hash   | the site-day counters                       |
 * | dayu:<day>:<site>                     | HLL    | the site-day visitors                       |
 * | dv:<day>:<dim>:<site>                 | hash   | `<metric>:<JSON key>` counters per dimension value |
 * | dvu:<day>:<dim>:<len(site)>:<site>:<JSON key> | HLL | visitors per dimension value         |
 * | rank:<day>:<owner JSON>               | zset   | the owner's sites scored by the day's visits |
 * | ssotok:<digest> / sess:<digest>       | hash   | SSO tokens and sessions: `grant` (SsoGrant JSON), `expires_at` (engine ms) |
 *
 * Records are kept as described in hash-fields.ts. Analytics keys are built
 * inside the Lua scripts (lua/analytics.ts), and read by an export (state.ts).
 */

/** Builds the keys RedisStore computes on the client side. */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  master(user: string): string {
    return `${this.prefix}master:${user}`
  }
  site(name: string): string {
    return `${this.prefix}site:${name}`
  }
  account(name: string): string {
    return `${this.prefix}acct:${name}`
  }
  created(owner: string): string {
    return `${this.prefix}created:${owner}`
  }
  modified(owner: string): string {
    return `${this.prefix}modified:${owner}`
  }
  externalUid(owner: string, uid: string): string {
    return `${this.prefix}xuid:${Buffer.byteLength(owner)}:${owner}:${uid}`
  }
  charges(owner: string): string {
    return `${this.prefix}charges:${owner}`
  }
  subscriptions(owner: string): string {
    return `${this.prefix}subs:${owner}`
  }
  siteGrants(site: string): string {
    return `${this.prefix}gsite:${site}`
  }
  accountGrants(account: string): string {
    return `${this.prefix}gacct:${account}`
  }
  grantPermissions(account: string): string {
    return `${this.prefix}gperm:${account}`
  }
  limit(key: string): string {
    return `${this.prefix}limit:${key}`
  }
  siteFolds(): string {
    return `${this.prefix}sfold`
  }
  accountFolds(): string {
    return `${this.prefix}afold`
  }
  ssoToken(digest: string): string {
    return `${this.prefix}ssotok:${digest}`
  }
  session(digest: string): string {
    return `${this.prefix}sess:${digest}`
  }

  // Analytics keys, for an export or import (the scripts in lua/analytics.ts build the same in Lua).
  analyticsOwners(): string {
    return `${this.prefix}aowner`
  }
  siteDays(site: string): string {
    return `${this.prefix}days:${site}`
  }
  ownerDays(ownerJson: string): string {
    return `${this.prefix}odays:${ownerJson}`
  }
  day(day: string, site: string): string {
    return `${this.prefix}day:${day}:${site}`
  }
  dayVisitors(day: string, site: string): string {
    return `${this.prefix}dayu:${day}:${site}`
  }
  dimension(day: string, dim: string, site: string): string {
    return `${this.prefix}dv:${day}:${dim}:${site}`
  }
  dimensionVisitors(day: string, dim: string, site: string, jsonKey: string): string {
    return `${this.prefix}dvu:${day}:${dim}:${Buffer.byteLength(site)}:${site}:${jsonKey}`
  }
  rank(day: string, ownerJson: string): string {
    return `${this.prefix}rank:${day}:${ownerJson}`
  }
  /** A scratch key a state operation writes and deletes in the same step. */
  scratch(name: string): string {
    return `${this.prefix}tmp:${name}`
  }
}
