/**
 * The connection side of RedisStore: client options that fail fast instead of
 * queueing, waiting for readiness, Lua scripts loaded on every (re)connection
 * and called in one round trip, one
 * socket write per turn of the event loop, and the mapping of connection
 * failures to {@link StoreUnavailableError}.
 */
import { createHash } from 'node:crypto'
import { Cluster, Redis, type RedisOptions } from 'ioredis'
import { StoreUnavailableError } from '../contract/index.js'

/** The ioredis client a RedisStore talks through: one server, or a Redis Cluster. */
export type RedisClient = Redis | Cluster

/** Timeouts of a RedisStore connection, in milliseconds. */
export interface RedisTimeouts {
  /** How long a call waits for a (re)connection before failing. Default 1000. */
  readyTimeout?: number
  /** How long a command may go unanswered (a hung server). Default 3000. */
  commandTimeout?: number
  /**
   * Replicas that must confirm each write (`WAIT n`) before it is
   * acknowledged; a write they do not confirm within `waitTimeout` fails
   * with StoreUnavailableError (it may or may not have been applied).
   * Default 1 on a Redis Cluster, 0 (no WAIT) on a single Redis.
   */
  waitReplicas?: number
  /** How long a write waits for its replicas, in milliseconds. Default 1000. */
  waitTimeout?: number
}

/**
 * Parses `redis-cluster://[:password@]host:port,host:port`: the seed nodes
 * (not necessarily every node) and the password, if any.
 */
export function parseClusterUrl(url: string): { seeds: { host: string; port: number }[]; password?: string } {
  const m = /^redis-cluster:\/\/(?:([^@/]*)@)?([^/?#]+)\/?$/.exec(url)
  if (!m) throw new TypeError(`RedisStore: not a redis-cluster:// URL: ${url}`)
  const auth = m[1] === undefined ? undefined : decodeURIComponent(m[1].replace(/^[^:]*:/, ''))
  const seeds = m[2]!.split(',').map((hostPort) => {
    const at = hostPort.lastIndexOf(':')
    const host = at > 0 ? hostPort.slice(0, at).replace(/^\[|\]$/g, '') : hostPort
    const port = at > 0 ? Number(hostPort.slice(at + 1)) : 6379
    if (!host || !Number.isInteger(port) || port < 1 || port > 65535) {
      throw new TypeError(`RedisStore: bad seed ${JSON.stringify(hostPort)} in ${url}`)
    }
    return { host, port }
  })
  return auth ? { seeds, password: auth } : { seeds }
}

/**
 * A Cluster client that fails fast like {@link clientOptions}: no resending
 * of a command whose connection dropped (`retryDelayOnFailover: 0`: it may
 * have run, and could apply twice). Commands wait for a node connection that
 * is being made (the offline queue: without it ioredis refuses them with the
 * same "Connection is closed" error as a dropped one, so they could not be
 * told apart); calls wait for the cluster itself only `readyTimeout`. A
 * command refused with MOVED, CLUSTERDOWN or TRYAGAIN, which did not run, is
 * retried shortly (ioredis' own handling) while slots move. The slot map is
 * refreshed every {@link SLOT_REFRESH_MS} as well (by RedisConn, not by
 * ioredis' `slotsRefreshInterval`, which re-arms its timer when a refresh
 * ends after `quit()` and so keeps a closed client's process alive), so a
 * failover is seen without a MOVED.
 */
export function clusterClient(url: string, timeouts: RedisTimeouts): Cluster {
  const { seeds, password } = parseClusterUrl(url)
  const { retryStrategy: _, enableOfflineQueue: __, ...redisOptions } = clientOptions(timeouts)
  return new Cluster(seeds, {
    enableOfflineQueue: true,
    enableReadyCheck: true,
    maxRedirections: 16,
    retryDelayOnFailover: 0,
    retryDelayOnClusterDown: 100,
    retryDelayOnTryAgain: 100,
    slotsRefreshTimeout: 1000,
    slotsRefreshInterval: 0,
    clusterRetryStrategy: (times: number) => Math.min(50 * times, 1000),
    redisOptions: password ? { ...redisOptions, password } : redisOptions,
  })
}

/**
 * Options for a client the store creates itself. No offline queue and no
 * retries per request: a command issued or in flight while Redis is away fails
 * at once rather than waiting (or being resent after a reconnect, which could
 * apply a write twice). The client itself keeps reconnecting forever.
 */
export function clientOptions(timeouts: RedisTimeouts): RedisOptions {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: timeouts.commandTimeout ?? 3000,
    connectTimeout: 2000,
    retryStrategy: (times: number) => Math.min(50 * times, 1000),
  }
}

/** Reply errors that mean "the server cannot serve now", not "the call is wrong". */
const UNAVAILABLE_REPLY = /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|READONLY|OOM|NOREPLICAS|MISCONF|MOVED|ASK)\b/

