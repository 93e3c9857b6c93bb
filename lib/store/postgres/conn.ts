/**
 * The connection side of PostgresStore: the pool, a deadline on every call,
 * prepared statements, and migrations run once before the first call. What
 * a failure means (an outage, {@link StoreUnavailableError}, or a
 * statement's own error) is connection-failures.ts'.
 *
 * Every call has ONE deadline covering both getting a connection and running
 * the statement, so a database that is down, restarting or silent (a frozen
 * network) answers StoreUnavailableError within `timeoutMs`, never a hang.
 * A connection that missed its deadline is destroyed, not reused: it may be
 * stuck behind a dead socket.
 */
import { createHash } from 'node:crypto'
import pg from 'pg'
import type { Pool, PoolClient, PoolConfig, QueryResultRow } from 'pg'
import { StoreUnavailableError } from '../contract/index.js'
import { brokenConnection, discard, listen, toStoreError, UNAVAILABLE_CODE } from './connection-failures.js'
import { migrate } from './migrate.js'

/** The application_name of connections the store opens itself; tests and operators find them by it. */
export const APPLICATION_NAME = 'mobisite'

/** Options of a PostgresStore connection. */
export interface PostgresConnOptions {
  /** `postgres://user@host:port/db`. Default: pg's defaults (PG* environment variables). */
  connectionString?: string
  /** A pool to use instead of creating one; `close()` leaves it open. */
  pool?: Pool
  /** Schema holding the store's tables and functions. Default `mobisite`. */
  schema?: string
  /** Deadline of one call (connection + statement), ms. Default 2000: an outage answers well within the API's 3 s promise, even on a loaded machine. */
  timeoutMs?: number
  /** Connections in a pool the store creates. Default 10. */
  max?: number
  /** application_name of the connections the store creates. Default `mobisite`. */
  applicationName?: string
}

/** Quotes an identifier (the schema name) for SQL text. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

/** A statement prepared once per connection, by a name derived from its text. */
export interface Statement {
  readonly name: string
  readonly text: string
}

/** Names a statement by a hash of its text (the schema is in the text, so stores never share a name wrongly). */
export function statement(text: string): Statement {
  return { name: `mobisite_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`, text }
}

/** How often expired call deadlines are swept, ms. */
const WATCH_MS = 50

/** A call in flight and what to do when its deadline passes. */
interface Inflight {
  deadline: number
  expire: () => void
}

/** A call waiting for a connection slot. */
interface Waiter {
  resolve: () => void
  reject: (err: unknown) => void
  timer: NodeJS.Timeout | undefined
}

/** Whether a call may be sent again after a connection failure: only reads are. */
type Retry = 'read' | 'write'

/** One pool as PostgresStore uses it. */
export class PgConn {
  readonly pool: Pool
  /** The quoted schema, ready to prefix table names. */
  readonly s: string
  readonly schema: string
  private readonly owned: boolean
  private readonly timeoutMs: number
  private readonly max: number
  private migrated: Promise<void> | undefined
  private isReady = false
  /** Calls holding a connection or waiting for one, each with its deadline (see {@link PgConn.watch}). */
  private readonly inflight = new Set<Inflight>()
  private watchdog: NodeJS.Timeout | undefined
  private closed = false
  /** Calls holding a connection slot, and those waiting for one. */
  private active = 0
  private readonly waiters: Waiter[] = []
  /** Set by a call that found the database unavailable, cleared by one that succeeded. */
  private down = false

