/**
 * RedisStore's state operations (clear, export, import) for the test-double
 * controls. They walk the store's key prefix with SCAN, so they cost time in
 * proportion to the state: fine for a test double, not for a hot path.
 *
 * Import is all or nothing on a single Redis: the names it needs are WATCHed
 * and checked, and every write goes in one MULTI/EXEC. On a cluster the
 * checks come first and the writes go in one MULTI per slot (spread.ts): a
 * concurrent change between them is not detected. Visitors are exported as the
 * HyperLogLogs themselves (base64), which only a RedisStore can import; exact
 * visitor ids from another store are added with PFADD.
 */
import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { ACTIVITY_KINDS } from '../../../types/index.js'
import type {
  AccountRecord,
  AnalyticsCellDump,
  AnalyticsDayDump,
  MasterRecord,
  SiteRecord,
  StateDump,
  VisitorsDump,
} from '../contract/index.js'
import { OTHER, StateConflictError } from '../contract/index.js'
import { zeroActivities } from '../shared/analytics-rows.js'
import type { StateStore } from '../contract/state.js'
import { checkDump, referencedNames } from '../shared/dump-checks.js'
import { foldName } from '../shared/name-fold.js'
import { byText } from '../shared/order.js'
import type { RedisClient, RedisConn } from './conn.js'
import { decodeFields, encodeFields } from './hash-fields.js'
import type { RedisKeys } from './keys.js'
import { DIMENSION_FIELD, packCounters, unpackCounters } from './analytics-read.js'
import { VISITORS_INTO_FIELD } from './lua/analytics.js'
import { globLiteral, readPipe, scanKeys, tagOf, untag, writeMulti } from './cross-slot-batches.js'

const DIMENSIONS = ['system', 'geo'] as const

type Multi = ReturnType<Redis['multi']>

/** Runs a pipeline and returns its replies, throwing the first command error. */
async function replies(pipeline: ReturnType<Redis['pipeline']>): Promise<unknown[]> {
  const results = (await pipeline.exec()) ?? []
  return results.map(([error, value]) => {
    if (error) throw error
    return value
  })
}

/** The state methods of the Store contract, on Redis. */
export function redisState(conn: RedisConn, k: RedisKeys): StateStore {
  return {
    /** UNLINKs every key under the prefix. */
    clearState() {
      return conn.call(async (c) => {
        const bySlot = new Map<string, string[]>()
        for (const key of await scanKeys(c, `${globLiteral(k.prefix)}*`)) {
          const tag = tagOf(key)
          bySlot.set(tag, [...(bySlot.get(tag) ?? []), key])
        }
        for (const keys of bySlot.values()) {
          for (let i = 0; i < keys.length; i += 500) await c.unlink(...keys.slice(i, i + 500))
        }
      })
    },

    /** Visitors come out as HyperLogLogs (`visitors_sketch`), which only a RedisStore imports. */
    exportState() {
      return conn.call((c) => exportAll(c, k))
    },

    async importState(dump) {
      // Problems come back as a value: conn.call reports any error it sees as an outage.
      const problems = await conn.call(async (c) => {
        for (let attempt = 0; attempt < 5; attempt++) {
          const outcome = await tryImport(c, k, dump)
          if (outcome !== 'changed') return outcome
          // Another client changed a watched key between the check and EXEC: check again.
        }
        return ['the store kept changing during the import; try again']
      })
      if (problems.length > 0) throw new StateConflictError(problems)
    },
  }
}