/** A MOVED or ASK reply inside a pipeline: the command did not run (ioredis retries it only outside one). */
const REDIRECTED = /^(MOVED|ASK) /

/**
 * Turns a connection failure into StoreUnavailableError; a genuine reply error
 * (a bug: wrong type, script error) is passed on unchanged.
 */
export function toStoreError(err: unknown): unknown {
  if (err instanceof StoreUnavailableError) return err
  if (err instanceof Error && err.name === 'ReplyError' && !UNAVAILABLE_REPLY.test(err.message)) return err
  const message = err instanceof Error ? err.message : String(err)
  return new StoreUnavailableError(`Redis unavailable: ${message}`, { cause: err })
}

function rethrowAsStoreError(err: unknown): never {
  throw toStoreError(err)
}

/** A Lua script with its SHA-1, run by EVALSHA with an EVAL fallback. */
export interface LuaScript {
  readonly lua: string
  readonly sha: string
}

/** Every script {@link lua} prepared, by SHA-1: what a connection loads when it becomes ready. */
const SCRIPTS = new Map<string, LuaScript>()

/** Prepares a Lua source for {@link RedisConn.run}. */
export function lua(source: string): LuaScript {
  const script = { lua: source, sha: createHash('sha1').update(source).digest('hex') }
  SCRIPTS.set(script.sha, script)
  return script
}

/** How often a cluster client made by RedisStore refreshes its slot map. */
export const SLOT_REFRESH_MS = 2000

/** One Redis connection as RedisStore uses it. */
export class RedisConn {
  readonly client: RedisClient
  /** True when the client is a Redis Cluster: no cross-slot step, writes confirmed by WAIT. */
  readonly cluster: boolean
  private readonly waitReplicas: number
  private readonly waitTimeout: number
  private readonly owned: boolean
  private readonly readyTimeout: number
  private readyWait: Promise<void> | undefined
  private closed = false
  /** The slot-map refresh of a cluster client this connection made (see clusterClient). */
  private slotRefresh: NodeJS.Timeout | undefined
  /** The socket corked for this turn of the event loop (see {@link send}). */
  private corked: Redis['stream'] | undefined