  constructor(options: PostgresConnOptions) {
    this.schema = options.schema ?? 'mobisite'
    if (this.schema === '' || this.schema.length > 63)
      throw new TypeError('PostgresStore: schema must be 1-63 characters')
    this.s = quoteIdent(this.schema)
    this.timeoutMs = options.timeoutMs ?? 2000
    this.max = options.pool
      ? ((options.pool as unknown as { options?: { max?: number } }).options?.max ?? 10)
      : (options.max ?? 10)
    if (options.pool) {
      this.pool = options.pool
      this.owned = false
    } else {
      const config: PoolConfig = {
        max: this.max,
        application_name: options.applicationName ?? APPLICATION_NAME,
        connectionTimeoutMillis: this.timeoutMs,
        // Idle connections stay open: an idle timeout costs a timer on every
        // release, and a store's few connections are cheap to keep.
        idleTimeoutMillis: 0,
        keepAlive: true,
        // Server-side guards: no statement or lock wait outlives the call's deadline.
        statement_timeout: this.timeoutMs,
        lock_timeout: this.timeoutMs,
        idle_in_transaction_session_timeout: 10_000,
      }
      if (options.connectionString !== undefined) config.connectionString = options.connectionString
      this.pool = new pg.Pool(config)
      this.owned = true
    }
    // An idle connection the server ends (restart, pg_terminate_backend) is
    // reported here; the pool drops it, and without a listener it would crash
    // the process.
    this.pool.on('error', () => {})
    // A backend that ends while its connection is checked out makes the
    // client emit 'error' too (besides failing its query). The listener goes
    // on as soon as the connection exists: the first message after the
    // handshake can already be the termination, before any caller holds it.
    this.pool.on('connect', (client) => listen(client))
  }

  /** Runs the migrations once per store; a failed attempt (database away) is retried by the next call. */
  private ready(): Promise<void> {
    this.migrated ??= this.withClient(
      (client) => migrate(client, this.s, this.schema, 4 * this.timeoutMs),
      'write',
      4 * this.timeoutMs,
    ).then(
      () => {
        this.isReady = true
      },
      (err: unknown) => {
        this.migrated = undefined
        throw err
      },
    )
    return this.migrated
  }

  /** Runs one prepared statement; rows come back as pg parsed them. */
  query<R extends QueryResultRow>(st: Statement, values: unknown[], retry: Retry = 'read'): Promise<R[]> {
    const run = () =>
      this.withClient((c) => c.query<R>({ name: st.name, text: st.text, values }), retry, this.timeoutMs).then(
        (r) => r.rows,
      )
    return this.isReady ? run() : this.ready().then(run)
  }

  /**
   * Runs `fn` on a pooled connection. At most `max` calls hold a connection;
   * the others wait their turn here (not in the pool), so that:
   * - under load, a waiting call is not failed for waiting (every running
   *   call ends within `timeoutMs`, so the queue always moves);
   * - once a call finds the database unavailable, every waiting call fails
   *   at once, and while it stays unavailable a call waits at most
   *   `timeoutMs`: an outage answers within the deadline, never a pile-up.
   * A read that fails because its connection broke (a terminated or
   * restarted backend left a dead connection in the pool) is sent once more
   * on a fresh connection; a write never is, since it may have committed.
   */
  private async withClient<T>(fn: (client: PoolClient) => Promise<T>, retry: Retry, timeoutMs: number): Promise<T> {
    if (this.closed) throw new StoreUnavailableError('PostgresStore is closed')
    const wait = this.acquire()
    if (wait) await wait
    const deadline = Date.now() + timeoutMs
    try {
      try {
        return this.healthy(await this.attempt(fn, deadline))
      } catch (err) {
        const mapped = toStoreError(err)
        if (!(mapped instanceof StoreUnavailableError)) throw mapped
        // A connection the server ended (restart, pg_terminate_backend) says
        // nothing about the next one: only this call fails (a read is sent
        // again), and the calls waiting for a connection keep waiting.
        if (brokenConnection(err)) {
          if (retry === 'write' || this.closed || Date.now() >= deadline) throw mapped
          try {
            return this.healthy(await this.attempt(fn, deadline))
          } catch (again) {
            const mappedAgain = toStoreError(again)
            throw brokenConnection(again) ? mappedAgain : this.unavailable(mappedAgain)
          }
        }
        throw this.unavailable(mapped)
      }
    } finally {
      this.releaseSlot()
    }
  }

  private healthy<T>(value: T): T {
    this.down = false
    return value
  }

