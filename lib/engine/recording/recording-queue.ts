/**
 * The engine's recording queue: every visit and activity, from the collector
 * and from in-process callers alike, waits here until the end of the current
 * turn of the event loop, and everything issued in that turn goes to the
 * store as ONE `recordEvents` call (one Redis script, one PostgreSQL
 * statement, one synchronous pass in memory). Each caller still gets its own
 * outcome (or the batch's error).
 *
 * While {@link MAX_IN_FLIGHT} batches are waiting for the store, new events
 * wait for the next one to be answered and then go together (group commit):
 * under load batches grow towards {@link MAX_BATCH} and a store pays its
 * per-call cost (a round trip, a statement) once per many events; at rest
 * an event still leaves at the end of its turn.
 *
 * The queue itself never drops: an in-process caller holds a promise, which
 * is its back-pressure. A source that answered before recording (the
 * collector) bounds what it leaves here with `maxPendingRecordings` and
 * counts what it drops through {@link RecordingQueue.countDropped}.
 */
import type { RecordOutcome, RecordedEvent, Store } from '../../store/contract/index.js'

/** At most this many events per store call, so one call holds a shared store only briefly. */
export const MAX_BATCH = 1000
/** Batches sent and not yet answered, at most; more events wait for the next free one. */
export const MAX_IN_FLIGHT = 2

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

/**
 * Who hears of an event's outcome. One waiter may serve many events (the
 * collector's does), so it is told which event each outcome is for.
 */
export interface RecordingWaiter {
  resolve: (outcome: RecordOutcome | undefined, event: RecordedEvent) => void
  reject: (error: unknown, event: RecordedEvent) => void
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
  private waiters: RecordingWaiter[] = []
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

  /**
   * Queues an event for this turn's batch and tells `waiter` its outcome (an
   * in-process caller's waiter settles its promise; the collector has one
   * waiter for all its beacons).
   */
  enqueue(event: RecordedEvent, waiter: RecordingWaiter): void {
    this.events.push(event)
    this.waiters.push(waiter)
    this.counts.accepted += 1
    this.counts.pending += 1
    this.schedule()
  }

  /** Sends at the end of this turn, unless a send is due already or every batch slot is taken. */
  private schedule(): void {
    if (this.scheduled || this.inFlight.size >= MAX_IN_FLIGHT || this.events.length === 0) return
    this.scheduled = true
    setImmediate(() => this.send())
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

  /** Sends everything queued now, whatever is in flight, and waits until all of it is answered. */
  async flush(): Promise<void> {
    this.send(true)
    while (this.inFlight.size > 0 || this.events.length > 0) {
      this.send(true)
      await Promise.all(this.inFlight)
    }
  }

  /** Sends queued events, in batches of at most {@link MAX_BATCH}, into the free slots (all: `force`). */
  private send(force = false): void {
    this.scheduled = false
    while (this.events.length > 0 && (force || this.inFlight.size < MAX_IN_FLIGHT)) {
      const whole = this.events.length <= MAX_BATCH
      const batch = whole ? this.events : this.events.slice(0, MAX_BATCH)
      const waiters = whole ? this.waiters : this.waiters.slice(0, MAX_BATCH)
      this.events = whole ? [] : this.events.slice(MAX_BATCH)
      this.waiters = whole ? [] : this.waiters.slice(MAX_BATCH)
      const done = this.sendBatch(batch, waiters).finally(() => {
        this.inFlight.delete(done)
        this.schedule()
      })
      this.inFlight.add(done)
    }
  }

  private async sendBatch(events: RecordedEvent[], waiters: RecordingWaiter[]): Promise<void> {
    const { store, maxDimensionValues, retentionDays, today } = this.settings
    this.counts.batches += 1
    let outcomes: (RecordOutcome | undefined)[]
    try {
      outcomes = await store.recordEvents(events, { maxDimensionValues, retentionDays, today: today() })
    } catch (error) {
      this.counts.pending -= events.length
      this.counts.failed += events.length
      for (let i = 0; i < waiters.length; i++) waiters[i]!.reject(error, events[i]!)
      return
    }
    this.counts.pending -= events.length
    this.counts.recorded += events.length
    for (let i = 0; i < waiters.length; i++) waiters[i]!.resolve(outcomes[i], events[i]!)
  }
}
