/**
 * RedisStore: the Store contract on Redis (ioredis), so that several mobisite
 * processes share one state. Every rule that must hold across processes is
 * one Lua script, i.e. one atomic round trip (lua/); the key layout is in
 * keys.ts. Each area of the contract is served by the file of that name in
 * this folder (see lib/store/shared/composed-store.ts).
 *
 * When Redis cannot be reached every call rejects within about a second with
 * StoreUnavailableError (the API answers 503); the client reconnects on its
 * own and calls succeed again as soon as Redis is back.
 *
 * On a Redis Cluster (`redis-cluster://` URL or an ioredis `Cluster` client)
 * every script touches one slot (keys.ts); the rules that span slots (create
 * and delete of sites and accounts, grants, publish) are short sequences of
 * single-slot steps (sites.ts, accounts.ts), and each write waits for one
 * replica (`WAIT 1`) before it is acknowledged. docs/redis.md says what that
 * guarantees.
 */
import { ComposedStore } from '../shared/composed-store.js'
import { redisAccounts } from './accounts.js'
import { redisAnalytics } from './analytics.js'
import { type RedisClient, RedisConn, type RedisTimeouts } from './conn.js'
import { RedisKeys } from './keys.js'
import { redisSites } from './sites.js'
import { redisSso } from './sso.js'
import { redisState } from './state.js'

/** Options of {@link RedisStore}. */
export interface RedisStoreOptions extends RedisTimeouts {
  /**
   * Redis URL, e.g. `redis://127.0.0.1:6379`, or
   * `redis-cluster://[:password@]host:port,host:port` for a Redis Cluster (the
   * seed nodes; the rest are discovered). Default: ioredis' default (localhost:6379).
   */
  url?: string
  /**
   * A client to use instead of creating one (an ioredis `Redis` or
   * `Cluster`); it is not closed by `close()`. Its own settings then decide
   * how calls behave while Redis is away (the store's client fails fast: no
   * offline queue, no retries per request).
   */
  client?: RedisClient
  /**
   * Prefix of every key, so several apps can share one Redis. Default
   * `mobisite:`. It may not contain `{` or `}` (keys carry a hash tag after it).
   */
  prefix?: string
  /**
   * After how many milliseconds a name claim whose create never finished (its
   * process crashed between steps) is taken over by the next create of that
   * name. Default 30,000.
   */
  claimTimeout?: number
}

/** The Store contract on Redis. */
export class RedisStore extends ComposedStore {
  /** The prefix of every key this store writes. */
  readonly prefix: string
  private readonly conn: RedisConn

  constructor(options: RedisStoreOptions = {}) {
    const keys = new RedisKeys(options.prefix ?? 'mobisite:')
    const conn = new RedisConn(options)
    const claimTimeout = options.claimTimeout ?? 30_000
    super({
      accounts: redisAccounts(conn, keys, claimTimeout),
      sites: redisSites(conn, keys, claimTimeout),
      analytics: redisAnalytics(conn, keys),
      sso: redisSso(conn, keys),
      state: redisState(conn, keys),
    })
    this.prefix = keys.prefix
    this.conn = conn
  }

  /** The ioredis client in use (for diagnostics and benchmarks). */
  get client(): RedisClient {
    return this.conn.client
  }

  /** Quits the client if the store created it; a client passed in stays open. */
  close(): Promise<void> {
    return this.conn.close()
  }
}