async function exportAll(c: RedisClient, k: RedisKeys): Promise<StateDump> {
  const P = k.prefix
  /** The names in tags of `kind` whose key ends with `rest`. */
  const names = async (kind: string, rest: string): Promise<string[]> => {
    const start = `${P}{${kind}:`
    const found = await scanKeys(c, `${globLiteral(start)}*}${rest}`)
    return found.filter((key) => key.indexOf('}', start.length) === key.length - rest.length - 1).map(untag)
  }
  const masterNames = await names('m', '')
  const siteNames = await names('s', ':site')
  const accountNames = await names('a', ':acct')
  const grantAccounts = await names('a', ':grants')
  const chargeOwners = await names('o', ':charges')
  const subOwners = await names('o', ':subs')
  const p = readPipe(c)
  for (const n of masterNames) p.get(k.master(n))
  for (const n of siteNames) p.hgetall(k.site(n))
  for (const n of accountNames) p.hgetall(k.account(n))
  for (const n of grantAccounts) p.smembers(k.accountGrants(n)).hgetall(k.grantPermissions(n))
  const owners = [...new Set([...chargeOwners, ...subOwners])]
  for (const n of owners) p.lrange(k.charges(n), 0, -1).lrange(k.subscriptions(n), 0, -1)
  const r = await replies(p)
  let i = 0
  const masters = masterNames.map(() => JSON.parse(r[i++] as string) as MasterRecord)
  const hash = (value: unknown) => decodeFields(Object.entries(value as object).flat())
  const sites = siteNames.map(() => hash(r[i++]) as SiteRecord)
  const accounts = accountNames.map(() => hash(r[i++]) as AccountRecord)
  const granted = grantAccounts.flatMap((account_name) => {
    const sites = r[i++] as string[]
    const permissions = r[i++] as Record<string, string>
    return sites.map((site_name): StateDump['grants'][number] => {
      const json = Object.hasOwn(permissions, site_name) ? permissions[site_name] : undefined
      return json === undefined
        ? { account_name, site_name }
        : { account_name, site_name, permissions: JSON.parse(json) as string[] }
    })
  })
  const billing = owners.map((owner) => ({
    owner,
    charges: (r[i++] as string[]).map((j) => JSON.parse(j)),
    subscriptions: (r[i++] as string[]).map((j) => JSON.parse(j)),
  }))
  // A grant holds when the site's side has it too (accounts.ts).
  const q = readPipe(c)
  for (const g of granted) q.sismember(k.siteGrants(g.site_name), g.account_name)
  const held = await replies(q)
  const grants = granted.filter((_, n) => held[n] === 1)
  return {
    masters: masters.sort(byText((m) => m.user)),
    sites: sites.sort(byText((s) => s.site_name)),
    accounts: accounts.sort(byText((a) => a.account_name)),
    grants: grants.sort(byText((g) => JSON.stringify([g.account_name, g.site_name]))),
    billing: billing.sort(byText((b) => b.owner)),
    analytics: await exportAnalytics(c, k),
  }
}

async function exportAnalytics(c: RedisClient, k: RedisKeys): Promise<AnalyticsDayDump[]> {
  const out: AnalyticsDayDump[] = []
  const start = `${k.prefix}{s:`
  const sites = (await scanKeys(c, `${globLiteral(start)}*}:aowner`))
    .filter((key) => key.indexOf('}', start.length) === key.length - ':aowner'.length - 1)
    .map(untag)
    .sort()
  for (const site of sites) {
    for (const day of await c.zrange(k.siteDays(site), 0, -1)) {
      const [counters, dayu, sketches] = (await replies(
        c
          .pipeline()
          .hgetall(k.day(day, site))
          .getBuffer(k.dayVisitors(day, site))
          .hgetallBuffer(k.dayValues(day, site)),
      )) as [Record<string, string>, Buffer | null, Record<string, Buffer>]
      const dump: AnalyticsDayDump = {
        site_name: site,
        day,
        visits: Number(counters.visits ?? 0),
        page_views: Number(counters.page_views ?? 0),
        activities: zeroActivities(),
        system: exportCells(DIMENSION_FIELD.system, counters, sketches),
        geo: exportCells(DIMENSION_FIELD.geo, counters, sketches),
      }
      for (const kind of ACTIVITY_KINDS) dump.activities[kind] = Number(counters[kind] ?? 0)
      if (dayu) dump.visitors_sketch = dayu.toString('base64')
      out.push(dump)
    }
  }
  return out
}

/** The cells of one dimension (field prefix `prefix`) of a day hash, with their HyperLogLogs. */
function exportCells(
  prefix: string,
  counters: Record<string, string>,
  sketches: Record<string, Buffer>,
): AnalyticsCellDump[] {
  const cells: AnalyticsCellDump[] = []
  for (const [field, packed] of Object.entries(counters)) {
    if (!field.startsWith(prefix)) continue
    const [visits = 0, page_views = 0, ...kinds] = unpackCounters(packed)
    const cell: AnalyticsCellDump = {
      key: JSON.parse(field.slice(prefix.length)) as [string, string],
      visits,
      page_views,
      activities: zeroActivities(),
    }
    ACTIVITY_KINDS.forEach((kind, i) => {
      cell.activities[kind] = kinds[i] ?? 0
    })
    const sketch = sketches[field]
    if (visits > 0 && sketch) cell.visitors_sketch = sketch.toString('base64')
    cells.push(cell)
  }
  return cells.sort(byText((cell) => JSON.stringify(cell.key)))
}

