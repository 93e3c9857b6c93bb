/**
 * A small bounded cache whose entries expire: the verified-credential cache
 * of ./masters.ts. It is read on every API request, so it is a plain Map in
 * recency order (a hit moves its entry to the end, a full cache drops the
 * first) rather than a general-purpose LRU library, whose lookup cost several
 * times more here (options objects, status tracking, a timer-backed clock).
 */
export class TtlCache<V> {
  /** Least recently used first. */
  private readonly entries = new Map<string, { value: V; expiresAt: number }>()

  private readonly max: number

  /**
   * @param max most entries kept (a non-negative integer; 0 is no bound); beyond it the least recently used goes.
   * @param ttlMs how long an entry lives after it is set, in ms (a positive integer): it is gone once older than that.
   * @param now the clock, in ms (tests pass their own).
   * The checks and their messages are those of the lru-cache options this class replaced.
   */
  constructor(
    max: number,
    private readonly ttlMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!Number.isInteger(max) || max < 0) throw new TypeError('max option must be a nonnegative integer')
    if (!Number.isInteger(ttlMs) || ttlMs <= 0) throw new TypeError('ttl must be a positive integer if specified')
    this.max = max === 0 ? Number.POSITIVE_INFINITY : max
  }

  /**
   * Whether the value the last {@link get} returned has lived more than half its TTL: time to
   * renew it while it still answers. A field rather than a second lookup, since get runs on
   * every API request.
   */
  aging = false

  /** The live value for `key`, which becomes the most recently used; undefined if absent or expired. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key)
    this.aging = false
    if (entry === undefined) return undefined
    this.entries.delete(key)
    const now = this.now()
    if (now > entry.expiresAt) return undefined
    this.entries.set(key, entry)
    this.aging = entry.expiresAt - now < this.ttlMs / 2
    return entry.value
  }

  /** Sets `key` for the next ttlMs, evicting the least recently used entry when full. */
  set(key: string, value: V): void {
    this.entries.delete(key)
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!)
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs })
  }

  /** Deletes every entry whose value `drop` selects. */
  deleteWhere(drop: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (drop(entry.value)) this.entries.delete(key)
  }

  clear(): void {
    this.entries.clear()
  }
}