  /** Records an outage: every call waiting for a connection fails now. */
  private unavailable(err: unknown): unknown {
    if (!(err instanceof StoreUnavailableError)) return err
    this.down = true
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer)
      waiter.reject(new StoreUnavailableError(`PostgreSQL unavailable: ${err.message}`, { cause: err }))
    }
    return err
  }

  /** Takes a connection slot: undefined when one was free, else a promise of one. */
  private acquire(): Promise<void> | undefined {
    if (this.active < this.max) {
      this.active++
      return undefined
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, timer: undefined }
      if (this.down) {
        waiter.timer = setTimeout(() => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1)
          reject(new StoreUnavailableError(`PostgreSQL unavailable: no connection within ${this.timeoutMs} ms`))
        }, this.timeoutMs)
      }
      this.waiters.push(waiter)
    })
  }

  /** Hands the slot to the next waiting call, if any. */
  private releaseSlot(): void {
    const next = this.waiters.shift()
    if (next === undefined) {
      this.active--
      return
    }
    clearTimeout(next.timer)
    next.resolve()
  }

  /** One try: a connection and `fn`, both before `deadline`. */
  private attempt<T>(fn: (client: PoolClient) => Promise<T>, deadline: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false
      let client: PoolClient | undefined
      const entry: Inflight = {
        deadline,
        expire: () => {
          settled = true
          // The connection may sit on a silent socket: destroy it, never reuse it.
          if (client) discard(client)
          reject(new StoreUnavailableError(`PostgreSQL did not answer within ${this.timeoutMs} ms`))
        },
      }
      this.watch(entry)
      const done = () => {
        settled = true
        this.inflight.delete(entry)
      }
      this.pool.connect().then(
        (c) => {
          if (settled) {
            c.release()
            return
          }
          client = c
          listen(c) // connections a passed-in pool opened before this store existed
          fn(c).then(
            (value) => {
              if (settled) return
              done()
              c.release()
              resolve(value)
            },
            (err: unknown) => {
              if (settled) return
              done()
              // A server error leaves the connection usable; anything else may not.
              if (err instanceof pg.DatabaseError && !UNAVAILABLE_CODE.test(String(err.code))) c.release()
              else discard(c)
              reject(err)
            },
          )
        },
        (err: unknown) => {
          if (settled) return
          done()
          // No connection at all: the database is unreachable, whatever the error says.
          reject(
            new StoreUnavailableError(`PostgreSQL unreachable: ${err instanceof Error ? err.message : String(err)}`, {
              cause: err,
            }),
          )
        },
      )
    })
  }

  /**
   * Runs `fn` in one transaction (ROLLBACK when it throws), with `factor`
   * times the usual deadline: for the bulk state operations of the
   * test-double controls, never for the hot path.
   */
  async transaction<T>(fn: (client: PoolClient) => Promise<T>, factor = 8): Promise<T> {
    await this.ready()
    return this.withClient(
      async (c) => {
        await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ')
        try {
          // The connection's own timeouts are sized for one hot-path call.
          await c.query(
            `SET LOCAL statement_timeout = ${factor * this.timeoutMs}; SET LOCAL lock_timeout = ${factor * this.timeoutMs}`,
          )
          const value = await fn(c)
          await c.query('COMMIT')
          return value
        } catch (error) {
          await c.query('ROLLBACK').catch(() => {})
          throw error
        }
      },
      'write',
      factor * this.timeoutMs,
    )
  }

  /**
   * Deadlines are enforced by one sweep every {@link WATCH_MS} rather than a
   * timer per call: a timer per call costs more than the call's own
   * bookkeeping on the hot path, and a deadline 50 ms late is still within
   * the API's 3 s promise.
   */
  private watch(entry: Inflight): void {
    this.inflight.add(entry)
    this.watchdog ??= setInterval(() => {
      const now = Date.now()
      for (const e of this.inflight) {
        if (e.deadline > now) continue
        this.inflight.delete(e)
        e.expire()
      }
      if (this.inflight.size === 0) {
        clearInterval(this.watchdog)
        this.watchdog = undefined
      }
    }, WATCH_MS).unref()
  }

  /** Ends the pool if the store created it; a caller's pool stays open. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer)
      waiter.reject(new StoreUnavailableError('PostgresStore is closed'))
    }
    if (this.owned) await this.pool.end().catch(() => {})
  }
}