/** The problems (nothing written), none (all written), or 'changed' (a watched key moved: nothing written). */
async function tryImport(c: RedisClient, k: RedisKeys, dump: StateDump): Promise<string[] | 'changed'> {
  const refs = referencedNames(dump)
  const owners = [...new Set(dump.billing.map((ledger) => ledger.owner))]
  const siteFolded = dump.sites.map((site) => foldName(site.site_name))
  const accountFolded = dump.accounts.map((account) => foldName(account.account_name))
  const watched = [
    ...refs.sites.map((n) => k.site(n)),
    ...refs.accounts.map((n) => k.account(n)),
    ...owners.map((o) => k.subscriptions(o)),
    ...siteFolded.map((f) => k.siteClaim(f)),
    ...accountFolded.map((f) => k.accountClaim(f)),
  ]
  const watching = watched.length > 0 && c instanceof Redis
  if (watching) await c.watch(...watched)
  try {
    const p = readPipe(c)
    for (const n of refs.sites) p.hget(k.site(n), 'owner')
    for (const n of refs.accounts) p.hget(k.account(n), 'owner')
    for (const o of owners) p.llen(k.subscriptions(o))
    for (const f of siteFolded) p.hget(k.siteClaim(f), 'name')
    for (const f of accountFolded) p.hget(k.accountClaim(f), 'name')
    const r = await replies(p)
    let at = refs.sites.length + refs.accounts.length + owners.length
    // A claim counts only while its holder exists (claims.ts).
    const claimsOf = async (folded: string[], record: (name: string) => string) => {
      const holders = folded.map(() => r[at++] as string | null)
      const q = readPipe(c)
      for (const h of holders) if (h !== null) q.exists(record(h))
      const found = await replies(q)
      let n = 0
      return new Map(folded.flatMap((f, i) => (holders[i] !== null && found[n++] === 1 ? [[f, holders[i]!]] : [])))
    }
    const siteFolds = await claimsOf(siteFolded, (n) => k.site(n))
    const accountFolds = await claimsOf(accountFolded, (n) => k.account(n))
    const found = (names: string[], offset: number) =>
      new Map(
        names.flatMap((n, i) =>
          r[offset + i] === null ? [] : [[n, JSON.parse(r[offset + i] as string) as string] as const],
        ),
      )
    const existing = {
      sites: found(refs.sites, 0),
      accounts: found(refs.accounts, refs.sites.length),
      siteFolds,
      accountFolds,
    }
    const subLengths = new Map(owners.map((o, i) => [o, Number(r[refs.sites.length + refs.accounts.length + i])]))
    const { problems, siteOwners } = checkDump(dump, existing, true)
    problems.push(...(await badSketches(c, k, dump)))
    if (problems.length > 0) return problems
    const m = writeMulti(c)
    writeRecords(m, k, dump, siteOwners, subLengths)
    for (const day of dump.analytics) writeDay(m, k, day, siteOwners.get(day.site_name)!)
    return (await m.exec()) === null ? 'changed' : []
  } finally {
    if (watching) await (c as Redis).unwatch()
  }
}

/** Sketches Redis would refuse: each is tried as a HyperLogLog in a scratch key first. */
async function badSketches(c: RedisClient, k: RedisKeys, dump: StateDump): Promise<string[]> {
  const checks: [string, string][] = []
  for (const day of dump.analytics) {
    for (const cell of [day, ...day.system, ...day.geo] as VisitorsDump[]) {
      if (cell.visitors_sketch !== undefined)
        checks.push([`analytics of ${day.site_name} on ${day.day}`, cell.visitors_sketch])
    }
  }
  if (checks.length === 0) return []
  const scratch = k.scratch(`check:${randomBytes(8).toString('hex')}`)
  const problems: string[] = []
  for (const [where, sketch] of checks) {
    const bytes = Buffer.from(sketch, 'base64')
    if (bytes.subarray(0, 4).toString('latin1') !== 'HYLL') {
      problems.push(`${where}: visitors_sketch is not a Redis HyperLogLog`)
      continue
    }
    try {
      await c.set(scratch, bytes)
      await c.pfcount(scratch)
    } catch {
      problems.push(`${where}: visitors_sketch is a damaged HyperLogLog`)
    }
  }
  await c.unlink(scratch)
  return problems
}

