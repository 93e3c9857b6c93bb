/**
 * RedisStore's recording batches (`recordEvents`), on both layouts. On a
 * single Redis the whole batch is one RECORD_EVENTS script (one round trip),
 * which also updates each owner's ranking. On a Redis Cluster a script may
 * touch one slot only, so the batch is split: one RECORD_EVENTS per site of
 * the batch (its keys all carry the site's `{s:site}` tag), all sent at once,
 * then, once they answered, one RANK_VISITS per owner whose sites got visits
 * (the visits summed per site and day), in the owner's `{o:owner}` slot.
 * Outcomes come back per event, in the batch's order, either way.
 */
import {
  type BuildState,
  OTHER,
  type RecordOptions,
  type RecordOutcome,
  type RecordedEvent,
} from '../contract/index.js'
import { isVisit, retentionStart } from '../shared/analytics-rows.js'
import type { RedisConn } from './conn.js'
import type { RedisKeys } from './keys.js'
import { RANK_VISITS, RECORD_EVENTS } from './lua/analytics.js'

/** A recording script's reply: nil, or the site's owner and build in stored (JSON) form. */
function recordOutcome(reply: unknown): RecordOutcome | undefined {
  if (reply === null) return undefined
  const [owner, build] = reply as [string, string]
  return { owner: JSON.parse(owner) as string, build: JSON.parse(build) as BuildState }
}

/**
 * How long the keys of `day` may live under a retention of `days` counted
 * back from `today` (seconds from now, '' when nothing expires): until the
 * end of the last day that keeps it. Relative to `today`, the engine clock's
 * day, not to Redis' clock, so a store under a test clock keeps what its
 * clock says is kept; the day indexes drop expired days at once.
 */
function ttlOf(day: string, days: number | undefined, today: string): string | number {
  if (days === undefined || !Number.isFinite(days)) return ''
  const end = Date.parse(`${day}T00:00:00Z`) + Math.max(1, Math.floor(days)) * 86_400_000
  return Math.max(1, Math.ceil((end - Date.parse(`${today}T00:00:00Z`)) / 1000))
}

/** Identical events of a call (same site, day, kind and dimension values), added up. */
interface Group {
  head: (string | number)[]
  count: number
  pages: number
  visitors: Set<string>
}

/**
 * The KEYS and ARGV of one RECORD_EVENTS call over `events` (indexes into
 * the batch), and the index in KEYS of each event's site. Identical events
 * go as one group (their counts and page views summed, their visitors in one
 * PFADD): a popular page's beacons cost the script one step, not one each.
 */
function scriptCall(
  keys: RedisKeys,
  batch: readonly RecordedEvent[],
  events: readonly number[],
  options: RecordOptions,
  first: string,
  rankHere: boolean,
): { keys: string[]; args: (string | number)[]; siteOf: number[] } {
  const siteIndex = new Map<string, number>()
  const siteKeys: string[] = []
  const siteArgs: string[] = []
  const siteOf: number[] = []
  const groups = new Map<string, Group>()
  for (const i of events) {
    const e = batch[i]!
    let ki = siteIndex.get(e.site_name)
    if (ki === undefined) {
      siteKeys.push(keys.site(e.site_name))
      siteArgs.push(e.site_name, keys.siteBase(e.site_name))
      siteIndex.set(e.site_name, (ki = siteKeys.length))
    }
    siteOf.push(ki)
    const visit = isVisit(e)
    const head = [
      visit ? 'v' : 'a',
      ki,
      e.day,
      visit ? '' : e.kind,
      JSON.stringify([e.browser, e.os]),
      JSON.stringify([e.country, e.region]),
    ]
    const id = head.join('\n')
    let group = groups.get(id)
    if (group === undefined) groups.set(id, (group = { head, count: 0, pages: 0, visitors: new Set() }))
    group.count += 1
    if (visit) {
      group.pages += e.page_views
      group.visitors.add(e.visitor_id)
    }
  }
  const args: (string | number)[] = [
    options.maxDimensionValues,
    first,
    JSON.stringify([OTHER, OTHER]),
    rankHere ? '1' : '0',
  ]
  args.push(...siteArgs)
  for (const { head, count, pages, visitors } of groups.values()) {
    const ttl = ttlOf(head[2] as string, options.retentionDays, options.today)
    args.push(...head, count, pages, ttl, visitors.size, ...visitors)
  }
  return { keys: siteKeys, args, siteOf }
}

/** Records a batch: see the module comment. */
export async function recordBatch(
  conn: RedisConn,
  keys: RedisKeys,
  events: readonly RecordedEvent[],
  options: RecordOptions,
): Promise<(RecordOutcome | undefined)[]> {
  if (events.length === 0) return []
  const first = retentionStart(options.today, options.retentionDays) ?? ''
  const all = events.map((_, i) => i)
  if (!conn.cluster) {
    const call = scriptCall(keys, events, all, options, first, true)
    const replies = (await conn.write(RECORD_EVENTS, call.keys, call.args)) as unknown[]
    return call.siteOf.map((ki) => recordOutcome(replies[ki - 1] ?? null))
  }

  const bySite = new Map<string, number[]>()
  for (const i of all) {
    const group = bySite.get(events[i]!.site_name)
    if (group) group.push(i)
    else bySite.set(events[i]!.site_name, [i])
  }
  const outcomes: (RecordOutcome | undefined)[] = new Array(events.length)
  await Promise.all(
    [...bySite.values()].map(async (group) => {
      const call = scriptCall(keys, events, group, options, first, false)
      const replies = (await conn.write(RECORD_EVENTS, call.keys, call.args)) as unknown[]
      group.forEach((i, j) => {
        outcomes[i] = recordOutcome(replies[call.siteOf[j]! - 1] ?? null)
      })
    }),
  )

  // The ranking step: recorded visits summed per owner, then per site and day.
  const ranks = new Map<string, Map<string, number>>()
  events.forEach((e, i) => {
    const outcome = outcomes[i]
    if (!outcome || !isVisit(e) || (first !== '' && e.day < first)) return
    let perOwner = ranks.get(outcome.owner)
    if (!perOwner) ranks.set(outcome.owner, (perOwner = new Map()))
    const siteDay = JSON.stringify([e.day, e.site_name])
    perOwner.set(siteDay, (perOwner.get(siteDay) ?? 0) + 1)
  })
  await Promise.all(
    [...ranks].map(([owner, perOwner]) => {
      const args: (string | number)[] = [keys.ownerBase(owner), first]
      for (const [siteDay, n] of perOwner) {
        const [day, site] = JSON.parse(siteDay) as [string, string]
        args.push(day, site, n, ttlOf(day, options.retentionDays, options.today))
      }
      return conn.write(RANK_VISITS, [keys.ownerDays(owner)], args)
    }),
  )
  return outcomes
}
