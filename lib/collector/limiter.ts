/**
 * The collector's per-client beacon limit: at most `perMinute` beacons per
 * key (client IP and site) in each wall-clock minute (a fixed window). Its
 * memory is bounded: at most `maxKeys` keys are tracked, and past that the
 * oldest key of the window is forgotten (a Map keeps insertion order, so
 * that is O(1)). A forgotten key starts again at zero: a flood from more
 * than `maxKeys` addresses in one minute loosens the limit for the oldest
 * ones, but never makes the limiter itself grow.
 */

/** Keys tracked by default: about 100 bytes each. */
export const DEFAULT_MAX_KEYS = 100_000

/** A fixed-window counter per key. */
export class BeaconLimiter {
  private counts = new Map<string, number>()
  private window = -1

  constructor(
    private readonly perMinute: number,
    private readonly maxKeys = DEFAULT_MAX_KEYS,
    private readonly clock: () => number = Date.now,
  ) {}

  /** False when there is no limit (`perMinute` 0): callers need not build a key. */
  get enabled(): boolean {
    return this.perMinute > 0
  }

  /** Counts one beacon for `key`; false when the key has used its minute. */
  allow(key: string): boolean {
    if (this.perMinute <= 0) return true
    const window = Math.floor(this.clock() / 60_000)
    if (window !== this.window) {
      this.window = window
      this.counts = new Map()
    }
    const count = this.counts.get(key)
    if (count === undefined) {
      if (this.counts.size >= this.maxKeys) this.counts.delete(this.counts.keys().next().value as string)
      this.counts.set(key, 1)
      return true
    }
    if (count >= this.perMinute) return false
    this.counts.set(key, count + 1)
    return true
  }

  /** Keys tracked now (for tests and metrics). */
  get size(): number {
    return this.counts.size
  }
}