  constructor(options: { url?: string; client?: RedisClient } & RedisTimeouts) {
    this.readyTimeout = options.readyTimeout ?? 1000
    if (options.client) {
      if ((options.client.options as { keyPrefix?: string }).keyPrefix) {
        // Keys computed inside the Lua scripts would not get ioredis' keyPrefix.
        throw new TypeError('RedisStore: use the `prefix` option, not a client with `keyPrefix`')
      }
      this.client = options.client
      this.owned = false
    } else {
      const opts = clientOptions(options)
      if (options.url?.startsWith('redis-cluster://')) this.client = clusterClient(options.url, options)
      else this.client = options.url ? new Redis(options.url, opts) : new Redis(opts)
      this.owned = true
      // Without a listener ioredis prints every reconnect failure; calls
      // report unavailability themselves.
      this.client.on('error', () => {})
    }
    this.cluster = this.client instanceof Cluster
    if (this.owned && this.client instanceof Cluster) {
      const cluster = this.client
      this.slotRefresh = setInterval(() => {
        if (cluster.status === 'ready') cluster.refreshSlotsCache()
      }, SLOT_REFRESH_MS)
      this.slotRefresh.unref()
    }
    this.waitReplicas = options.waitReplicas ?? (this.cluster ? 1 : 0)
    this.waitTimeout = options.waitTimeout ?? 1000
    this.client.on('ready', this.loadScripts)
    if (this.client.status === 'ready') this.loadScripts()
  }

  /**
   * Loads every script into the server's script cache, in one write, each
   * time the connection becomes ready: so the first call of each script after
   * a start, or after a Redis restart emptied that cache, is one round trip
   * (EVALSHA) instead of two (EVALSHA, NOSCRIPT, EVAL). Calls waiting for
   * readiness are sent after it. Fire and forget: a script that did not load
   * still runs, through the EVAL fallback of {@link run}.
   */
  private readonly loadScripts = (): void => {
    const nodes = this.client instanceof Cluster ? this.client.nodes('master') : [this.client]
    for (const node of nodes) {
      const pipeline = node.pipeline()
      for (const script of SCRIPTS.values()) pipeline.script('LOAD', script.lua)
      pipeline.exec().catch(() => {})
    }
  }

