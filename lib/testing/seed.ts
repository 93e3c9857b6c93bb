/**
 * Seed and snapshot: the store's state dump in the shape of a seed body
 * (DESIGN's "the whole state as a seed body"), and a seed body checked in
 * full, every problem listed, then applied all or nothing.
 */
import type { SiteProperties } from '../../types/index.js'
import type { EngineContext } from '../engine/context.js'
import { parseDateInput } from '../engine/shared/dates.js'
import { uuidFrom } from '../engine/shared/random.js'
import { propertiesFrom } from '../engine/rules/sites.js'
import type { Engine } from '../engine/types.js'
import { ServiceError } from '../errors.js'
import { seedEntryValidators, seedSchema, seedSections, validateSeedShape, type SeedSite } from '../schema/seed.js'
import { allProblems } from '../schema/validate.js'
import { validateCreateSite } from '../schema/sites.js'
import type {
  AnalyticsDayDump,
  MasterRecord,
  SiteActivityEntry,
  SiteRecord,
  StateDump,
} from '../store/contract/index.js'
import { StateConflictError } from '../store/contract/index.js'
import { accountEntry, HASH_PREFIX, ledgerEntry, masterEntry, siteEntry, TIME_FIELDS } from './snapshot-entries.js'

/** A seed body; `GET /__admin/snapshot` answers one. */
export interface SeedBody {
  masters?: ({ user: string; partner?: boolean } & ({ password: string } | { password_hash: string }))[]
  sites?: Record<string, unknown>[]
  accounts?: Record<string, unknown>[]
  /** `permissions` absent: every permission (a Grant Access grant). */
  grants?: { owner: string; account_name: string; site_name: string; permissions?: string[] }[]
  visits?: Record<string, unknown>[]
  activities?: Record<string, unknown>[]
  billing?: {
    owner: string
    charges?: { site_name: string; at: string }[]
    subscriptions?: { site_name: string; status: 'active' | 'cancelled' }[]
  }[]
  analytics?: AnalyticsDayDump[]
  /**
   * Freezes the clock at this time before any record is made, so every
   * default date of the body (creation, publication, visits without `at`)
   * is this one: `"2026-03-01T09:30:00Z"` or any "Dates in" form.
   */
  clock?: string
}

