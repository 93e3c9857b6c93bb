/**
 * The cells of one dimension (system or geo) in one day bucket of
 * MemoryAnalytics: one per dimension value seen that day, holding its visit,
 * page-view and activity counters and its visitors.
 *
 * They live in ONE flat array, sorted by value id, five slots per cell:
 * `[id, visits, page_views, visitors, acts]`. An object per cell would cost
 * about 30 more bytes each, and cells are most of what a quiet site-day holds.
 * Arrays are replaced, exact-sized, when a cell is added (rare); counters are
 * updated in place (often).
 */
import { addInt, membersOf, type DistinctCounter, type IntSet } from './visitor-set.js'

/** Flat cells; see the module comment. */
export type Cells = unknown[]

/** The cells of a bucket with none yet; shared, never written (cells are copied when added). */
export const NO_CELLS: Cells = Object.freeze([]) as unknown as Cells

const STRIDE = 5
const VISITS = 1
const PAGES = 2
const VISITORS = 3
const ACTS = 4

/** Offset of the cell for `id`, or `-(offset where it would go) - 1`. */
export function findCell(cells: Cells, id: number): number {
  let lo = 0
  let hi = cells.length / STRIDE
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const at = cells[mid * STRIDE] as number
    if (at === id) return mid * STRIDE
    if (at < id) lo = mid + 1
    else hi = mid
  }
  return -lo * STRIDE - 1
}

/** A copy of the cells with a zeroed cell for `id` at offset `at` (from {@link findCell}). */
export function insertCell(cells: Cells, at: number, id: number): Cells {
  const next: Cells = new Array(cells.length + STRIDE)
  for (let i = 0; i < at; i++) next[i] = cells[i]
  next[at] = id
  next[at + VISITS] = 0
  next[at + PAGES] = 0
  next[at + VISITORS] = undefined
  next[at + ACTS] = undefined
  for (let i = at; i < cells.length; i++) next[i + STRIDE] = cells[i]
  return next
}

/** Counts a visit of `pages` pages by `visitor` in the cell at `at`. */
export function countVisit(cells: Cells, at: number, pages: number, visitor: number): void {
  cells[at + VISITS] = (cells[at + VISITS] as number) + 1
  cells[at + PAGES] = (cells[at + PAGES] as number) + pages
  cells[at + VISITORS] = addInt(cells[at + VISITORS] as IntSet, visitor)
}

/** Counts an activity of kind index `kind` (0–3) in the cell at `at`. */
export function countActivity(cells: Cells, at: number, kind: number): void {
  let acts = cells[at + ACTS] as number[] | undefined
  if (acts === undefined) cells[at + ACTS] = acts = [0, 0, 0, 0]
  acts[kind]! += 1
}

/** Adds the visitors of every cell to a union (a day's visitors are those of its system cells). */
export function uniteVisitors(distinct: DistinctCounter, cells: Cells): void {
  for (let at = VISITORS; at < cells.length; at += STRIDE) distinct.add(cells[at] as IntSet)
}

/** What cells with one id add up to over a period. */
export interface CellTotals {
  visits: number
  page_views: number
  /** Counts by activity kind index. */
  acts: number[]
  /** The visitor sets to unite. */
  visitors: IntSet[]
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
      const visitors = cells[at + VISITORS] as IntSet
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
  visitors: IntSet
  /** Counts by activity kind index, or undefined when none. */
  acts: number[] | undefined
}

/** Every cell, in id order. */
export function cellsOf(cells: Cells): CellView[] {
  const out: CellView[] = []
  for (let at = 0; at < cells.length; at += STRIDE) {
    out.push({
      id: cells[at] as number,
      visits: cells[at + VISITS] as number,
      page_views: cells[at + PAGES] as number,
      visitors: cells[at + VISITORS] as IntSet,
      acts: cells[at + ACTS] as number[] | undefined,
    })
  }
  return out
}

/** Adds `view`'s counters and visitors to the cell at `at` (a snapshot being loaded). */
export function loadCell(cells: Cells, at: number, view: Omit<CellView, 'id'>): void {
  cells[at + VISITS] = (cells[at + VISITS] as number) + view.visits
  cells[at + PAGES] = (cells[at + PAGES] as number) + view.page_views
  let visitors = cells[at + VISITORS] as IntSet
  for (const id of membersOf(view.visitors)) visitors = addInt(visitors, id)
  cells[at + VISITORS] = visitors
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
