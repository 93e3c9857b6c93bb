/**
 * Master accounts: who may call the API.
 *
 * Passwords are stored as scrypt hashes (./password-hash.ts). Checking one
 * costs tens of milliseconds of CPU, so credentials that verified are kept in
 * a bounded in-process cache keyed by the user and an HMAC of the password
 * (the key is random per process, so the cache never holds a reusable
 * password digest). Failures are cached the same way, so a client retrying
 * a wrong password cannot make the process hash at its pace. A cache entry
 * lives at most `ttlMs` (default 10 s): a password change or removal made by
 * ANOTHER instance sharing the store takes effect here within that bound;
 * changes made through this engine take effect at once. A valid verdict
 * used after half its TTL is renewed in the background while it still
 * answers, so a client calling steadily never waits for a check: before,
 * each expiry held every request of that client behind one scrypt (p99
 * 141-166 ms at 3,000 requests/s on the CLI, against 9 ms without expiry;
 * issue 38). The renewal reads the store like any check, so the bound above
 * holds.
 *
 * Credentials that arrive encoded (the token of an HTTP Basic header, which
 * encodes exactly one user and password) have verdicts of their own, keyed
 * by the keyed digest of the token: a repeated request is answered from the
 * cache without decoding the token and without a promise. Each such verdict
 * comes from its own check, so it obeys the same bound.
 *
 * Checks that are not answered from the cache pass the password gate
 * (./password-gate.ts: a bounded number at once, a short queue, 503 past it)
 * and, when the caller says which client asks, the failed-login limits
 * (./failed-logins.ts). A valid verdict in the cache passes neither: a
 * known-good client is never slowed by someone else's flood.
 *
 * The masters given to this process's addMasterAccount are re-created on
 * demand when the store has lost them (a Redis restart without persistence),
 * with a create-if-absent, so a record another instance wrote is never overwritten.
 */
import * as crypto from 'node:crypto'
import { createHmac, randomBytes } from 'node:crypto'
import { invalidInput } from '../../errors.js'
import type { MasterRecord, Store } from '../../store/contract/index.js'
import { FailedLogins, type FailedLoginOptions } from './failed-logins.js'
import { ClientGoneError, PasswordGate, type PasswordGateOptions } from './password-gate.js'
import { DECOY_HASH, hashPassword, needsRehash, verifyPassword } from './password-hash.js'
import { TtlCache } from './ttl-cache.js'

/** Who is calling: a master account after authentication. */
export interface Caller {
  user: string
  partner: boolean
}

/** Bounds of the verified-credential cache (engine option `credentialCache`). */
export interface CredentialCacheOptions {
  /** Longest time a verdict is reused without reading the store, in ms. Default 10,000; 0 turns the cache off. */
  ttlMs?: number
  /** Most verdicts kept. Default 10,000. */
  max?: number
}

/**
 * The cache key's digest of a password under this process's random key.
 * Node's one-shot crypto.hash of key || password (Node >= 20.12) costs a
 * fifth of an HMAC object (about 0.8 µs against 4 µs, on every request);
 * with a fixed-length secret prefix and digests never shown to anyone it
 * serves the same purpose. Older Node falls back to the HMAC.
 */
function digestKeyedBy(secret: Buffer): (password: string) => string {
  const hash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'base64') => string }).hash
  const prefix = secret.toString('base64')
  if (typeof hash === 'function') return (password) => hash('sha256', prefix + password, 'base64')
  return (password) => createHmac('sha256', secret).update(password).digest('base64')
}

/**
 * A verdict: the caller the credentials belong to (frozen, since token
 * verdicts hand it out as is), or null for "wrong"; `user` is whose
 * credentials they are, for {@link MasterRegistry.forget}.
 */
type Verdict = { user: string; caller: Readonly<Caller> | null }

/** A user and password, as decoded from an encoded credential. */
export interface Credentials {
  user: string
  password: string
}

/** How long an uncached check of a request's credentials waits before it costs a store round trip. */
export const ADMIT_DELAY_MS = 2

/** Who presents encoded credentials, for the failed-login limits and the gate. */
export interface LoginClient {
  /** The client's IP address; without it no failed-login limit applies. */
  ip?: string
  /** Fires when the client has gone: a check still queued is then never run. */
  signal?: AbortSignal
}

/** Engine options of the registry. */
export interface MasterRegistryOptions extends PasswordGateOptions {
  credentialCache?: CredentialCacheOptions
  failedLogins?: FailedLoginOptions
}

/**
 * Prefix of the cache keys of encoded credentials. User keys are
 * `user \0 digest` with no ':' in either part, so the two never collide.
 */
const TOKEN_KEY = ':'

