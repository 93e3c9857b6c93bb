/**
 * The cells of one dimension (system or geo) in one day bucket of
 * MemoryAnalytics: one per dimension value seen that day, holding its visit,
 * page-view and activity counters and its visitors.
 *
 * They live in ONE flat array, in first-seen order, five slots per cell:
 * `[id, visits, page_views, visitors, acts]`. An object per cell would cost
 * about 30 more bytes each, and cells are most of what a quiet site-day holds.
 * A new value is appended (amortized O(1); the array used to be copied whole,
 * which an attacker sending new values made quadratic); counters are updated
 * in place. The cardinality cap bounds the cells of a day.
 */
import { Hll } from './hll.js'
import { addInt, IntHashSet, sizeOf, sketchOf, type IntSet, type VisitorSet, type VisitorUnion } from './visitor-set.js'

/** Flat cells; see the module comment. */
export type Cells = unknown[]

/** The cells of a bucket with none yet; shared, never written (cells are copied when added). */
export const NO_CELLS: Cells = Object.freeze([]) as unknown as Cells

const STRIDE = 5
const VISITS = 1
const PAGES = 2
const VISITORS = 3
const ACTS = 4

/** Past this many cells a dimension of a bucket keeps an id → offset index. */
const INDEX_FROM = 16

/**
 * One dimension of one day bucket: its cells, in the order values were first
 * seen (appended, never moved: adding a value is amortized O(1)), and an
 * index once they are many (lookup O(1); below that a scan of a few cells is
 * faster and costs no memory). `count` is the number of values counted
 * against the cardinality cap (every value but the folded "(other)").
 */
export class Dim {
  cells: Cells = NO_CELLS
  index: Map<number, number> | undefined = undefined
  count = 0

  /** Offset of the cell for `id`, or -1. */
  find(id: number): number {
    if (this.index !== undefined) return this.index.get(id) ?? -1
    const cells = this.cells
    for (let at = 0; at < cells.length; at += STRIDE) if (cells[at] === id) return at
    return -1
  }

  /**
   * Offset of the cell for the value `a`, `b` of `dictionary`, added if new.
   * A new value past `cap` values goes to the cell of `other` instead, which
   * is not counted against the cap; a folded value is not even interned, so
   * a flood of new values grows nothing but its counters.
   */
  at(dictionary: PairDictionary, a: string, b: string, cap: number, other: number): number {
    const known = dictionary.find(a, b)
    if (known !== undefined) {
      const at = this.find(known)
      if (at >= 0) return at
      if (known === other) return this.append(other)
    }
    if (this.count >= cap) {
      const folded = this.find(other)
      return folded >= 0 ? folded : this.append(other)
    }
    this.count += 1
    return this.append(known ?? dictionary.id(a, b))
  }

  private append(id: number): number {
    const cells = this.cells
    const at = cells.length
    if (at < INDEX_FROM * STRIDE) {
      // Small (most days): copied exact-sized, as a push would leave a third of the array unused.
      const next: Cells = new Array(at + STRIDE)
      for (let i = 0; i < at; i++) next[i] = cells[i]
      next[at] = id
      next[at + VISITS] = 0
      next[at + PAGES] = 0
      next[at + VISITORS] = undefined
      next[at + ACTS] = undefined
      this.cells = next
      return at
    }
    // Large: appended in place (amortized O(1)) and indexed.
    cells.push(id, 0, 0, undefined, undefined)
    if (this.index === undefined) {
      this.index = new Map()
      for (let i = 0; i < at; i += STRIDE) this.index.set(cells[i] as number, i)
    }
    this.index.set(id, at)
    return at
  }
}

/**
 * Counts a visit of `pages` pages by the interned `visitor` in the cell at
 * `at`, of a site-day still exact; 1 when the visitor is new to the cell, else 0.
 */
export function countVisit(cells: Cells, at: number, pages: number, visitor: number): number {
  cells[at + VISITS] = (cells[at + VISITS] as number) + 1
  cells[at + PAGES] = (cells[at + PAGES] as number) + pages
  const before = cells[at + VISITORS] as IntSet
  if (before instanceof IntHashSet) {
    const size = before.size
    before.add(visitor)
    return before.size - size
  }
  const after = addInt(before, visitor)
  cells[at + VISITORS] = after
  // Below a hash set, addInt returns the same value only when the visitor was already in.
  return after === before ? 0 : 1
}

/** The sketch of the cell at `at` of a sketched site-day, made if the cell has none yet. */
function cellSketch(cells: Cells, at: number): Hll {
  const visitors = cells[at + VISITORS] as VisitorSet
  if (visitors instanceof Hll) return visitors
  const sketch = new Hll()
  cells[at + VISITORS] = sketch
  return sketch
}

/**
 * Counts a visit of `pages` pages in the cell at `at` of a sketched site-day,
 * by the visitor hashed last (hll.ts hashVisitor).
 */
export function countSketchedVisit(cells: Cells, at: number, pages: number): void {
  cells[at + VISITS] = (cells[at + VISITS] as number) + 1
  cells[at + PAGES] = (cells[at + PAGES] as number) + pages
  cellSketch(cells, at).addHashed()
}

