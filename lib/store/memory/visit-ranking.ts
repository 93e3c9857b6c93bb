import type { DayPeriod } from './day-period.js'

/**
 * One owner's sites in order of all-time visits, kept current in O(1) per visit.
 *
 * Get Sites with Most Traffic otherwise adds up every site's days in the
 * period, which is linear in the owner's sites. When the period holds every
 * visit the owner ever had (seeded or imported test data, an owner younger
 * than the period), each site's visits in the period are its all-time visits,
 * so the head of this order is the answer (`top`). Otherwise all-time visits
 * still bound a site's visits in the period, which lets the ranking stop
 * reading this order early (`topBounded`). Either way it reads about as many
 * sites as it returns when visits are skewed, however many the owner has.
 *
 * The order lists the slots with visits, most first. Slots with equal visits
 * form one block, and each slot points at its block's record, which holds
 * the index where the block starts. A visit swaps the site to the front of
 * its block and moves that block's start one on, which leaves the site right
 * after the block one visit up: it joins that block, or starts one there (the
 * O(1) LFU layout, with no map lookups on the recording path). Bulk changes
 * (an import, a deleted site) only mark the order stale; the next read
 * rebuilds it with one sort.
 */
export class VisitRanking {
  /** All-time visits per slot (0 or a hole for a slot without visits). */
  private readonly visits: number[] = []
  /** Slots with visits, most visits first; ties in no particular order. */
  private order: number[] = []
  /** Index of each slot in `order`; meaningful only for slots with visits. */
  private readonly position: number[] = []
  /** The block of each slot with visits: shared by the slots with the same count. */
  private readonly blockOf: Block[] = []
  private stale = false
  /** All-time visits of all the owner's sites together. */
  total = 0

  /** The all-time visits of the site in `slot`. */
  visitsOf(slot: number): number {
    return this.visits[slot] ?? 0
  }

  /** One more visit for the site in `slot`. */
  addOne(slot: number): void {
    const { visits, order, position, blockOf } = this
    const had = visits[slot] ?? 0
    visits[slot] = had + 1
    this.total += 1
    if (this.stale) return
    let front: number
    if (had === 0) {
      // One visit is the fewest a listed slot has: its place is at the end.
      front = order.length
      order.push(slot)
    } else {
      const block = blockOf[slot]!
      front = block.start
      const displaced = order[front]!
      const at = position[slot]!
      order[at] = displaced
      position[displaced] = at
      order[front] = slot
      block.start = front + 1 // empty if the slot was its only member: then nothing points at it
    }
    position[slot] = front
    const above = front > 0 ? order[front - 1]! : -1
    blockOf[slot] = above >= 0 && visits[above] === had + 1 ? blockOf[above]! : { start: front }
  }

  /** Adds `count` visits at once (a state import); the order is rebuilt when next read. */
  add(slot: number, count: number): void {
    if (count === 1) return this.addOne(slot)
    this.visits[slot] = (this.visits[slot] ?? 0) + count
    this.total += count
    this.stale = true
  }

  /** Forgets the visits of the site in `slot` (a deleted site; the slot may be reused). */
  remove(slot: number): void {
    this.total -= this.visits[slot] ?? 0
    this.visits[slot] = 0
    this.stale = true
  }

  /**
   * The slots of the `limit` most-visited sites, visits descending then
   * `nameOf` ascending. Reads the blocks above the `limit`-th site's visit
   * count and that block, whose members are compared by name.
   */
  top(limit: number, nameOf: (slot: number) => string): number[] {
    if (this.stale) this.rebuild()
    const { order, visits } = this
    if (limit <= 0 || order.length === 0) return []
    let end = Math.min(limit, order.length)
    const last = visits[order[end - 1]!]!
    while (end < order.length && visits[order[end]!] === last) end++
    const top = new TopSlots(limit, (slot) => visits[slot]!, nameOf)
    for (let i = 0; i < end; i++) top.offer(order[i]!)
    return top.slots
  }

  /**
   * The `limit` best slots by `score`, a slot's visits in some period, then
   * `nameOf` ascending; or undefined, having scored few slots, when that
   * would mean scoring more than `budget` slots.
   *
   * A slot never has more visits in a period than in all time, so slots are
   * scored in all-time order until the next one's all-time visits cannot
   * reach the `limit`-th score. When visits are skewed, or the period holds
   * most of them, that is a few more than `limit` slots. When every site has
   * about the same visits, few can be passed over: once the first `limit`
   * scores are known, the order says how many slots could still reach them,
   * and if that is over budget the question goes back to a plain sum.
   */
  topBounded(
    limit: number,
    score: (slot: number) => number,
    nameOf: (slot: number) => string,
    budget: number,
  ): number[] | undefined {
    if (this.stale) this.rebuild()
    const { order, visits } = this
    const scores = new Map<number, number>()
    const top = new TopSlots(limit, (slot) => scores.get(slot)!, nameOf)
    let end = -1
    for (let i = 0; i < order.length; i++) {
      const slot = order[i]!
      if (top.slots.length === limit) {
        const last = top.slots[limit - 1]!
        const least = scores.get(last)!
        const bound = visits[slot]!
        if (bound < least) break
        // The scores only rise, so the slots left to read never grow past this.
        if (end < 0 && (end = this.firstBelow(least)) - i > budget) return undefined
        // At best a tie, which a later name loses.
        if (bound === least && nameOf(slot) > nameOf(last)) continue
      } else if (i >= budget) {
        return undefined
      }
      const visitsInPeriod = score(slot)
      if (visitsInPeriod > 0) {
        scores.set(slot, visitsInPeriod)
        top.offer(slot)
      }
    }
    return top.slots
  }

