/**
 * A sorted set of (time, name) entries with logarithmic insert, remove and
 * range queries, so listings by time never scan every site and bulk loads
 * stay linear.
 *
 * The entries live in chunked sorted blocks (as in Python's sortedcontainers):
 * a short array of blocks of at most BLOCK_MAX entries each. An insert finds
 * its block by binary search over the blocks' last entries, then its place in
 * the block, and moves at most BLOCK_MAX entries; a full block splits in two.
 * A single sorted array would instead move half the index on every insert,
 * which made seeding many sites with one timestamp (a frozen test clock)
 * quadratic: every key equal in time, names landing all over the array.
 */

/** Largest block before it splits; small enough that moving a block's entries is cheap. */
const BLOCK_MAX = 512

/** One block: parallel arrays, cheaper to splice and compare than an array of tuples. */
interface Block {
  times: number[]
  names: string[]
}

/** Whether (t1, n1) is ordered before (t2, n2). */
function before(t1: number, n1: string, t2: number, n2: string): boolean {
  return t1 < t2 || (t1 === t2 && n1 < n2)
}

/** Index in the block of the first entry not ordered before (time, name). */
function lowerBound(block: Block, time: number, name: string): number {
  const { times, names } = block
  let lo = 0
  let hi = times.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (before(times[mid]!, names[mid]!, time, name)) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * Entries are ordered by time, then by name (UTF-16 code units, which for the
 * ASCII site names the engine allows is the same order as a Redis or
 * PostgreSQL byte-wise comparison). An entry is present at most once.
 */
export class OrderedIndex {
  /** Non-empty blocks in order; every entry of a block is ordered before every entry of the next. */
  private readonly blocks: Block[] = []
  private count = 0

  /** Number of entries. */
  get size(): number {
    return this.count
  }

  /** Adds the entry; adding one that is present changes nothing. */
  insert(time: number, name: string): void {
    if (this.blocks.length === 0) {
      this.blocks.push({ times: [time], names: [name] })
      this.count = 1
      return
    }
    const b = this.blockFor(time, name)
    const block = this.blocks[b]!
    const i = lowerBound(block, time, name)
    if (block.times[i] === time && block.names[i] === name) return
    block.times.splice(i, 0, time)
    block.names.splice(i, 0, name)
    this.count++
    if (block.times.length > BLOCK_MAX) {
      const half = block.times.length >>> 1
      this.blocks.splice(b + 1, 0, { times: block.times.splice(half), names: block.names.splice(half) })
    }
  }

  /** Removes the entry; false when it was not present. */
  remove(time: number, name: string): boolean {
    if (this.blocks.length === 0) return false
    const b = this.blockFor(time, name)
    const block = this.blocks[b]!
    const i = lowerBound(block, time, name)
    if (block.times[i] !== time || block.names[i] !== name) return false
    block.times.splice(i, 1)
    block.names.splice(i, 1)
    this.count--
    if (block.times.length === 0) this.blocks.splice(b, 1)
    return true
  }

  /** Names whose time lies in [from, to], both ends included, in index order. */
  range(from: number, to: number): string[] {
    const out: string[] = []
    if (this.blocks.length === 0) return out
    // '' sorts before every name, so this finds the first entry at `from`.
    let b = this.blockFor(from, '')
    let i = lowerBound(this.blocks[b]!, from, '')
    for (; b < this.blocks.length; b++, i = 0) {
      const { times, names } = this.blocks[b]!
      for (; i < times.length; i++) {
        if (times[i]! > to) return out
        out.push(names[i]!)
      }
    }
    return out
  }

  /** The block where (time, name) is or belongs: the first whose last entry is not before it, else the last block. */
  private blockFor(time: number, name: string): number {
    let lo = 0
    let hi = this.blocks.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      const { times, names } = this.blocks[mid]!
      const last = times.length - 1
      if (before(times[last]!, names[last]!, time, name)) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}