/** Adds visitor ids (not interned) or a sketch to the cell at `at` of a sketched site-day. */
export function addToSketch(cells: Cells, at: number, ids: readonly string[], sketch: Hll | undefined): Hll {
  const mine = cellSketch(cells, at)
  for (const id of ids) mine.add(id)
  if (sketch !== undefined) mine.merge(sketch)
  return mine
}

/**
 * Turns every exact cell's visitors into a sketch, `names` giving the visitor
 * id of each interned id; returns the union of all the cells' sketches.
 */
export function sketchCells(cells: Cells, names: readonly string[]): Hll {
  const union = new Hll()
  for (let at = VISITORS; at < cells.length; at += STRIDE) {
    let visitors = cells[at] as VisitorSet
    if (visitors === undefined) continue
    if (!(visitors instanceof Hll)) cells[at] = visitors = sketchOf(visitors, names)
    union.merge(visitors)
  }
  return union
}

/** The number of visitors a site-day's exact cells hold, added up (at least its distinct visitors). */
export function membersIn(cells: Cells): number {
  let n = 0
  for (let at = VISITORS; at < cells.length; at += STRIDE) n += sizeOf(cells[at] as IntSet)
  return n
}

/** Counts an activity of kind index `kind` (0–3) in the cell at `at`. */
export function countActivity(cells: Cells, at: number, kind: number): void {
  let acts = cells[at + ACTS] as number[] | undefined
  if (acts === undefined) cells[at + ACTS] = acts = [0, 0, 0, 0]
  acts[kind]! += 1
}

/** Adds the visitors of every cell to a union (a day's visitors are those of its system cells). */
export function uniteVisitors(union: VisitorUnion, cells: Cells): void {
  for (let at = VISITORS; at < cells.length; at += STRIDE) union.add(cells[at] as VisitorSet)
}

/** What cells with one id add up to over a period. */
export interface CellTotals {
  visits: number
  page_views: number
  /** Counts by activity kind index. */
  acts: number[]
  /** The visitor sets to unite. */
  visitors: VisitorSet[]
}

/** Adds up the cells of many buckets by id. */
export function sumCells(all: Iterable<Cells>): Map<number, CellTotals> {
  const sums = new Map<number, CellTotals>()
  for (const cells of all) {
    for (let at = 0; at < cells.length; at += STRIDE) {
      const id = cells[at] as number
      let sum = sums.get(id)
      if (sum === undefined) sums.set(id, (sum = { visits: 0, page_views: 0, acts: [0, 0, 0, 0], visitors: [] }))
      sum.visits += cells[at + VISITS] as number
      sum.page_views += cells[at + PAGES] as number
      const visitors = cells[at + VISITORS] as VisitorSet
      if (visitors !== undefined) sum.visitors.push(visitors)
      const acts = cells[at + ACTS] as number[] | undefined
      if (acts !== undefined) for (let k = 0; k < 4; k++) sum.acts[k]! += acts[k]!
    }
  }
  return sums
}

/** One cell, read out: its dimension value id, counters and visitors. */
export interface CellView {
  id: number
  visits: number
  page_views: number
  visitors: VisitorSet
  /** Counts by activity kind index, or undefined when none. */
  acts: number[] | undefined
}

/** Every cell, in first-seen order. */
export function cellsOf(cells: Cells): CellView[] {
  const out: CellView[] = []
  for (let at = 0; at < cells.length; at += STRIDE) {
    out.push({
      id: cells[at] as number,
      visits: cells[at + VISITS] as number,
      page_views: cells[at + PAGES] as number,
      visitors: cells[at + VISITORS] as VisitorSet,
      acts: cells[at + ACTS] as number[] | undefined,
    })
  }
  return out
}

/**
 * Adds `view`'s counters to the cell at `at` (a snapshot being loaded), and
 * its exact visitors when given: a sketched site-day adds them with addToSketch.
 */
export function loadCell(
  cells: Cells,
  at: number,
  view: Omit<CellView, 'id' | 'visitors'> & { visitors?: number[] },
): void {
  cells[at + VISITS] = (cells[at + VISITS] as number) + view.visits
  cells[at + PAGES] = (cells[at + PAGES] as number) + view.page_views
  if (view.visitors !== undefined) {
    let visitors = cells[at + VISITORS] as IntSet
    for (const id of view.visitors) visitors = addInt(visitors, id)
    cells[at + VISITORS] = visitors
  }
  if (view.acts !== undefined) {
    const acts = ((cells[at + ACTS] as number[] | undefined) ?? [0, 0, 0, 0]).slice()
    for (let k = 0; k < 4; k++) acts[k]! += view.acts[k]!
    cells[at + ACTS] = acts
  }
}

/** Interning of a two-part dimension value to an integer id, shared by all sites of the store. */
export class PairDictionary {
  private readonly ids = new Map<string, Map<string, number>>()
  private readonly pairs: [string, string][] = []

  /** The id of a value, if interned. */
  find(a: string, b: string): number | undefined {
    return this.ids.get(a)?.get(b)
  }

  id(a: string, b: string): number {
    let inner = this.ids.get(a)
    if (inner === undefined) this.ids.set(a, (inner = new Map()))
    let id = inner.get(b)
    if (id === undefined) {
      id = this.pairs.length
      inner.set(b, id)
      this.pairs.push([a, b])
    }
    return id
  }

  pair(id: number): [string, string] {
    const [a, b] = this.pairs[id]!
    return [a, b]
  }
}
