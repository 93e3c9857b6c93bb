/**
 * Which store `mobisite` (lib/cli/index.ts) serves on. In order:
 * `--store <url>`, `MOBISITE_STORE`, then `REDIS_URL`, then `DATABASE_URL`.
 * A store URL is `postgres://…` / `postgresql://…` (PostgresStore),
 * `redis://…` / `rediss://…` / `redis-cluster://…` (RedisStore) or `memory`.
 * REDIS_URL comes before DATABASE_URL because many environments set
 * DATABASE_URL for other reasons; name the store explicitly to be sure.
 */
import type { Store } from '../store/contract/index.js'
import { UsageError } from './parse-flags.js'

/** The store the command line and environment ask for. */
export type StoreChoice = { kind: 'memory' } | { kind: 'redis'; url: string } | { kind: 'postgres'; url: string }

/**
 * The store for `given` (the `--store` value, which the flag table has
 * already defaulted to MOBISITE_STORE), else REDIS_URL, else DATABASE_URL;
 * throws on a store URL it cannot serve.
 */
export function chooseStore(given: string | undefined, env: NodeJS.ProcessEnv): StoreChoice {
  if (given === undefined || given === '') given = env.MOBISITE_STORE || undefined
  if (given !== undefined) {
    if (given === 'memory') return { kind: 'memory' }
    if (/^postgres(ql)?:\/\//i.test(given)) return { kind: 'postgres', url: given }
    // redis-cluster:// goes to RedisStore too, which connects to a Redis Cluster for it.
    if (/^(rediss?|redis-cluster):\/\//i.test(given)) return { kind: 'redis', url: given }
    throw new UsageError(
      `unknown store ${JSON.stringify(given)}: give a postgres://, redis://, rediss://, redis-cluster:// URL or "memory"`,
    )
  }
  if (env.REDIS_URL) return { kind: 'redis', url: env.REDIS_URL }
  if (env.DATABASE_URL) return { kind: 'postgres', url: env.DATABASE_URL }
  return { kind: 'memory' }
}

/** A PostgresStore on `url`, in schema MOBISITE_PG_SCHEMA (default `mobisite`); pg is loaded only here. */
export async function openPostgres(url: string, env: NodeJS.ProcessEnv): Promise<{ store: Store; label: string }> {
  const { PostgresStore } = await import('../postgres.js').catch((error: unknown) => {
    throw new Error(
      `a PostgreSQL store was asked for but the optional peer dependency pg could not be loaded (npm install pg): ${String(error)}`,
    )
  })
  const schema = env.MOBISITE_PG_SCHEMA || 'mobisite'
  return {
    store: new PostgresStore({ connectionString: url, schema }),
    label: `PostgreSQL store at ${shownUrl(url)}, schema ${schema}`,
  }
}

/** A RedisStore on `url`, under the key prefix MOBISITE_REDIS_PREFIX if set; ioredis is loaded only here. */
export async function openRedis(url: string, env: NodeJS.ProcessEnv): Promise<{ store: Store; label: string }> {
  const { RedisStore } = await import('../redis.js').catch((error: unknown) => {
    throw new Error(
      `a Redis store was asked for but the optional peer dependency ioredis could not be loaded (npm install ioredis): ${String(error)}`,
    )
  })
  const prefix = env.MOBISITE_REDIS_PREFIX
  return {
    store: new RedisStore({ url, ...(prefix ? { prefix } : {}) }),
    label: `Redis store at ${shownUrl(url)}${prefix ? `, key prefix ${prefix}` : ''}`,
  }
}

/** A store URL as it may be printed: its password, if any, replaced by `***`. */
export function shownUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/?#]*):[^@/?#]*@/i, '$1:***@')
}

/** What {@link watchConnection} logs with. */
interface ConnectionLogger {
  info(fields: object, message: string): void
  warn(fields: object, message: string): void
}

/**
 * Logs a Redis store's connection changes: `store connection lost` once when
 * it drops, `store connected` once when it is back (not every retry).
 */
export function watchConnection(store: Store, url: string, logger: ConnectionLogger): void {
  const client = (store as { client?: { on(event: string, listener: (...args: unknown[]) => void): unknown } }).client
  if (client === undefined || typeof client.on !== 'function') return
  let up = true
  client.on('close', () => {
    if (!up) return
    up = false
    logger.warn({ store: shownUrl(url) }, 'store connection lost')
  })
  client.on('ready', () => {
    if (up) return
    up = true
    logger.info({ store: shownUrl(url) }, 'store connected')
  })
}
