/**
 * The per-account rate limit, as Duda applies it (10 calls per second on
 * every endpoint): past `perSecond` calls in any one-second window, a master
 * account's calls are answered 429 TooManyRequests with `Retry-After` until
 * the oldest of them leaves the window. Refused calls do not count.
 *
 * The window slides on the process's monotonic clock, not the engine clock:
 * a frozen test clock must not freeze the limit. It is exact (the last
 * `perSecond` accepted calls are kept per account), so the 11th call within
 * any second is refused, wherever the second boundaries fall.
 */
import { ServiceError } from '../errors.js'
import type { ApiStep } from './pipeline-steps.js'

/** The rate limit's setting. */
export interface RateLimitOptions {
  /** Calls each master account may make in any one second, 1 to {@link MAX_PER_SECOND}. */
  perSecond: number
}

/** The largest `perSecond`: the limit keeps that many call times per account. */
export const MAX_PER_SECOND = 10_000

/** Accounts whose windows are kept before the idle ones are swept. */
const SWEEP_AT = 10_000

const WINDOW_MS = 1000

/** The times of an account's last accepted calls: a ring, `times[next]` the oldest once full. */
interface Window {
  times: Float64Array
  next: number
  size: number
}

function checkOptions(options: RateLimitOptions): number {
  const n = options?.perSecond
  if (!Number.isInteger(n) || n < 1 || n > MAX_PER_SECOND) {
    throw new TypeError(`rateLimit.perSecond must be a whole number from 1 to ${MAX_PER_SECOND}`)
  }
  return n
}

/** A per-account rate limit that can be switched on, changed and off while serving. */
export class RateLimit {
  private limit: number | undefined
  private windows = new Map<string, Window>()

  constructor(
    options?: RateLimitOptions,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.set(options)
  }

  /** The setting in force; undefined while off. */
  get(): RateLimitOptions | undefined {
    return this.limit === undefined ? undefined : { perSecond: this.limit }
  }

  /** Turns it on with this setting (counting afresh), or off with undefined. */
  set(options: RateLimitOptions | undefined): void {
    this.limit = options === undefined ? undefined : checkOptions(options)
    this.windows = new Map()
  }

  /**
   * Counts a call of `user` if the limit admits it. Answers undefined when
   * admitted (or while off), else the whole seconds to wait.
   */
  admit(user: string): number | undefined {
    const limit = this.limit
    if (limit === undefined) return undefined
    const now = this.clock()
    let window = this.windows.get(user)
    if (window === undefined) {
      if (this.windows.size >= SWEEP_AT) this.sweep(now)
      window = { times: new Float64Array(limit), next: 0, size: 0 }
      this.windows.set(user, window)
    }
    if (window.size === limit) {
      const oldest = window.times[window.next]!
      if (now - oldest < WINDOW_MS) return Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000))
    } else {
      window.size++
    }
    window.times[window.next] = now
    window.next = (window.next + 1) % limit
    return undefined
  }

  /** Drops the windows of accounts with no call in the last second: they would admit the next call anyway. */
  private sweep(now: number): void {
    for (const [user, window] of this.windows) {
      const newest = window.times[(window.next + window.times.length - 1) % window.times.length]!
      if (now - newest >= WINDOW_MS) this.windows.delete(user)
    }
  }
}

/** The router step: refuses a call past the limit with 429 TooManyRequests and Retry-After. */
export function rateLimitStep(limit: RateLimit): ApiStep {
  return ({ caller }) => {
    const wait = limit.admit(caller.user)
    if (wait === undefined) return
    const perSecond = limit.get()?.perSecond
    throw new ServiceError(
      'TooManyRequests',
      `master account ${caller.user} made more than ${perSecond} calls in one second; retry after ${wait} s`,
      { retryAfter: wait },
    )
  }
}
