/**
 * The one-time migration of a single Redis written by mobisite before the
 * hash-tagged key layout (keys.ts) to that layout:
 *
 * ```ts
 * import { Redis } from 'ioredis'
 * import { migrateRedisLayout } from 'mobisite/redis'
 * await migrateRedisLayout(new Redis('redis://127.0.0.1:6379'), { prefix: 'mobisite:' })
 * ```
 *
 * Run it once, with every mobisite process on that Redis stopped, before
 * starting the new version. Each old key is RENAMEd to its new name (TTLs
 * kept); the global fold hashes become one name claim per name, the global
 * analytics-owner hash one key per site, and site hashes gain the
 * bookkeeping fields the new layout reads (`#obase`, `#claim`, the new
 * `#xkey`). Keys already in the new layout are left alone, so a second run
 * changes nothing. To move onto a Redis Cluster, migrate on the single Redis,
 * then copy the keys (for example with `redis-cli --cluster import`).
 *
 * It also folds the site-days of the release before compact site-days (a
 * hash per dimension and a HyperLogLog key per dimension value) into the
 * three keys a site-day is now (lua/analytics.ts, RECORD_EVENTS), on a
 * single Redis or a Redis Cluster (a `Cluster` client: only this part runs).
 */
import { Redis } from 'ioredis'
import type { RedisClient } from './conn.js'
import { DIMENSION_FIELD, PACKED_METRICS, packCounters, unpackCounters } from './analytics-read.js'
import { RedisKeys } from './keys.js'
import { VISITORS_INTO_FIELD } from './lua/analytics.js'
import { globLiteral, scanKeys } from './cross-slot-batches.js'

/** Options of {@link migrateRedisLayout}. */
export interface MigrateOptions {
  /** The key prefix the store used (MOBISITE_REDIS_PREFIX). Default `mobisite:`. */
  prefix?: string
}

/** What {@link migrateRedisLayout} did. */
export interface MigrateReport {
  /** Old keys renamed to their new names. */
  renamed: number
  /** Name claims written from the old fold hashes. */
  claims: number
  /** Old keys dropped (scratch keys and the global hashes once split). */
  dropped: number
  /** Per-dimension hashes of a day folded into the day's fields (the layout before compact site-days). */
  folded: number
}

const DAY = /^\d{4}-\d{2}-\d{2}$/

/** Reads a `<byte length>:<text>` field at the start of `rest`: [text, what follows its ':'] or undefined. */
function lengthPrefixed(rest: string): [string, string] | undefined {
  const colon = rest.indexOf(':')
  const len = Number(rest.slice(0, colon))
  if (colon < 1 || !Number.isInteger(len)) return undefined
  const bytes = Buffer.from(rest.slice(colon + 1))
  if (bytes.length < len + 1 || bytes[len] !== 0x3a) return undefined
  return [bytes.subarray(0, len).toString(), bytes.subarray(len + 1).toString()]
}

/** The new name of an old key (`namespace:rest`), or undefined when it is not one to rename. */
function newName(k: RedisKeys, ns: string, rest: string): string | undefined {
  const owner = (json: string) => JSON.parse(json) as string
  switch (ns) {
    case 'master':
      return k.master(rest)
    case 'site':
      return k.site(rest)
    case 'acct':
      return k.account(rest)
    case 'created':
      return k.created(rest)
    case 'modified':
      return k.modified(rest)
    case 'charges':
      return k.charges(rest)
    case 'subs':
      return k.subscriptions(rest)
    case 'gsite':
      return k.siteGrants(rest)
    case 'gacct':
      return k.accountGrants(rest)
    case 'limit':
      return k.limit(rest)
    case 'ssotok':
      return k.ssoToken(rest)
    case 'sess':
      return k.session(rest)
    case 'days':
      return k.siteDays(rest)
    case 'odays':
      return k.ownerDays(owner(rest))
    case 'xuid': {
      const parsed = lengthPrefixed(rest)
      return parsed && k.externalUid(parsed[0], parsed[1])
    }
  }
  const day = rest.slice(0, 10)
  const after = rest.slice(11)
  if (!DAY.test(day) || rest[10] !== ':') return undefined
  switch (ns) {
    case 'day':
      return k.day(day, after)
    case 'dayu':
      return k.dayVisitors(day, after)
    case 'rank':
      return k.rank(day, owner(after))
    case 'dv':
      return k.legacyDimension(day, after.slice(0, 3), after.slice(4))
    case 'dvu': {
      const parsed = lengthPrefixed(after.slice(4))
      return parsed && k.legacyDimensionVisitors(day, after.slice(0, 3), parsed[0], parsed[1])
    }
  }
  return undefined
}

/**
 * Moves the data of a single Redis from the previous key layout to the
 * hash-tagged one (see the file comment). Run with the store's processes stopped.
 */
