/**
 * The password gate: at most `maxPasswordChecks` scrypt verifications run at
 * once, a short queue waits behind them, and past the queue a check is
 * refused at once with 503 ServiceUnavailable and `Retry-After`. Without it a
 * flood of credentials (even from clients that closed their sockets at once)
 * queued unboundedly on libuv's thread pool: the next valid login waited
 * minutes. A queued check whose client has gone (its AbortSignal fired) leaves
 * the queue at once and is never run.
 */
import { availableParallelism } from 'node:os'
import { ServiceError } from '../../errors.js'

/** Options of the gate (engine options `maxPasswordChecks`, `maxQueuedPasswordChecks`). */
export interface PasswordGateOptions {
  /** Checks that run at once. Default: 2 per core. */
  maxPasswordChecks?: number
  /** Checks that may wait behind them. Default: 4 times `maxPasswordChecks`. */
  maxQueuedPasswordChecks?: number
}

/** What the gate has done since it was made: observable by metrics and tests. */
export interface PasswordGateStats {
  /** Checks that were run. */
  started: number
  /** Queued checks dropped because their client had gone. */
  skipped: number
  /** Checks refused because the queue was full (503). */
  refused: number
}

/** Thrown for a check whose client went away: nobody reads the answer. */
export class ClientGoneError extends Error {
  constructor() {
    super('the client went away before its password check ran')
    this.name = 'ClientGoneError'
  }
}

interface Waiter {
  start: () => void
  signal: AbortSignal | undefined
  onAbort: () => void
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) throw new TypeError(`${name} must be a whole number >= 0`)
  return value
}

/** A bounded pool of password checks with a bounded queue; see the module comment. */
export class PasswordGate {
  readonly max: number
  readonly queueMax: number
  readonly stats: PasswordGateStats = { started: 0, skipped: 0, refused: 0 }
  private running = 0
  private readonly queue = new Set<Waiter>()

  constructor(options: PasswordGateOptions = {}) {
    this.max = Math.max(
      1,
      positiveInteger('maxPasswordChecks', options.maxPasswordChecks ?? 2 * availableParallelism()),
    )
    this.queueMax = positiveInteger('maxQueuedPasswordChecks', options.maxQueuedPasswordChecks ?? 4 * this.max)
  }

  /** Checks running now, and waiting. */
  get load(): { running: number; queued: number } {
    return { running: this.running, queued: this.queue.size }
  }

  /**
   * Runs `check` when a slot is free. Rejects with ServiceUnavailable (and
   * `retryAfter`) when the queue is full, and with {@link ClientGoneError}
   * when `signal` fires before the check started.
   */
  run<T>(check: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) {
      this.stats.skipped++
      return Promise.reject(new ClientGoneError())
    }
    if (this.running < this.max) return this.start(check)
    if (this.queue.size >= this.queueMax) {
      this.stats.refused++
      return Promise.reject(
        new ServiceError('ServiceUnavailable', 'too many password checks are waiting; retry shortly', {
          retryAfter: 1,
        }),
      )
    }
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = {
        signal,
        start: () => {
          signal?.removeEventListener('abort', waiter.onAbort)
          this.start(check).then(resolve, reject)
        },
        onAbort: () => {
          // Leaves the queue at once: a closed socket must not hold a place.
          if (!this.queue.delete(waiter)) return
          this.stats.skipped++
          reject(new ClientGoneError())
        },
      }
      signal?.addEventListener('abort', waiter.onAbort, { once: true })
      this.queue.add(waiter)
    })
  }

  private async start<T>(check: () => Promise<T>): Promise<T> {
    this.running++
    this.stats.started++
    try {
      return await check()
    } finally {
      this.running--
      this.next()
    }
  }

  private next(): void {
    for (const waiter of this.queue) {
      // A client gone without its abort having been seen yet: dropped, never run.
      if (waiter.signal?.aborted) {
        waiter.onAbort()
        continue
      }
      this.queue.delete(waiter)
      waiter.start()
      return
    }
  }
}