/** The master accounts of one engine. */
export class MasterRegistry {
  /** This process's addMasterAccount records, by user: the ones re-created when the store lost them. */
  private readonly given = new Map<string, MasterRecord>()
  private readonly verdicts: TtlCache<Verdict> | undefined
  /** Checks in flight by cache key, so a burst of identical requests hashes once. */
  private readonly inFlight = new Map<string, Promise<Readonly<Caller> | undefined>>()
  /** The same for logins under the failed-login limits, from their admission on. */
  private readonly admitting = new Map<string, Promise<Readonly<Caller> | undefined>>()
  private readonly hmacKey = randomBytes(32)
  private readonly keyed = digestKeyedBy(this.hmacKey)
  /** The bound on password checks in flight; its `stats` count the checks run. */
  readonly gate: PasswordGate
  private readonly failedLogins: FailedLogins

  constructor(
    private readonly store: Store,
    options: MasterRegistryOptions = {},
  ) {
    const cache = options.credentialCache ?? {}
    const ttl = cache.ttlMs ?? 10_000
    if (ttl > 0) this.verdicts = new TtlCache(cache.max ?? 10_000, ttl)
    this.gate = new PasswordGate(options)
    this.failedLogins = new FailedLogins(store, options.failedLogins)
  }

  /** Adds or replaces a master account, and remembers it for re-creation. */
  async add(account: { user: string; password: string; partner?: boolean }): Promise<void> {
    const { user, password, partner = false } = account ?? {}
    // HTTP Basic splits at the first ':', so a user name holding one could never log in.
    if (typeof user !== 'string' || user === '' || user.includes(':')) {
      throw invalidInput('user must be a non-empty string without ":"')
    }
    if (typeof password !== 'string' || password === '') throw invalidInput('password must be a non-empty string')
    if (typeof partner !== 'boolean') throw invalidInput('partner must be a boolean')
    const record: MasterRecord = { user, partner, ...(await hashPassword(password)) }
    await this.store.putMaster(record)
    this.given.set(user, record)
    this.forget(user)
  }

  /**
   * Drops cached verdicts (of one user, or all), so the next call reads the
   * store. For package-internal code that changes masters in the store directly.
   */
  forget(user?: string): void {
    // Checks in flight may have read the record before the change: later callers start their own.
    this.inFlight.clear()
    this.admitting.clear()
    if (!this.verdicts) return
    if (user === undefined) return this.verdicts.clear()
    this.verdicts.deleteWhere((verdict) => verdict.user === user)
  }

  /**
   * Forgets every cached verdict, and every master given to addMasterAccount
   * but those in `users`: they are no longer re-created when missing (the
   * test-double reset keeps only the masters that existed at start).
   */
  keepOnly(users: ReadonlySet<string>): void {
    for (const user of [...this.given.keys()]) if (!users.has(user)) this.given.delete(user)
    this.forget()
  }

  /** The caller for these credentials, or undefined. Unknown user and wrong password cost the same. */
  async authenticate(user: string, password: string): Promise<Caller | undefined> {
    const key = `${user}\0${this.keyed(password)}`
    const cached = this.verdicts?.get(key)
    if (this.dueForRenewal(key, cached)) this.renew(key, user, password)
    const caller = cached ? cached.caller : await this.verdict(key, user, password)
    return caller ? { ...caller } : undefined
  }

  /**
   * {@link authenticate} for credentials in an encoded form that stands for
   * exactly one user and password (`decode` gives them, or undefined when the
   * token is malformed). A valid verdict cached for this very token is
   * answered synchronously, without decoding; the caller returned is frozen.
   * So is a failure cached for it (a repeat is no new guess). With
   * `client.ip`, any other well-formed credential first passes the
   * failed-login limits (TooManyRequests past them) and a failure is counted.
   */
  authenticateToken(
    token: string,
    decode: (token: string) => Credentials | undefined,
    client: LoginClient = {},
  ): Readonly<Caller> | undefined | Promise<Readonly<Caller> | undefined> {
    const key = TOKEN_KEY + this.keyed(token)
    const cached = this.verdicts?.get(key)
    if (this.dueForRenewal(key, cached)) {
      const credentials = decode(token)
      if (credentials) this.renew(key, credentials.user, credentials.password)
    }
    // A failure already known is answered as such: it is no new guess, and costs no check.
    if (cached) return cached.caller ?? undefined
    const credentials = decode(token)
    if (!credentials) return undefined
    if (client.ip !== undefined && this.failedLogins.enabled) return this.limited(key, credentials, client)
    return this.verdict(key, credentials.user, credentials.password, client.signal)
  }

