/**
 * The engine's recording queue: every visit and activity, from the collector
 * and from in-process callers alike, waits here until the end of the current
 * turn of the event loop, and everything issued in that turn goes to the
 * store as ONE `recordEvents` call (one Redis script, one PostgreSQL
 * statement, one synchronous pass in memory). Each caller still gets its own
 * outcome (or the batch's error).
 *
 * The queue itself never drops: an in-process caller holds a promise, which
 * is its back-pressure. A source that answered before recording (the
 * collector) bounds what it leaves here with `maxPendingRecordings` and
 * counts what it drops through {@link RecordingQueue.countDropped}.
 */
import type { RecordOutcome, RecordedEvent, Store } from '../store/contract.js'

/** At most this many events per store call, so one call holds a shared store only briefly. */
export const MAX_BATCH = 1000

/** Counters of the recording path (see {@link RecordingQueue.stats}). */
export interface RecordingStats {
  /** Events handed to the store queue since the engine started. */
  accepted: number
  /** Events the store has answered for (recorded, or refused as for a missing site). */
  recorded: number
  /** Events whose batch failed (store down): their callers got the error. */
  failed: number
  /** Beacons a collector answered 204 for but dropped: its queue bound (`maxPendingRecordings`) was reached. */
  dropped: number
  /** Beacons a collector dropped for its per-IP-and-site rate (`beaconsPerMinute`). */
  limited: number
  /** Events accepted and not yet answered by the store. */
  pending: number
  /** Store calls made (batches). */
  batches: number
}

interface Waiter {
  resolve: (outcome: RecordOutcome | undefined) => void
  reject: (error: unknown) => void
}

/** How the queue records: the store, and the options of each batch. */
export interface RecordingSettings {
  store: Store
  maxDimensionValues: number
  retentionDays: number | undefined
  /** The engine clock's UTC day. */
  today: () => string
}

/** One engine's queue of recordings. */
export class RecordingQueue {
  private events: RecordedEvent[] = []
  private waiters: Waiter[] = []
  private scheduled = false
  private readonly inFlight = new Set<Promise<void>>()
  private readonly counts: RecordingStats = {
    accepted: 0,
    recorded: 0,
    failed: 0,
    dropped: 0,
    limited: 0,
    pending: 0,
    batches: 0,
  }

  constructor(private readonly settings: RecordingSettings) {}

  /** Queues an event for this turn's batch; settles with the store's outcome for it. */
  record(event: RecordedEvent): Promise<RecordOutcome | undefined> {
    return new Promise((resolve, reject) => {
      this.events.push(event)
      this.waiters.push({ resolve, reject })
      this.counts.accepted += 1
      this.counts.pending += 1
      if (!this.scheduled) {
        this.scheduled = true
        setImmediate(() => this.send())
      }
    })
  }

  /** Counts a beacon a collector dropped: `queue` (bound reached) or `rate` (per-IP limit). */
  countDropped(reason: 'queue' | 'rate'): void {
    if (reason === 'queue') this.counts.dropped += 1
    else this.counts.limited += 1
  }

  /** A copy of the counters. */
  stats(): RecordingStats {
    return { ...this.counts }
  }

  /** Sends what is queued now and waits until every batch sent so far is answered. */
  async flush(): Promise<void> {
    this.send()
    while (this.inFlight.size > 0) await Promise.all(this.inFlight)
  }

  /** Sends the queued events, in batches of at most {@link MAX_BATCH}. */
  private send(): void {
    this.scheduled = false
    const events = this.events
    const waiters = this.waiters
    if (events.length === 0) return
    this.events = []
    this.waiters = []
    for (let i = 0; i < events.length; i += MAX_BATCH) {
      const batch = i === 0 && events.length <= MAX_BATCH ? events : events.slice(i, i + MAX_BATCH)
      const done = this.sendBatch(batch, waiters.slice(i, i + batch.length))
      this.inFlight.add(done)
      done.finally(() => this.inFlight.delete(done))
    }
  }

  private async sendBatch(events: RecordedEvent[], waiters: Waiter[]): Promise<void> {
    const { store, maxDimensionValues, retentionDays, today } = this.settings
    this.counts.batches += 1
    let outcomes: (RecordOutcome | undefined)[]
    try {
      outcomes = await store.recordEvents(events, { maxDimensionValues, retentionDays, today: today() })
    } catch (error) {
      this.counts.pending -= events.length
      this.counts.failed += events.length
      for (const waiter of waiters) waiter.reject(error)
      return
    }
    this.counts.pending -= events.length
    this.counts.recorded += events.length
    for (let i = 0; i < waiters.length; i++) waiters[i]!.resolve(outcomes[i])
  }
}
