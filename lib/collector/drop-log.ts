/**
 * The collector's warning about dropped beacons (DESIGN "Bounded ingest":
 * dropped and counted, metric and log). A flood drops thousands of beacons a
 * second; one line per drop would be a second flood, into the logs. So the
 * first drop is logged at once, and later ones at most once per interval,
 * with the counts since the line before.
 */

/** What the collector logs through: pino's `warn(object, message)` fits. */
export interface CollectorLogger {
  warn(fields: Record<string, unknown>, message: string): void
}

/** Default interval between two lines about dropped beacons. */
export const DEFAULT_DROP_LOG_INTERVAL_MS = 10_000

/** Why a beacon was dropped: its client's rate, or the bound of pending recordings. */
export type DropReason = 'rate' | 'queue'

/** Counts drops and writes them to `logger` at most once per `intervalMs`. */
export class DropLog {
  private counts = { rate: 0, queue: 0 }
  private last = Number.NEGATIVE_INFINITY
  private timer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly logger: CollectorLogger,
    private readonly intervalMs = DEFAULT_DROP_LOG_INTERVAL_MS,
  ) {}

  /** Counts one drop; logs now when the last line is older than the interval, else at its end. */
  note(reason: DropReason): void {
    this.counts[reason] += 1
    if (this.timer !== undefined) return
    const wait = this.last + this.intervalMs - Date.now()
    if (wait <= 0) return this.write()
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.write()
    }, wait)
    // A pending line never keeps the process alive.
    this.timer.unref?.()
  }

  private write(): void {
    const { rate, queue } = this.counts
    if (rate + queue === 0) return
    this.counts = { rate: 0, queue: 0 }
    this.last = Date.now()
    try {
      this.logger.warn(
        { dropped_rate: rate, dropped_queue: queue, interval_ms: this.intervalMs },
        `collector dropped ${rate + queue} beacon(s): ${rate} over beaconsPerMinute, ${queue} past maxPendingRecordings`,
      )
    } catch {
      // A failing logger must not break the collector.
    }
  }
}
