/**
 * One owner's sites in order of all-time visits, kept current in O(1) per visit.
 *
 * Get Sites with Most Traffic otherwise adds up every site's days in the
 * period, which is linear in the owner's sites. When the period holds every
 * visit the owner ever had (seeded or imported test data, an owner younger
 * than the period), each site's visits in the period are its all-time visits,
 * so the head of this order is the answer: the ranking then reads about
 * `limit` sites, however many the owner has.
 *
 * The order lists the slots with visits, most first. Slots with equal visits
 * form one block, and `blockStart` maps a visit count to its block's first
 * index. A visit swaps the site to the front of its block and moves that
 * block's start one on, which leaves the site as the last member of the block
 * one visit up (the O(1) LFU layout). Bulk changes (an import, a deleted site)
 * only mark the order stale; the next read rebuilds it with one sort.
 */
export class VisitRanking {
  /** All-time visits per slot (0 or a hole for a slot without visits). */
  private readonly visits: number[] = []
  /** Slots with visits, most visits first; ties in no particular order. */
  private order: number[] = []
  /** Index of each slot in `order`; meaningful only for slots with visits. */
  private readonly position: number[] = []
  /** Visit count → index in `order` of the first slot with that count. */
  private readonly blockStart = new Map<number, number>()
  private stale = false
  /** All-time visits of all the owner's sites together. */
  total = 0

  /** The all-time visits of the site in `slot`. */
  visitsOf(slot: number): number {
    return this.visits[slot] ?? 0
  }

  /** One more visit for the site in `slot`. */
  addOne(slot: number): void {
    const had = this.visits[slot] ?? 0
    this.visits[slot] = had + 1
    this.total += 1
    if (this.stale) return
    const { order, position, blockStart } = this
    if (had === 0) {
      // One visit is the fewest a listed slot has: its place is at the end.
      if (!blockStart.has(1)) blockStart.set(1, order.length)
      position[slot] = order.length
      order.push(slot)
      return
    }
    const front = blockStart.get(had)!
    const displaced = order[front]!
    const at = position[slot]!
    order[at] = displaced
    position[displaced] = at
    order[front] = slot
    position[slot] = front
    const next = front + 1
    if (next < order.length && this.visits[order[next]!] === had) blockStart.set(had, next)
    else blockStart.delete(had)
    if (!blockStart.has(had + 1)) blockStart.set(had + 1, front)
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

  private rebuild(): void {
    const { visits, position, blockStart } = this
    const order: number[] = []
    for (let slot = 0; slot < visits.length; slot++) if ((visits[slot] ?? 0) > 0) order.push(slot)
    order.sort((a, b) => visits[b]! - visits[a]!)
    blockStart.clear()
    for (let i = 0; i < order.length; i++) {
      const slot = order[i]!
      position[slot] = i
      if (!blockStart.has(visits[slot]!)) blockStart.set(visits[slot]!, i)
    }
    this.order = order
    this.stale = false
  }
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