  /**
   * Resolves once the client is ready, or rejects with StoreUnavailableError
   * after `readyTimeout`. One shared listener, however many calls wait.
   */
  async ready(): Promise<void> {
    const c = this.client
    if (c.status === 'ready' && !this.closed) return
    if (this.closed || c.status === 'end') throw new StoreUnavailableError('Redis connection is closed')
    if (c.status === 'wait') c.connect().catch(() => {})
    this.readyWait ??= new Promise<void>((resolve) => {
      c.once('ready', () => {
        this.readyWait = undefined
        resolve()
      })
    })
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new StoreUnavailableError(`Redis not reachable (status ${c.status})`)),
        this.readyTimeout,
      )
    })
    try {
      await Promise.race([this.readyWait, timeout])
    } finally {
      clearTimeout(timer)
    }
  }

  /**
   * Runs `fn` once the client is ready, mapping connection failures. When the
   * client is ready already (the usual case) the command goes out at once,
   * without waiting a turn for {@link ready}.
   */
  call<T>(fn: (client: RedisClient) => Promise<T>): Promise<T> {
    const reply =
      this.client.status === 'ready' && !this.closed ? this.send(fn) : this.ready().then(() => this.send(fn))
    return reply.catch(rethrowAsStoreError)
  }

  /**
   * Runs a Lua script that only reads: EVALSHA, or EVAL when the server does
   * not know it yet. Every key it touches must be in `keys` and in one slot.
   */
  run(script: LuaScript, keys: string[], args: (string | number)[]): Promise<unknown> {
    return this.call((c) =>
      c.evalsha(script.sha, keys.length, ...keys, ...args).catch((err: unknown) => {
        if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err
        return c.eval(script.lua, keys.length, ...keys, ...args)
      }),
    )
  }

  /**
   * Runs a Lua script that writes, then (on a cluster, or when asked)
   * `WAIT`s for a replica in the same pipeline, hence on the primary that
   * holds the keys' slot. A write no replica confirms in time rejects with
   * StoreUnavailableError: it may have been applied, and is never resent.
   */
  write(script: LuaScript, keys: string[], args: (string | number)[]): Promise<unknown> {
    if (this.waitReplicas === 0) return this.run(script, keys, args)
    const attempt = async (c: RedisClient, eval_: boolean): Promise<unknown> => {
      const p = c.pipeline()
      if (eval_) p.eval(script.lua, keys.length, ...keys, ...args)
      else p.evalsha(script.sha, keys.length, ...keys, ...args)
      return this.confirm(await p.call('WAIT', this.waitReplicas, this.waitTimeout).exec())
    }
    return this.call((c) =>
      this.redirected(() =>
        attempt(c, false).catch((err: unknown) => {
          if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err
          return attempt(c, true)
        }),
      ),
    )
  }

  /**
   * Runs a pipeline `attempt`; when its keys' slot has moved (a failover or a
   * resharding; the command did not run), refreshes the slot map and tries
   * again, up to twice. Outside a pipeline ioredis does this itself.
   */
  private async redirected<T>(attempt: () => Promise<T>): Promise<T> {
    for (let tries = 0; ; tries++) {
      try {
        return await attempt()
      } catch (err) {
        if (tries >= 2 || !(this.client instanceof Cluster) || !(err instanceof Error) || !REDIRECTED.test(err.message))
          throw err
        const cluster = this.client as Cluster & { refreshSlotsCache(cb: () => void): void }
        await new Promise<void>((resolve) => cluster.refreshSlotsCache(() => resolve()))
      }
    }
  }

  /**
   * Runs plain write commands, all on keys of one slot, in one pipeline
   * followed by the WAIT of {@link write}; resolves to the first command's reply.
   */
  writeCommands(add: (p: ReturnType<RedisClient['pipeline']>) => void): Promise<unknown> {
    return this.call((c) =>
      this.redirected(async () => {
        const p = c.pipeline()
        add(p)
        if (this.waitReplicas === 0) return this.confirm(await p.exec(), false)
        return this.confirm(await p.call('WAIT', this.waitReplicas, this.waitTimeout).exec())
      }),
    )
  }

  /** The first reply of a pipeline, after checking its last (WAIT) reply. */
  private confirm(results: [Error | null, unknown][] | null, waited = true): unknown {
    if (results === null) throw new StoreUnavailableError('Redis pipeline aborted')
    for (const [err] of results) if (err) throw err
    if (waited && Number(results[results.length - 1]![1]) < this.waitReplicas) {
      throw new StoreUnavailableError(
        `Redis write not confirmed by ${this.waitReplicas} replica(s) within ${this.waitTimeout} ms; it may or may not have been applied`,
      )
    }
    return results[0]![1]
  }

  /**
   * Issues `fn`'s commands with the socket corked until the end of this turn
   * of the event loop, so that every command issued in the same turn (by
   * concurrent requests) leaves in one write. Each command keeps its own
   * reply: this merges syscalls, not round trips. A write syscall costs more
   * than the rest of a small command, and Redis then reads and answers the
   * batch with one read and one write as well. The wait is bounded by the
   * current turn: the socket is uncorked in this turn's setImmediate phase.
   * (ioredis' enableAutoPipelining batches too, but costs more Node CPU per
   * command and holds new commands back while a batch is in flight.)
   */
  private send<T>(fn: (client: RedisClient) => Promise<T>): Promise<T> {
    // A Cluster spreads commands over several sockets; each node client writes its own.
    if (this.corked === undefined && this.client instanceof Redis) {
      const stream = this.client.stream
      stream.cork()
      this.corked = stream
      setImmediate(this.uncork)
    }
    try {
      return fn(this.client)
    } catch (err) {
      return Promise.reject(err)
    }
  }

  private readonly uncork = (): void => {
    const stream = this.corked
    this.corked = undefined
    stream?.uncork()
  }

  /** Quits the client if this store created it; a caller's client stays open. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    clearInterval(this.slotRefresh)
    this.client.off('ready', this.loadScripts)
    if (!this.owned) return
    try {
      if (this.client.status === 'ready') await this.client.quit()
      else this.client.disconnect()
    } catch {
      this.client.disconnect()
    }
  }
}