export async function migrateRedisLayout(client: RedisClient, options: MigrateOptions = {}): Promise<MigrateReport> {
  const k = new RedisKeys(options.prefix ?? 'mobisite:')
  const P = k.prefix
  const report: MigrateReport = { renamed: 0, claims: 0, dropped: 0, folded: 0 }
  // A cluster only ever held the tagged layout: only its site-days need folding.
  if (!(client instanceof Redis)) {
    report.folded = await foldDimensionHashes(client, P)
    return report
  }
  for (const key of await scanKeys(client, `${globLiteral(P)}*`)) {
    const rest = key.slice(P.length)
    if (rest.startsWith('{')) continue // the new layout already
    const colon = rest.indexOf(':')
    const ns = colon < 0 ? rest : rest.slice(0, colon)
    const tail = colon < 0 ? '' : rest.slice(colon + 1)
    if (ns === 'sfold' || ns === 'afold') {
      const folds = await client.hgetall(key)
      const m = client.multi()
      for (const [folded, name] of Object.entries(folds)) {
        m.hset(ns === 'sfold' ? k.siteClaim(folded) : k.accountClaim(folded), 'name', name, 'at', '0')
        report.claims++
      }
      await m.del(key).exec()
      report.dropped++
    } else if (ns === 'aowner') {
      const owners = await client.hgetall(key)
      const m = client.multi()
      for (const [site, ownerJson] of Object.entries(owners)) m.set(k.analyticsOwner(site), ownerJson)
      await m.del(key).exec()
      report.dropped++
    } else if (ns === 'tmp') {
      await client.del(key)
      report.dropped++
    } else {
      const to = newName(k, ns, tail)
      if (to === undefined) continue
      await client.rename(key, to)
      report.renamed++
      if (ns === 'site') await completeSite(client, k, to)
      if (ns === 'acct') await client.hset(to, '#claim', '0')
    }
  }
  report.folded = await foldDimensionHashes(client, P)
  return report
}

/** `<site base>dv:<day>:<sys|geo>`: a day's per-dimension hash in the layout before compact site-days. */
const LEGACY_DIMENSION = /^(.*\}:)dv:(\d{4}-\d{2}-\d{2}):(sys|geo)$/

/**
 * Moves each day's per-dimension hashes (`dv:<day>:<dim>`, fields
 * `<metric>:<JSON key>`) and per-value HyperLogLogs (`dvu:…`) into the
 * compact site-day (lua/analytics.ts, RECORD_EVENTS): packed counters in the
 * day hash, HyperLogLogs merged into the `du:<day>` hash. Answers how many
 * hashes moved.
 */
async function foldDimensionHashes(client: RedisClient, P: string): Promise<number> {
  const glob = `${globLiteral(P)}{s:*}:dv:*`
  let folded = 0
  for (const key of await scanKeys(client, glob)) {
    const parsed = LEGACY_DIMENSION.exec(key)
    if (!parsed) continue
    const [, base, day, dim] = parsed as unknown as [string, string, string, 'sys' | 'geo']
    await foldDay(client, base, day, dim)
    folded++
  }
  return folded
}

async function foldDay(client: RedisClient, base: string, day: string, dim: 'sys' | 'geo'): Promise<void> {
  const dk = `${base}day:${day}`
  const du = `${base}du:${day}`
  const legacy = `${base}dv:${day}:${dim}`
  const prefix = DIMENSION_FIELD[dim === 'sys' ? 'system' : 'geo']
  const cells = new Map<string, number[]>()
  for (const [field, value] of Object.entries(await client.hgetall(legacy))) {
    const colon = field.indexOf(':')
    const metric = PACKED_METRICS.indexOf(field.slice(0, colon) as (typeof PACKED_METRICS)[number])
    if (colon < 0 || metric < 0) continue
    const jk = field.slice(colon + 1)
    const counts = cells.get(jk) ?? PACKED_METRICS.map(() => 0)
    counts[metric]! += Number(value)
    cells.set(jk, counts)
  }
  const ttl = await client.pttl(legacy)
  for (const [jk, counts] of cells) {
    const field = prefix + jk
    const known = await client.hget(dk, field)
    const sum = known === null ? counts : unpackCounters(known).map((n, i) => n + counts[i]!)
    await client.hset(dk, field, packCounters(sum))
    const hll = `${base}dvu:${day}:${dim}:${jk}`
    const sketch = await client.getBuffer(hll)
    if (sketch) await client.eval(VISITORS_INTO_FIELD.lua, 2, du, `${base}tmp:migrate`, field, 'sketch', sketch)
    await client.del(hll)
  }
  if (ttl > 0) await client.pexpire(du, ttl)
  await client.del(legacy)
}

/** Gives a moved site hash the bookkeeping the new layout reads. */
async function completeSite(client: Redis, k: RedisKeys, key: string): Promise<void> {
  const [owner, uid] = await client.hmget(key, 'owner', 'external_uid')
  if (owner == null) return
  const o = JSON.parse(owner) as string
  const fields = ['#obase', k.ownerBase(o), '#claim', '0']
  if (uid != null) fields.push('#xkey', k.externalUid(o, JSON.parse(uid) as string))
  await client.hset(key, ...fields)
}
