/**
 * MemoryAnalytics at one instant, dumped a site at a time, for a writer that
 * serializes a large state in slices while calls go on between them (the
 * test double's state file). Copy on write per site: before a change touches
 * a site not yet dumped, that site is dumped as it still is, so every site
 * comes out as it was at the capture and no write waits for the writer.
 */
import type { AnalyticsDayDump } from '../contract/index.js'

/** A capture of the analytics; see the module comment. */
export class AnalyticsCapture<Site> {
  /** The sites still to dump, by name: the one source of truth of what is left. */
  private readonly pending = new Map<string, Site>()
  /** The capture's sites in their order, walked by {@link next}. */
  private readonly order: string[]
  private index = 0
  /** Sites dumped ahead of their turn because a change was about to touch them. */
  private readonly early: AnalyticsDayDump[][] = []
  private ended = false

  constructor(
    sites: Iterable<[string, Site]>,
    private readonly dumpSite: (site: Site) => AnalyticsDayDump[],
    private readonly onEnd: () => void,
  ) {
    for (const [name, site] of sites) this.pending.set(name, site)
    this.order = [...this.pending.keys()]
  }

  /** How many sites the capture holds. */
  get sites(): number {
    return this.order.length
  }

  /** Called before a change touches the site: dumps it now if it has not been yet. */
  keep(site_name: string): void {
    const site = this.pending.get(site_name)
    if (site === undefined) return
    this.pending.delete(site_name)
    this.early.push(this.dumpSite(site))
  }

  /** Called before a change that touches every site (a reset, a retention cut). */
  keepAll(): void {
    for (const name of [...this.pending.keys()]) this.keep(name)
  }

  /** The next site's days as they were at the capture; undefined when none is left (the capture has ended). */
  next(): AnalyticsDayDump[] | undefined {
    const kept = this.early.pop()
    if (kept !== undefined) return kept
    while (this.index < this.order.length) {
      const name = this.order[this.index++]!
      const site = this.pending.get(name)
      if (site === undefined) continue
      this.pending.delete(name)
      return this.dumpSite(site)
    }
    this.end()
    return undefined
  }

  /** Stops the capture (also when a writer gives up): changes no longer pay for it. */
  end(): void {
    if (this.ended) return
    this.ended = true
    this.pending.clear()
    this.early.length = 0
    this.onEnd()
  }
}