  /** The index in the order of the first slot with fewer than `count` visits. */
  private firstBelow(count: number): number {
    const { order, visits } = this
    let lo = 0
    let hi = order.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (visits[order[mid]!]! >= count) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  private rebuild(): void {
    const { visits, position, blockOf } = this
    const order: number[] = []
    for (let slot = 0; slot < visits.length; slot++) if ((visits[slot] ?? 0) > 0) order.push(slot)
    order.sort((a, b) => visits[b]! - visits[a]!)
    let block: Block = { start: 0 }
    for (let i = 0; i < order.length; i++) {
      const slot = order[i]!
      if (i > 0 && visits[slot] !== visits[order[i - 1]!]) block = { start: i }
      position[slot] = i
      blockOf[slot] = block
    }
    this.order = order
    this.stale = false
  }
}

/** Where a block of equal visit counts starts in the order. */
interface Block {
  start: number
}

/**
 * The best `limit` slots offered, by `score` descending then `nameOf`
 * ascending, best first: a sorted list of at most `limit` entries, so a pass
 * over n slots costs n comparisons with the current last one.
 */
export class TopSlots {
  /** The best slots so far, best first. */
  readonly slots: number[] = []

  constructor(
    private readonly limit: number,
    private readonly score: (slot: number) => number,
    private readonly nameOf: (slot: number) => string,
  ) {}

  /** Whether slot a ranks above slot b. */
  private before(a: number, b: number): boolean {
    const x = this.score(a)
    const y = this.score(b)
    return x > y || (x === y && this.nameOf(a) < this.nameOf(b))
  }

  offer(slot: number): void {
    const { slots, limit } = this
    if (slots.length === limit && !this.before(slot, slots[limit - 1]!)) return
    let i = slots.length === limit ? limit - 1 : slots.length
    while (i > 0 && this.before(slot, slots[i - 1]!)) {
      slots[i] = slots[i - 1]!
      i--
    }
    slots[i] = slot
  }
}

/**
 * The visits of one owner on one day: parallel lists (site slot, visits) and
 * their sum. Typed arrays, grown by doubling, keep each list in one block of
 * memory, which the ranking's pass over every site reads front to back.
 */
export class OwnerDay {
  slots = new Int32Array(4)
  visits = new Float64Array(4)
  length = 0
  total = 0

  /** Appends a site's first visits of the day; returns their index in the lists. */
  append(slot: number, visits: number): number {
    if (this.length === this.slots.length) {
      const slots = new Int32Array(this.length * 2)
      slots.set(this.slots)
      this.slots = slots
      const counts = new Float64Array(this.length * 2)
      counts.set(this.visits)
      this.visits = counts
    }
    this.slots[this.length] = slot
    this.visits[this.length] = visits
    this.total += visits
    return this.length++
  }
}

const visitsOf = (bucket: { visits: number }): number => bucket.visits

/** What {@link rankWinners} reads of an owner: its sites by slot (with their day buckets) and ranking. */
export interface RankedOwner {
  sites: readonly ({ name: string; days: Map<string, { visits: number }> } | undefined)[]
  ranking: VisitRanking
}

/** The slots of the owner's `limit` sites with the most visits in the period, best first. */
export function rankWinners(data: RankedOwner, period: DayPeriod, days: OwnerDay[], limit: number): number[] {
  const { sites, ranking } = data
  const nameOf = (slot: number) => sites[slot]!.name
  let inPeriod = 0
  let entries = 0
  for (const day of days) {
    inPeriod += day.total
    entries += day.length
  }
  // Every visit the owner has lies in the period: all-time order is the answer.
  if (inPeriod === ranking.total) return ranking.top(limit, nameOf)
  // Scoring a site costs about what summing 400 day-list entries does
  // (measured at 100k sites), so the bound may score that share of them;
  // and a few times `limit` in any case, which is cheap either way.
  const bounded = ranking.topBounded(
    limit,
    (slot) => period.sum(sites[slot]!.days, visitsOf),
    nameOf,
    Math.max(entries / 400, 4 * limit),
  )
  if (bounded !== undefined) return bounded
  const totals = new Float64Array(sites.length)
  for (const { slots, visits, length } of days) {
    for (let i = 0; i < length; i++) totals[slots[i]!]! += visits[i]!
  }
  const top = new TopSlots(limit, (slot) => totals[slot]!, nameOf)
  for (let slot = 0; slot < totals.length; slot++) {
    if (totals[slot]! > 0 && sites[slot] !== undefined) top.offer(slot)
  }
  return top.slots
}
