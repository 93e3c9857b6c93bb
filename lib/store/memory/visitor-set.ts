/**
 * Exact sets of interned visitor ids (small non-negative integers) for
 * MemoryAnalytics, shaped for memory: most cells of a day hold one or a few
 * visitors, a busy cell holds thousands.
 *
 * - nothing, one number, or a short exact-sized array while small;
 * - then an open-addressing hash set over an Int32Array: about 4–11 bytes a
 *   member, against 20–40 for a JS Set of numbers.
 *
 * Unions over a period go through {@link DistinctCounter}: a pass over the
 * members with generation stamps, no hashing and no allocation.
 */

import { Hll } from './hll.js'

/** Up to this many members a set is a plain array. */
const SMALL = 32
const EMPTY = -1

/** An open-addressing hash set of non-negative 31-bit integers, linear probing, load ≤ 3/4. */
export class IntHashSet {
  /** Slots; EMPTY where free. */
  slots: Int32Array
  size = 0
  private shift: number

  constructor(members: readonly number[]) {
    this.slots = new Int32Array(64).fill(EMPTY)
    this.shift = 32 - 6
    for (const member of members) this.add(member)
  }

  add(value: number): void {
    const slots = this.slots
    const mask = slots.length - 1
    // Fibonacci hashing: the high bits of the product spread consecutive ids.
    let i = Math.imul(value, 0x9e3779b1) >>> this.shift
    for (;;) {
      const at = slots[i]!
      if (at === value) return
      if (at === EMPTY) break
      i = (i + 1) & mask
    }
    slots[i] = value
    if (++this.size * 4 > slots.length * 3) this.grow()
  }

  private grow(): void {
    const old = this.slots
    this.slots = new Int32Array(old.length * 2).fill(EMPTY)
    this.shift -= 1
    this.size = 0
    for (let i = 0; i < old.length; i++) if (old[i] !== EMPTY) this.add(old[i]!)
  }
}

/** A set of visitor ids: undefined (empty), one id, a short array, or an IntHashSet. */
export type IntSet = undefined | number | number[] | IntHashSet

/** The set with `value` added; may be a new object, so store the result. */
export function addInt(set: IntSet, value: number): IntSet {
  if (set === undefined) return value
  if (typeof set === 'number') return set === value ? set : [set, value]
  if (Array.isArray(set)) {
    if (set.includes(value)) return set
    // concat allocates exactly: short arrays stay without the slack push would add.
    return set.length < SMALL ? set.concat(value) : new IntHashSet(set.concat(value))
  }
  set.add(value)
  return set
}

/**
 * Counts the distinct members of several IntSets with a generation-stamped
 * array indexed by visitor id.
 */
export class DistinctCounter {
  private stamps = new Uint32Array(1024)
  private generation = 0
  count = 0

  /** Begins a new union over ids below `universe`. */
  start(universe: number): void {
    if (this.stamps.length < universe) this.stamps = new Uint32Array(Math.max(universe, this.stamps.length * 2))
    if (++this.generation === 0xffffffff) {
      this.stamps.fill(0)
      this.generation = 1
    }
    this.count = 0
  }

  add(set: IntSet): void {
    if (set === undefined) return
    const stamps = this.stamps
    const generation = this.generation
    let count = this.count
    if (typeof set === 'number') {
      if (stamps[set] !== generation) {
        stamps[set] = generation
        count++
      }
    } else if (Array.isArray(set)) {
      for (let i = 0; i < set.length; i++) {
        const id = set[i]!
        if (stamps[id] !== generation) {
          stamps[id] = generation
          count++
        }
      }
    } else {
      const slots = set.slots
      for (let i = 0; i < slots.length; i++) {
        const id = slots[i]!
        if (id !== EMPTY && stamps[id] !== generation) {
          stamps[id] = generation
          count++
        }
      }
    }
    this.count = count
  }
}

/** How many members an exact set has. */
export function sizeOf(set: IntSet): number {
  if (set === undefined) return 0
  if (typeof set === 'number') return 1
  return Array.isArray(set) ? set.length : set.size
}

/**
 * The visitors of a cell or day: an exact set of interned ids, or a sketch
 * once its site-day passed the store's `exactVisitors` threshold.
 */
export type VisitorSet = IntSet | Hll

/** A sketch of an exact set's members, `names` giving each interned id's visitor id. */
export function sketchOf(set: IntSet, names: readonly string[]): Hll {
  const sketch = new Hll()
  for (const n of membersOf(set)) sketch.add(names[n]!)
  return sketch
}

/**
 * The number of distinct visitors in several visitor sets: exact while they
 * are all exact, else the estimate of a sketch of all of them (exact ∪
 * sketch → sketch, the exact members hashed in by their visitor ids).
 */
export class VisitorUnion {
  private readonly distinct = new DistinctCounter()
  private exact: IntSet[] = []
  private sketch: Hll | undefined = undefined
  private names: () => readonly string[] = () => []

  /**
   * Begins a new union over the `universe` interned ids of a site; `names`
   * gives their visitor ids by id, asked only when a sketch is involved.
   */
  start(universe: number, names: () => readonly string[]): void {
    this.distinct.start(universe)
    this.exact = []
    this.sketch = undefined
    this.names = names
  }

  add(set: VisitorSet): void {
    if (set === undefined) return
    if (set instanceof Hll) {
      if (this.sketch === undefined) this.sketch = new Hll()
      this.sketch.merge(set)
    } else {
      this.distinct.add(set)
      this.exact.push(set)
    }
  }

  /** The distinct visitors added since {@link start}. */
  get count(): number {
    const sketch = this.sketch
    if (sketch === undefined) return this.distinct.count
    const names = this.names()
    for (const set of this.exact) for (const n of membersOf(set)) sketch.add(names[n]!)
    this.exact = []
    return sketch.count()
  }
}

/** The members of a set, in no particular order. */
export function membersOf(set: IntSet): number[] {
  if (set === undefined) return []
  if (typeof set === 'number') return [set]
  if (Array.isArray(set)) return set.slice()
  return Array.from(set.slots).filter((id) => id !== EMPTY)
}
