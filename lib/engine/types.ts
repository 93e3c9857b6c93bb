/**
 * The engine's public shape. The engine owns every rule of the service; the
 * HTTP router, the redirect middleware and in-process callers
 * all go through it and get the same validation and the same errors.
 */
import type { ActivityKind, Billing, Site } from '../../types/index.js'
import type { Store } from '../store/contract/index.js'
import type { FailedLoginOptions } from './auth/failed-logins.js'
import type { MasterApi } from './api/master-api.js'
import type { Caller, CredentialCacheOptions } from './auth/masters.js'
import type { RecordingStats } from './recording/recording-queue.js'

export type { Caller, MasterApi, RecordingStats }

/** Query values as Express parses them: strings, or arrays when repeated. */
export type Query = Record<string, unknown>

/** Options of {@link createEngine}. */
export interface EngineOptions {
  /** Where state lives. Default: a new MemoryStore. */
  store?: Store
  /** The clock behind every timestamp, default period and the daily limit. Default: `() => new Date()`. */
  now?: () => Date
  /**
   * Generates the mobile site from the desktop site. Default: succeeds at once.
   * Reject with an Error carrying `creation_status` 'FAILED_FRAMESET_UNSUPPORTED'
   * or 'FAILED_CONTENT_TOO_BIG' to set that status; any other rejection sets 'FAILED'.
   */
  builder?: (site: Site) => Promise<void>
  /** The supported-agents regex source served by GET /agents. Default: DEFAULT_AGENTS. */
  agents?: string
  /**
   * The in-process cache of checked credentials, which spares a scrypt hash
   * (and a store read) per request. A verdict is reused for at most `ttlMs`
   * (default 10,000 ms), so a password changed or a master removed by another
   * instance sharing the store takes effect here within that time; changes
   * made through this engine take effect at once. `ttlMs: 0` turns it off.
   */
  credentialCache?: CredentialCacheOptions
  /**
   * Password checks (scrypt) that run at once; default 2 per core. Checks
   * not answered from the credential cache wait behind them in a queue of
   * `maxQueuedPasswordChecks` (default 4 times this); past the queue a login
   * is refused at once with 503 ServiceUnavailable and `Retry-After: 1`. A
   * valid credential in the cache never waits.
   */
  maxPasswordChecks?: number
  /** Password checks that may wait for a free slot; see `maxPasswordChecks`. */
  maxQueuedPasswordChecks?: number
  /**
   * Failed logins allowed per minute per client IP (`perIp`, default 10)
   * and per user name and IP (`perUserAndIp`, default 5), counted in the
   * store so every instance sharing it sees them; past either, 429
   * TooManyRequests with `Retry-After` and no password check. 0 turns one
   * off. Applies to HTTP logins (the client IP comes from `req.ip`, so
   * Express's `trust proxy` decides), not to in-process `authenticate`.
   */
  failedLogins?: FailedLoginOptions
  /**
   * Makes generated site names and visitor ids repeat from run to run (a
   * predictable stream derived from the seed): for test suites only.
   * Default: cryptographic randomness.
   */
  randomSeed?: string | number
  /**
   * At most this many distinct values per analytics dimension (`system`:
   * browser and OS; `geo`: country and region) per site and UTC day; later
   * new values are counted under `"(other)"` (both parts), which the API and
   * the dashboard show as such. Default 1,000. A positive integer.
   */
  maxDimensionValues?: number
  /**
   * Days of analytics kept, counted back from the engine clock's day (today
   * included): older days are deleted by the store and read as days without
   * data. Default: unlimited (the spec keeps everything); production should
   * set one (docs/analytics.md). A positive integer.
   */
  analyticsRetentionDays?: number
}

/** Input of {@link Engine.recordVisit}. */
export interface VisitInput {
  site_name: string
  /** Default: the engine clock's now. */
  at?: Date
  visitor_id: string
  user_agent?: string
  country?: string
  region?: string
  /** Pages viewed during the visit; default 1. */
  page_views?: number
}

/** Input of {@link Engine.recordActivity}. */
export interface ActivityInput {
  site_name: string
  at?: Date
  kind: ActivityKind
  /** Optional, so activities can be broken down by the system dimension too. */
  user_agent?: string
  /** Optional, so activities can be broken down by the geo dimension too. */
  country?: string
  region?: string
}

/** What {@link createEngine} returns. */
export interface Engine {
  /** Adds (or replaces) a master account that may call the API. */
  addMasterAccount(account: { user: string; password: string; partner?: boolean }): Promise<void>
  /** The caller for these credentials, or undefined. Compares secrets in constant time. */
  authenticate(user: string, password: string): Promise<Caller | undefined>
  /**
   * Operations on behalf of a master account. A string is looked up on each
   * call (unknown user: Unauthorized); a Caller from {@link authenticate} is trusted.
   */
  as(caller: string | Caller): MasterApi
  /** Records a visit; builds a `create_now=false` site on its first visit. */
  recordVisit(visit: VisitInput): Promise<void>
  /** Records an activity (click-to-call, map, e-mail, form submit). */
  recordActivity(activity: ActivityInput): Promise<void>
  /** Records that a visitor was redirected to the site: sets last_confirmed_redirected_date. */
  confirmRedirect(site_name: string, at?: Date): Promise<void>
  /** The charges and subscriptions of a master account. */
  billing(user: string): Promise<Billing>
  /** The supported-agents regex source currently served. */
  getAgents(): string
  /** Replaces the supported-agents source (live: matchers built from this engine follow it). */
  setAgents(source: string): void
  /** The engine's clock. */
  now(): Date
  /** Whether a master account of that name exists (e.g. one another instance created in a shared store). */
  hasMasterAccount(user: string): Promise<boolean>
  /**
   * Counters of the recording path: events accepted, recorded, failed and
   * pending in the engine's queue, beacons collectors dropped (queue bound)
   * or limited (rate), and store calls made. Every recording of one
   * event-loop turn is one store call.
   */
  recordingStats(): RecordingStats
  /** Sends every queued recording to the store now and waits for the answers (e.g. before a shutdown). */
  flushRecordings(): Promise<void>
  /** Flushes the recording queue, waits for background builds, then closes the store. */
  close(): Promise<void>
}
