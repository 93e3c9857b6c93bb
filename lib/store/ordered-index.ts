/**
 * A sorted set of (time, name) entries with binary-search insert, remove and
 * range queries, so listings by time never scan every site.
 */

/**
 * Entries are ordered by time, then by name (UTF-16 code units, which for the
 * ASCII site names the engine allows is the same order as a Redis or
 * PostgreSQL byte-wise comparison). An entry is present at most once.
 */
export class OrderedIndex {
  // Parallel arrays: cheaper to splice and compare than an array of tuples.
  private readonly times: number[] = []
  private readonly names: string[] = []

  /** Number of entries. */
  get size(): number {
    return this.times.length
  }

  /** Adds the entry; adding one that is present changes nothing. */
  insert(time: number, name: string): void {
    const i = this.lowerBound(time, name)
    if (this.times[i] === time && this.names[i] === name) return
    this.times.splice(i, 0, time)
    this.names.splice(i, 0, name)
  }

  /** Removes the entry; false when it was not present. */
  remove(time: number, name: string): boolean {
    const i = this.lowerBound(time, name)
    if (this.times[i] !== time || this.names[i] !== name) return false
    this.times.splice(i, 1)
    this.names.splice(i, 1)
    return true
  }

  /** Names whose time lies in [from, to], both ends included, in index order. */
  range(from: number, to: number): string[] {
    const out: string[] = []
    // '' sorts before every name, so this finds the first entry at `from`.
    for (let i = this.lowerBound(from, ''); i < this.times.length && (this.times[i] as number) <= to; i++) {
      out.push(this.names[i] as string)
    }
    return out
  }

  /** Index of the first entry not ordered before (time, name). */
  private lowerBound(time: number, name: string): number {
    let lo = 0
    let hi = this.times.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      const t = this.times[mid] as number
      if (t < time || (t === time && (this.names[mid] as string) < name)) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}