  /**
   * {@link authenticateToken} under the failed-login limits, once for a
   * burst of identical credentials (one guess, and a client opening many
   * connections with one valid credential is not held back).
   */
  private limited(key: string, credentials: Credentials, client: LoginClient): Promise<Readonly<Caller> | undefined> {
    let pending = this.admitting.get(key)
    if (!pending) {
      const admitted: Promise<Readonly<Caller> | undefined> = this.admitAndCheck(key, credentials, client).finally(
        () => this.admitting.get(key) === admitted && this.admitting.delete(key),
      )
      pending = admitted
      this.admitting.set(key, pending)
    }
    return pending
  }

  private async admitAndCheck(
    key: string,
    { user, password }: Credentials,
    { ip, signal }: LoginClient,
  ): Promise<Readonly<Caller> | undefined> {
    // A client already gone costs no store round trip either (a flood of closed
    // sockets). A client that sent its request and closed at once is seen as
    // gone a moment later (its FIN is read in a later turn of the event loop:
    // 98 % of a 1,500-socket flood within 1 ms here), so an uncached check
    // first waits ADMIT_DELAY_MS, next to the ~60 ms of its scrypt.
    if (signal && !signal.aborted) {
      await new Promise<void>((resolve) => setTimeout(resolve, ADMIT_DELAY_MS))
      // Then one I/O poll at least: a busy loop runs late timers before it reads sockets.
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
    if (signal?.aborted) {
      this.gate.stats.skipped++
      throw new ClientGoneError()
    }
    const ticket = await this.failedLogins.admit(ip!, user)
    let caller: Readonly<Caller> | undefined
    try {
      caller = await this.verdict(key, user, password, signal)
    } catch (error) {
      this.failedLogins.done(ticket)
      throw error
    }
    if (caller) this.failedLogins.done(ticket)
    else await this.failedLogins.failed(ticket)
    return caller
  }

  /**
   * Checks valid credentials again in the background, once, and caches the
   * new verdict: see the module comment. A renewal the gate turns away or a
   * store that fails leaves the old verdict to expire.
   */
  private renew(key: string, user: string, password: string): void {
    this.verdict(key, user, password).catch(() => undefined)
  }

  /**
   * Whether `cached`, just read for `key`, is a valid verdict past half its TTL with no check
   * of it running: asked before decoding a token, so the calls during a renewal decode nothing.
   */
  private dueForRenewal(key: string, cached: Verdict | undefined): boolean {
    return cached?.caller != null && this.verdicts!.aging && !this.inFlight.has(key)
  }

  /**
   * Checks the credentials through the gate (once for a burst of identical
   * ones) and caches the verdict under `key`, unless {@link forget} was
   * called meanwhile: the check may have read the record before the change.
   */
  private verdict(
    key: string,
    user: string,
    password: string,
    signal?: AbortSignal,
  ): Promise<Readonly<Caller> | undefined> {
    let check = this.inFlight.get(key)
    if (!check) {
      check = this.gate
        .run(() => this.check(user, password, signal), signal)
        .then(
          (caller) => {
            const current = this.inFlight.get(key) === check
            if (current) this.inFlight.delete(key)
            const frozen = caller && Object.freeze({ user: caller.user, partner: caller.partner })
            if (current) this.verdicts?.set(key, { user, caller: frozen ?? null })
            return frozen
          },
          (error: unknown) => {
            if (this.inFlight.get(key) === check) this.inFlight.delete(key)
            throw error
          },
        )
      this.inFlight.set(key, check)
    }
    return check
  }

  /** The stored master, re-created first when it is one of this process's and the store lost it. */
  async lookup(user: string): Promise<MasterRecord | undefined> {
    const stored = await this.store.getMaster(user)
    if (stored) return stored
    const given = this.given.get(user)
    if (!given) return undefined
    // Create-if-absent: when another instance wrote the record meanwhile, that record wins.
    if (await this.store.putMasterIf(given, null)) return { ...given }
    return this.store.getMaster(user)
  }

  private async check(user: string, password: string, signal?: AbortSignal): Promise<Caller | undefined> {
    const stored = await this.store.getMaster(user)
    // The client may have gone while the record was read: no scrypt for nobody.
    if (signal?.aborted) {
      this.gate.stats.skipped++
      throw new ClientGoneError()
    }
    const given = stored ? undefined : this.given.get(user)
    const record = stored ?? given
    if (!record) {
      await verifyPassword(await DECOY_HASH, password)
      return undefined
    }
    if (!(await verifyPassword(record, password))) return undefined
    if (given) {
      const current = await this.lookup(user)
      return current && current.password_hash === given.password_hash
        ? { user, partner: current.partner }
        : this.check(user, password, signal)
    }
    if (needsRehash(record.password_hash)) {
      // Only over the record just verified: a password another instance changed meanwhile stays.
      await this.store.putMasterIf({ ...record, ...(await hashPassword(password)) }, record.password_hash)
    }
    return { user: record.user, partner: record.partner }
  }
}