function writeRecords(
  m: Multi,
  k: RedisKeys,
  dump: StateDump,
  siteOwners: Map<string, string>,
  subLengths: Map<string, number>,
): void {
  for (const master of dump.masters) m.set(k.master(master.user), JSON.stringify(master))
  for (const site of dump.sites) {
    const claim = k.siteClaim(foldName(site.site_name))
    m.hset(k.site(site.site_name), ...encodeFields(site), '#obase', k.ownerBase(site.owner), '#claim', '0')
    m.hset(claim, 'name', site.site_name, 'at', '0')
    m.zadd(k.created(site.owner), site.created_at, site.site_name)
    m.zadd(k.modified(site.owner), site.modified_at, site.site_name)
    if (site.external_uid !== undefined) {
      const xkey = k.externalUid(site.owner, site.external_uid)
      m.zadd(xkey, site.created_at, site.site_name)
      m.hset(k.site(site.site_name), '#xkey', xkey)
    }
  }
  for (const account of dump.accounts) {
    m.hset(k.account(account.account_name), ...encodeFields(account), '#claim', '0')
    m.hset(k.accountClaim(foldName(account.account_name)), 'name', account.account_name, 'at', '0')
  }
  for (const { account_name, site_name, permissions } of dump.grants) {
    m.sadd(k.accountGrants(account_name), site_name)
    m.sadd(k.siteGrants(site_name), account_name)
    if (permissions !== undefined) m.hset(k.grantPermissions(account_name), site_name, JSON.stringify(permissions))
  }
  for (const { owner, charges, subscriptions } of dump.billing) {
    for (const charge of charges) m.rpush(k.charges(owner), JSON.stringify(charge))
    let index = subLengths.get(owner) ?? 0
    for (const subscription of subscriptions) {
      m.rpush(k.subscriptions(owner), JSON.stringify(subscription))
      // The live subscription of a site that exists: Delete Site must cancel it.
      if (subscription.status === 'active' && siteOwners.get(subscription.site_name) === owner) {
        m.hset(k.site(subscription.site_name), '#sub', index)
      }
      index++
    }
  }
}

function writeDay(m: Multi, k: RedisKeys, day: AnalyticsDayDump, owner: string): void {
  const site = day.site_name
  const d = day.day
  const ownerJson = JSON.stringify(owner)
  const scratch = k.scratch('load', k.siteBase(site))
  const visitors = (key: string, cell: VisitorsDump): void => {
    if (cell.visitors !== undefined) {
      if (cell.visitors.length > 0) m.pfadd(key, ...cell.visitors)
    } else if (cell.visitors_sketch !== undefined) {
      m.set(scratch, Buffer.from(cell.visitors_sketch, 'base64'))
      m.pfmerge(key, scratch)
      m.del(scratch)
    }
  }
  m.set(k.analyticsOwner(site), ownerJson)
  const dk = k.day(d, site)
  if (day.visits > 0) m.hincrby(dk, 'visits', day.visits)
  if (day.page_views > 0) m.hincrby(dk, 'page_views', day.page_views)
  for (const kind of ACTIVITY_KINDS) if (day.activities[kind] > 0) m.hincrby(dk, kind, day.activities[kind])
  // Without a day-level list the day's visitors are those of its system cells, as in MemoryStore.
  if (day.visitors !== undefined || day.visitors_sketch !== undefined) visitors(k.dayVisitors(d, site), day)
  else for (const cell of day.system) visitors(k.dayVisitors(d, site), cell)
  const du = k.dayValues(d, site)
  for (const dimension of DIMENSIONS) {
    // The cap counts the values a day holds (RECORD_EVENTS): imported ones too.
    const counted = day[dimension].filter((cell) => cell.key.some((part) => part !== OTHER)).length
    if (counted > 0) m.hincrby(dk, dimension === 'system' ? 'nsys' : 'ngeo', counted)
    for (const cell of day[dimension]) {
      const field = DIMENSION_FIELD[dimension] + JSON.stringify(cell.key)
      m.hset(
        dk,
        field,
        packCounters([cell.visits, cell.page_views, ...ACTIVITY_KINDS.map((kind) => cell.activities[kind])]),
      )
      if (cell.visits === 0) continue
      if (cell.visitors !== undefined) {
        m.eval(VISITORS_INTO_FIELD.lua, 2, du, scratch, field, 'ids', ...cell.visitors)
      } else if (cell.visitors_sketch !== undefined) {
        m.eval(VISITORS_INTO_FIELD.lua, 2, du, scratch, field, 'sketch', Buffer.from(cell.visitors_sketch, 'base64'))
      }
    }
  }
  m.zadd(k.siteDays(site), 0, d)
  if (day.visits > 0) {
    m.zadd(k.ownerDays(owner), 0, d)
    m.zincrby(k.rank(d, owner), day.visits, site)
  }
}
