/**
 * Failed-login limits (OWASP's "limit failed attempts"): failed logins are
 * counted per client IP and per user name and IP; past either limit a login
 * is refused with 429 TooManyRequests and `Retry-After`, before any password
 * check runs. The counters live in the store (`incrementWithinLimit`), so
 * every instance sharing it sees them.
 *
 * Counters are kept per whole minute of real time (not the engine clock: a
 * frozen test clock must not freeze the limit, as with the rate limit), and
 * read as a sliding window, as Cloudflare's rate limiting does: the previous
 * minute's count weighted by the share of that minute still inside the last
 * 60 s, plus the current minute's, plus the checks this process has admitted
 * and not yet counted. A login is refused once that estimate reaches the
 * limit, and `Retry-After` is the whole seconds until it drops below, so a
 * per-minute limit never asks a client to wait more than a minute (fixed
 * windows read together asked for up to two). The price is that the estimate
 * assumes the previous minute's failures were spread evenly: any 60 s holds
 * at most twice the limit, not the limit.
 */
import { ServiceError } from '../../errors.js'
import type { Store } from '../../store/contract/index.js'

/** Engine option `failedLogins`: failed logins allowed per minute; 0 turns a limit off. */
export interface FailedLoginOptions {
  /** Failed logins per client IP per minute. Default 10. */
  perIp?: number
  /** Failed logins per user name and client IP per minute. Default 5. */
  perUserAndIp?: number
}

const MINUTE_MS = 60_000
/**
 * The last millisecond of a window, from its start. The last 60 s are the
 * 60,000 ms ending with the current one, so at a minute's first millisecond
 * the previous minute weighs 59,999/60,000, not all of it: a count that just
 * reached the limit stops refusing exactly 60 s on, within the bound.
 */
const LAST_MS = MINUTE_MS - 1
/** The longest `Retry-After`, in seconds: a per-minute limit never asks for more. */
const MAX_WAIT_S = 60
/** Refusals remembered in process at most (see FailedLogins.refused). */
const REFUSED_MAX = 10_000
/** Counted with this limit, so a failure is always counted. */
const NO_LIMIT = 1_000_000_000

/** A login admitted by {@link FailedLogins.admit}: settle it with `failed` or `done`. */
export interface LoginTicket {
  readonly counters: readonly { key: string; limit: number }[]
  readonly window: number
}

/**
 * Milliseconds from `now` until the sliding estimate of failures drops below
 * `limit` if none is added; 0 when it is below already. `previous` and
 * `current` are the counts of the windows before and at `now`. Counts are
 * scaled by MINUTE_MS, so the comparisons are exact in integers.
 */
function msUntilBelow(now: number, previous: number, current: number, limit: number): number {
  const start = Math.floor(now / MINUTE_MS) * MINUTE_MS
  const elapsed = now - start
  const scaledLimit = limit * MINUTE_MS
  if (previous * (LAST_MS - elapsed) + current * MINUTE_MS < scaledLimit) return 0
  if (current < limit) {
    // Within this minute: the first elapsed ms with previous * (LAST_MS - elapsed) < (limit - current) * MINUTE_MS.
    return start + LAST_MS - Math.floor(((limit - current) * MINUTE_MS - 1) / previous) - now
  }
  // Not before the next minute, where this one is the previous: current * (LAST_MS - elapsed) < scaledLimit.
  return start + MINUTE_MS + LAST_MS - Math.floor((scaledLimit - 1) / current) - now
}

/** A wait in ms as `Retry-After`: whole seconds, rounded up, from 1 to {@link MAX_WAIT_S}. */
function secondsOf(ms: number): number {
  return Math.min(MAX_WAIT_S, Math.max(1, Math.ceil(ms / 1000)))
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
    const counters: { key: string; limit: number; message: string }[] = []
    if (this.perIp > 0) counters.push({ key: `failed-login-ip:${ip}`, limit: this.perIp, message: 'from this address' })
    if (this.perUserAndIp > 0) {
      counters.push({
        key: `failed-login-user:${user}:${ip}`,
        limit: this.perUserAndIp,
        message: 'for this user from this address',
      })
    }
    // The longest wait any refusing counter asks for: waiting less would only be refused again.
    let refusal: { ms: number; message: string } | undefined
    for (const { key } of counters) {
      const known = this.refused.get(key)
      if (known === undefined) continue
      if (known.until <= now) {
        this.refused.delete(key)
      } else if (refusal === undefined || known.until - now > refusal.ms) {
        refusal = { ms: known.until - now, message: known.message }
      }
    }
    if (refusal !== undefined) throw this.tooMany(refusal.message, refusal.ms)
    // A limit of 0 only reads the count.
    const read = (key: string, w: number) => this.store.incrementWithinLimit(`${key}:${w}`, 0, this.expiry(w))
    const counts = await Promise.all(
      counters.map(async ({ key }) => {
        const [previous, current] = await Promise.all([read(key, window - 1), read(key, window)])
        return { previous: previous.count, current: current.count }
      }),
    )
    for (let i = 0; i < counters.length; i++) {
      const { key, limit, message: whose } = counters[i]!
      const { previous, current } = counts[i]!
      // This process's admitted checks may yet fail in this window: counted as if they had.
      const ms = msUntilBelow(now, previous, current + (this.pending.get(key) ?? 0), limit)
      if (ms === 0) continue
      const message = `too many failed logins ${whose}`
      // Only what the store said is remembered: the same-process part may still settle as successes.
      const stored = msUntilBelow(now, previous, current, limit)
      if (stored > 0) {
        if (this.refused.size >= REFUSED_MAX) this.refused.delete(this.refused.keys().next().value as string)
        this.refused.set(key, { until: now + stored, message })
      }
      if (refusal === undefined || ms > refusal.ms) refusal = { ms, message }
    }
    if (refusal !== undefined) throw this.tooMany(refusal.message, refusal.ms)
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

  private tooMany(message: string, ms: number): ServiceError {
    const wait = secondsOf(ms)
    return new ServiceError('TooManyRequests', `${message}; retry after ${wait} s`, { retryAfter: wait })
  }

  /** A window's counter is read during the next one too. */
  private expiry(window: number): number {
    return (window + 2) * MINUTE_MS
  }
}
