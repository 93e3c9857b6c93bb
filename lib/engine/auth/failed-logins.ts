/**
 * Failed-login limits (OWASP's "limit failed attempts"): failed logins are
 * counted per client IP and per user name and IP; past either limit a login
 * is refused with 429 TooManyRequests and `Retry-After`, before any password
 * check runs. The counters live in the store (`incrementWithinLimit`), so
 * every instance sharing it sees them.
 *
 * Windows are whole minutes of real time (not the engine clock: a frozen test
 * clock must not freeze the limit, as with the rate limit). A login is
 * admitted while the failures of the previous and the current minute, plus
 * the checks this process has admitted and not yet counted, stay under the
 * limit; so any 60 s holds at most `limit` failures, and one process never
 * lets more than that through at once even when checks overlap.
 */
import { ServiceError } from '../../errors.js'
import type { Store } from '../../store/contract.js'

/** Engine option `failedLogins`: failed logins allowed per minute; 0 turns a limit off. */
export interface FailedLoginOptions {
  /** Failed logins per client IP per minute. Default 10. */
  perIp?: number
  /** Failed logins per user name and client IP per minute. Default 5. */
  perUserAndIp?: number
}

const MINUTE_MS = 60_000
/** Refusals remembered in process at most (see FailedLogins.refused). */
const REFUSED_MAX = 10_000
/** Counted with this limit, so a failure is always counted. */
const NO_LIMIT = 1_000_000_000

/** A login admitted by {@link FailedLogins.admit}: settle it with `failed` or `done`. */
export interface LoginTicket {
  readonly counters: readonly { key: string; limit: number }[]
  readonly window: number
}

function limitOption(name: string, value: number | undefined, fallback: number): number {
  const n = value ?? fallback
  if (!Number.isInteger(n) || n < 0) throw new TypeError(`failedLogins.${name} must be a whole number >= 0`)
  return n
}

/** The store-backed failed-login counters of one engine. */
export class FailedLogins {
  private readonly perIp: number
  private readonly perUserAndIp: number
  /** Admitted checks not yet settled, by counter key: the same-process part of the count. */
  private readonly pending = new Map<string, number>()
  /**
   * Counters known past their limit, until when (ms): counts only grow within
   * a window, so a refusal holds until then without asking the store again;
   * a flood past the limit costs no store round trip. Bounded: when full, the
   * oldest entries go (they are asked of the store again, nothing more).
   */
  private readonly refused = new Map<string, { until: number; message: string }>()

  constructor(
    private readonly store: Store,
    options: FailedLoginOptions = {},
    private readonly clock: () => number = Date.now,
  ) {
    this.perIp = limitOption('perIp', options.perIp, 10)
    this.perUserAndIp = limitOption('perUserAndIp', options.perUserAndIp, 5)
  }

  /** Whether any limit is on. */
  get enabled(): boolean {
    return this.perIp > 0 || this.perUserAndIp > 0
  }

  /**
   * Admits one login of `user` from `ip`, or throws TooManyRequests with the
   * seconds to wait. The ticket must be settled (`failed` or `done`).
   */
  async admit(ip: string, user: string): Promise<LoginTicket> {
    const now = this.clock()
    const window = Math.floor(now / MINUTE_MS)
    const counters: { key: string; limit: number }[] = []
    if (this.perIp > 0) counters.push({ key: `failed-login-ip:${ip}`, limit: this.perIp })
    if (this.perUserAndIp > 0) counters.push({ key: `failed-login-user:${user}:${ip}`, limit: this.perUserAndIp })
    for (const { key } of counters) {
      const known = this.refused.get(key)
      if (known === undefined) continue
      if (known.until <= now) this.refused.delete(key)
      else throw this.tooMany(known.message, Math.max(1, Math.ceil((known.until - now) / 1000)))
    }
    // A limit of 0 only reads the count.
    const read = (key: string, w: number) => this.store.incrementWithinLimit(`${key}:${w}`, 0, this.expiry(w))
    const counts = await Promise.all(
      counters.map(async ({ key }) => {
        const [previous, current] = await Promise.all([read(key, window - 1), read(key, window)])
        return { previous: previous.count, current: current.count }
      }),
    )
    for (let i = 0; i < counters.length; i++) {
      const { key, limit } = counters[i]!
      const { previous, current } = counts[i]!
      const inFlight = this.pending.get(key) ?? 0
      if (previous + current + inFlight < limit) continue
      // The previous minute's failures stop counting when this minute ends; this minute's, a minute later.
      const until = (current + inFlight >= limit ? window + 2 : window + 1) * MINUTE_MS
      const wait = Math.max(1, Math.ceil((until - now) / 1000))
      const message = `too many failed logins ${i === 0 && this.perIp > 0 ? 'from this address' : 'for this user from this address'}`
      // Only what the store said: the same-process part may still settle as successes.
      if (previous + current >= limit) {
        if (this.refused.size >= REFUSED_MAX) this.refused.delete(this.refused.keys().next().value as string)
        this.refused.set(key, { until: (current >= limit ? window + 2 : window + 1) * MINUTE_MS, message })
      }
      throw this.tooMany(message, wait)
    }
    for (const { key } of counters) this.pending.set(key, (this.pending.get(key) ?? 0) + 1)
    return { counters, window }
  }

  /** Counts the admitted login as failed. */
  async failed(ticket: LoginTicket): Promise<void> {
    try {
      const expiresAt = this.expiry(ticket.window)
      await Promise.all(
        ticket.counters.map(({ key }) =>
          this.store.incrementWithinLimit(`${key}:${ticket.window}`, NO_LIMIT, expiresAt),
        ),
      )
    } finally {
      this.done(ticket)
    }
  }

  /** Settles an admitted login that did not fail (or whose check never ran). */
  done(ticket: LoginTicket): void {
    for (const { key } of ticket.counters) {
      const left = (this.pending.get(key) ?? 1) - 1
      if (left > 0) this.pending.set(key, left)
      else this.pending.delete(key)
    }
  }

  private tooMany(message: string, wait: number): ServiceError {
    return new ServiceError('TooManyRequests', `${message}; retry after ${wait} s`, { retryAfter: wait })
  }

  /** A window's counter is read during the next one too. */
  private expiry(window: number): number {
    return (window + 2) * MINUTE_MS
  }
}
