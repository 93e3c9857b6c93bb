/**
 * The verdict cache in front of a matcher: a bounded map from User-Agent to
 * verdict with second-chance (CLOCK) eviction, which keeps what is used
 * again like an LRU does. Why not lru-cache, used elsewhere: it would be
 * over half of the `mobisite/edge` bundle, and a hit here is one `Map` read
 * (a repeated hit writes nothing; only the first hit after an insertion or a
 * sweep sets the reference bit).
 */
export class VerdictCache {
  /** UA → verdict bit (1 = phone) plus a reference bit (2 = used since it was inserted or last swept). */
  private readonly entries = new Map<string, number>()

  constructor(private readonly max: number) {}

  /** Verdicts held. */
  get size(): number {
    return this.entries.size
  }

  /** The cached verdict, or undefined. */
  get(userAgent: string): boolean | undefined {
    const entry = this.entries.get(userAgent)
    if (entry === undefined) return undefined
    if (entry < 2) this.entries.set(userAgent, entry + 2)
    return (entry & 1) === 1
  }

  /** Caches a verdict, evicting one entry when full. */
  set(userAgent: string, verdict: boolean): void {
    if (this.entries.size >= this.max) this.evictOne()
    this.entries.set(userAgent, verdict ? 1 : 0)
  }

  /**
   * Removes the oldest entry not used since its last chance. A used one
   * loses its reference bit and moves to the back (a Map keeps insertion
   * order, and its iterator visits what is re-added), so after at most one
   * full sweep something unreferenced is found.
   */
  private evictOne(): void {
    for (const [userAgent, entry] of this.entries) {
      this.entries.delete(userAgent)
      if (entry < 2) return
      this.entries.set(userAgent, entry - 2)
    }
  }
}