function unhash(value: string): Record<string, unknown> | undefined {
  if (!value.startsWith(HASH_PREFIX)) return undefined
  try {
    const secret = JSON.parse(Buffer.from(value.slice(HASH_PREFIX.length), 'base64url').toString()) as unknown
    return typeof secret === 'object' && secret !== null && !Array.isArray(secret)
      ? (secret as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/** A snapshot time: "Dates in" or a full ISO time with milliseconds and Z. */
export function timeOf(value: string, name: string): number {
  const m = RFC3339.exec(value)
  // Without fraction or offset: the engine's own date forms (UTC).
  if (m === null || (m[7] === undefined && m[8] === undefined)) return parseDateInput(value, name)
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number]
  const base = Date.UTC(y, mo - 1, d, h, mi, s)
  const back = new Date(base)
  const offset = m[8] === undefined || /z/i.test(m[8]) ? 0 : offsetMinutes(m[8])
  if (
    back.getUTCFullYear() !== y ||
    back.getUTCMonth() !== mo - 1 ||
    back.getUTCDate() !== d ||
    back.getUTCHours() !== h ||
    back.getUTCMinutes() !== mi ||
    back.getUTCSeconds() !== s ||
    offset === undefined
  ) {
    throw new ServiceError('InvalidInput', `${name} is not a real date: ${value}`)
  }
  // Milliseconds: the first three digits of the fraction (finer ones are dropped).
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'))
  return base + ms - offset * 60_000
}

/** RFC 3339 date-time: fraction (7) and offset (8) optional. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})?$/

/** `+hh:mm` / `-hh:mm` in minutes east of UTC; undefined when out of range. */
function offsetMinutes(offset: string): number | undefined {
  const hours = Number(offset.slice(1, 3))
  const minutes = Number(offset.slice(4, 6))
  if (hours > 23 || minutes > 59) return undefined
  return (offset[0] === '-' ? -1 : 1) * (hours * 60 + minutes)
}

/** The whole state as a seed body. */
export async function snapshot(ctx: EngineContext): Promise<SeedBody> {
  const dump = await ctx.store.exportState()
  const accountOwner = new Map(dump.accounts.map((a) => [a.account_name, a.owner]))
  return {
    masters: dump.masters.map(masterEntry),
    sites: dump.sites.map(siteEntry),
    accounts: dump.accounts.map(accountEntry),
    grants: dump.grants.map((g) => ({ owner: accountOwner.get(g.account_name)!, ...g })),
    billing: dump.billing.map(ledgerEntry),
    analytics: dump.analytics,
  }
}

/**
 * Replaces the first problem the precompiled validator reported for an entry
 * with all of the entry's problems.
 */
async function everyProblemOf(problems: Problems, where: string, schema: object, entry: unknown): Promise<void> {
  const all = await allProblems(schema, entry, 'entry')
  if (all.length === 0) return
  problems.list.pop()
  for (const problem of all)
    problems.list.push(`${where}: ${problem.replace(/^entry\b\.?/, '').replace(/^ /, '') || 'is invalid'}`)
}

/** Problems are collected, not thrown, so the caller hears about all of them. */
class Problems {
  readonly list: string[] = []
  check<T>(where: string, work: () => T): T | undefined {
    try {
      return work()
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error
      this.list.push(`${where}: ${error.message.replace(/^entry\b\.?/, '').replace(/^ /, '') || 'is invalid'}`)
      return undefined
    }
  }
}

/** The site properties of a seed entry (Create Site's rules), or of its `initial`. */
function propsOf(data: Record<string, unknown>): SiteProperties {
  const { site_data } = validateCreateSite({ site_data: data })
  return propertiesFrom(site_data)
}

function siteRecordOf(entry: SeedSite, now: number, where: string, problems: Problems): SiteRecord | undefined {
  const { owner, published, build, publish_when_built, initial, template_id, activity_log, ...rest } = entry
  const data: Record<string, unknown> = { ...rest }
  const times: Partial<Record<(typeof TIME_FIELDS)[number], number>> = {}
  for (const field of TIME_FIELDS) {
    const value = data[field]
    delete data[field]
    if (typeof value === 'string') {
      const ms = problems.check(where, () => timeOf(value, field))
      if (ms === undefined) return undefined
      times[field] = ms
    }
  }
  const props = problems.check(where, () => propsOf(data))
  const initialProps =
    initial === undefined
      ? props
      : problems.check(`${where}.initial`, () => propsOf(initial as Record<string, unknown>))
  if (props === undefined || initialProps === undefined) return undefined
  const created_at = times.created_at ?? now
  const record: SiteRecord = {
    ...props,
    site_name: entry.site_name as string,
    owner,
    initial: structuredClone(initialProps),
    created_at,
    modified_at: times.modified_at ?? created_at,
    build: build ?? 'built',
  }
  if (publish_when_built !== undefined) record.publish_when_built = publish_when_built
  for (const field of ['redirect_confirmed_at', 'cache_reset_at', 'unpublished_at'] as const)
    if (times[field] !== undefined) record[field] = times[field]
  if (template_id !== undefined) record.template_id = template_id
  if (activity_log !== undefined) {
    const log: SiteActivityEntry[] = []
    for (const [i, e] of activity_log.entries()) {
      const at = problems.check(`${where}.activity_log[${i}]`, () => timeOf(e.at, 'at'))
      if (at === undefined) return undefined
      log.push({ at, activity: e.activity })
    }
    record.activity_log = log
  }
  if (times.published_at !== undefined && published === false)
    problems.list.push(`${where}: published is false but published_at is given`)
  // `published: true` marks the site published without charging (charges come only from `billing`).
  if (published || times.published_at !== undefined) record.published_at = times.published_at ?? now
  const first = times.first_published_at ?? record.published_at
  if (first !== undefined) record.first_published_at = first
  return record
}

type Section = keyof typeof seedEntryValidators

/**
 * Seeds the engine's store: checks the whole body (listing every problem as
 * one InvalidInput), then imports it all or nothing, then adds masters given
 * with a password and records the visits and activities through the engine.
 */
export async function seed(
  engine: Engine,
  ctx: EngineContext,
  body: unknown,
  /** Freezes the engine clock; called with `clock` once the whole body is known to be valid. */
  freezeClock: (ms: number) => void,
): Promise<void> {
  let shape: Record<string, unknown[] | undefined>
  try {
    shape = validateSeedShape(body ?? {})
  } catch (error) {
    // Every shape problem at once, not the first one per round trip.
    if (error instanceof ServiceError) throw seedError(await allProblems(seedSchema, body ?? {}))
    throw error
  }
  const problems = new Problems()
  const entries = {} as { [K in Section]: ReturnType<(typeof seedEntryValidators)[K]>[] }
  // Each valid entry's place in the body, so later problems name the entry the caller wrote.
  const at = {} as Record<Section, number[]>
  for (const section of Object.keys(seedEntryValidators) as Section[]) {
    const valid: unknown[] = []
    at[section] = []
    for (const [i, entry] of (shape[section] ?? []).entries()) {
      const where = `${section}[${i}]`
      const value = problems.check(where, () => seedEntryValidators[section](entry))
      if (value !== undefined) {
        valid.push(value)
        at[section].push(i)
      } else await everyProblemOf(problems, where, seedSections[section], entry)
    }
    ;(entries as Record<Section, unknown[]>)[section] = valid
  }
  // The shape check passed, so clock is a date string when present.
  const clock = (body as { clock?: string } | undefined)?.clock
  const frozenAt = clock === undefined ? undefined : problems.check('clock', () => timeOf(clock, 'clock'))
  const now = frozenAt ?? ctx.now().getTime()
  const dump: StateDump = {
    masters: [],
    sites: [],
    accounts: [],
    grants: [],
    billing: [],
    analytics: entries.analytics as AnalyticsDayDump[],
  }
  const withPassword: { user: string; password: string; partner: boolean }[] = []
  const seededMasters = new Set<string>()
  entries.masters.forEach((m, i) => {
    const where = `masters[${at.masters[i]}]`
    seededMasters.add(m.user)
    if ((m.password === undefined) === (m.password_hash === undefined))
      problems.list.push(`${where}: give exactly one of password and password_hash`)
    else if (m.password !== undefined)
      withPassword.push({ user: m.user, password: m.password, partner: m.partner ?? false })
    else {
      const secret = unhash(m.password_hash!)
      if (secret === undefined) problems.list.push(`${where}: password_hash is not one a snapshot gave`)
      else dump.masters.push({ ...secret, user: m.user, partner: m.partner ?? false } as MasterRecord)
    }
  })
  const owners = new Set([...entries.sites, ...entries.accounts, ...entries.grants].map((e) => e.owner))
  for (const owner of owners) {
    if (!seededMasters.has(owner) && (await ctx.store.getMaster(owner)) === undefined)
      problems.list.push(`owner ${owner} is not a master account`)
  }
  entries.sites.forEach((entry, i) => {
    const record = siteRecordOf(entry, now, `sites[${at.sites[i]}]`, problems)
    if (record) dump.sites.push(record)
  })
  entries.accounts.forEach((entry, i) => {
    const { created_at, ...account } = entry
    const ms =
      created_at === undefined
        ? now
        : problems.check(`accounts[${at.accounts[i]}]`, () => timeOf(created_at, 'created_at'))
    if (ms !== undefined)
      dump.accounts.push({ ...account, created_at: ms, incarnation: account.incarnation ?? uuidFrom(ctx.randomBytes) })
  })
  const seededAccounts = new Map(dump.accounts.map((a) => [a.account_name, a.owner]))
  const seededSites = new Map(dump.sites.map((s) => [s.site_name, s.owner]))
  for (const [i, g] of entries.grants.entries()) {
    const accountOwner = seededAccounts.get(g.account_name) ?? (await ctx.store.getAccount(g.account_name))?.owner
    const siteOwner = seededSites.get(g.site_name) ?? (await ctx.store.getSite(g.site_name))?.owner
    if (accountOwner !== g.owner)
      problems.list.push(`grants[${at.grants[i]}]: ${g.owner} has no account ${g.account_name}`)
    if (siteOwner !== g.owner) problems.list.push(`grants[${at.grants[i]}]: ${g.owner} has no site ${g.site_name}`)
    dump.grants.push(
      g.permissions === undefined
        ? { account_name: g.account_name, site_name: g.site_name }
        : { account_name: g.account_name, site_name: g.site_name, permissions: [...g.permissions] },
    )
  }
  entries.billing.forEach((l, i) => {
    const charges = (l.charges ?? []).map((c, j) => ({
      site_name: c.site_name,
      at: problems.check(`billing[${at.billing[i]}].charges[${j}]`, () => timeOf(c.at, 'at')) ?? 0,
    }))
    dump.billing.push({ owner: l.owner, charges, subscriptions: l.subscriptions ?? [] })
  })
  const events = await checkEvents(
    ctx,
    entries.visits,
    entries.activities,
    new Set(dump.sites.map((s) => s.site_name)),
    problems,
    { visits: at.visits, activities: at.activities },
  )
  // Names taken in the store: listed here with the rest (importState checks again, atomically).
  const taken = await ctx.store.getSites(dump.sites.map((s) => s.site_name))
  taken.forEach((site, i) => site && problems.list.push(`sites: site ${dump.sites[i]!.site_name} already exists`))
  for (const account of dump.accounts) {
    if (await ctx.store.getAccount(account.account_name))
      problems.list.push(`accounts: account ${account.account_name} already exists`)
  }
  if (problems.list.length > 0) throw seedError(problems.list)
  // Before anything is written: the visits and masters below read the engine clock too.
  if (frozenAt !== undefined) freezeClock(frozenAt)
  try {
    await ctx.store.importState(dump)
  } catch (error) {
    if (error instanceof StateConflictError) throw seedError(error.problems)
    throw error
  }
  for (const master of withPassword) await engine.addMasterAccount(master)
  for (const visit of events.visits) await engine.recordVisit(visit)
  for (const activity of events.activities) await engine.recordActivity(activity)
}

function seedError(problems: string[]): ServiceError {
  return new ServiceError(
    'InvalidInput',
    `seed refused, nothing applied (${problems.length} problem${problems.length === 1 ? '' : 's'}): ${problems.join('; ')}`,
  )
}

/** Visits and activities with `at` as a Date, each for a site that exists or is being seeded. */
export async function checkEvents(
  ctx: EngineContext,
  visits: Record<string, unknown>[],
  activities: Record<string, unknown>[],
  seeded: Set<string>,
  problems: Problems,
  /** Each entry's place in the caller's list, when entries were dropped before (default: its index). */
  places: { visits?: number[]; activities?: number[] } = {},
): Promise<{ visits: Parameters<Engine['recordVisit']>[0][]; activities: Parameters<Engine['recordActivity']>[0][] }> {
  const known = new Map<string, boolean>()
  const exists = async (name: string): Promise<boolean> => {
    if (seeded.has(name)) return true
    if (!known.has(name)) known.set(name, (await ctx.store.getSite(name)) !== undefined)
    return known.get(name)!
  }
  const convert = async (section: 'visits' | 'activities', list: Record<string, unknown>[]) => {
    const out: Record<string, unknown>[] = []
    for (const [i, event] of list.entries()) {
      const where = `${section}[${places[section]?.[i] ?? i}]`
      if (!(await exists(event.site_name as string)))
        problems.list.push(`${where}: site ${event.site_name as string} does not exist`)
      const at =
        event.at === undefined ? undefined : problems.check(where, () => new Date(timeOf(event.at as string, 'at')))
      out.push({ ...event, ...(at === undefined ? {} : { at }) })
    }
    return out
  }
  return {
    visits: (await convert('visits', visits)) as unknown as Parameters<Engine['recordVisit']>[0][],
    activities: (await convert('activities', activities)) as unknown as Parameters<Engine['recordActivity']>[0][],
  }
}

export { Problems, seedError }
