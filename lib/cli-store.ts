/**
 * Which store `mobisite` (lib/cli.ts) serves on. In order:
 * `--store <url>` (or `--store=<url>`), `MOBISITE_STORE`, then `REDIS_URL`,
 * then `DATABASE_URL`. A store URL is `postgres://…` / `postgresql://…`
 * (PostgresStore), `redis://…` / `rediss://…` (RedisStore) or `memory`.
 * REDIS_URL comes before DATABASE_URL because many environments set
 * DATABASE_URL for other reasons; name the store explicitly to be sure.
 */
import type { Store } from './store/contract.js'

/** The store the command line and environment ask for. */
export type StoreChoice = { kind: 'memory' } | { kind: 'redis'; url: string } | { kind: 'postgres'; url: string }

/** Reads `--store`, MOBISITE_STORE, REDIS_URL and DATABASE_URL; throws on a store URL it cannot serve. */
export function chooseStore(argv: readonly string[], env: NodeJS.ProcessEnv): StoreChoice {
  let given: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--store') given = argv[++i]
    else if (arg.startsWith('--store=')) given = arg.slice('--store='.length)
  }
  if (given === undefined || given === '') given = env.MOBISITE_STORE || undefined
  if (given !== undefined) {
    if (given === 'memory') return { kind: 'memory' }
    if (/^postgres(ql)?:\/\//i.test(given)) return { kind: 'postgres', url: given }
    if (/^(rediss?|redis-cluster):\/\//i.test(given)) return { kind: 'redis', url: given }
    throw new Error(`unknown store ${JSON.stringify(given)}: give a postgres://, redis:// URL or "memory"`)
  }
  if (env.REDIS_URL) return { kind: 'redis', url: env.REDIS_URL }
  if (env.DATABASE_URL) return { kind: 'postgres', url: env.DATABASE_URL }
  return { kind: 'memory' }
}

/** A PostgresStore on `url`, in schema MOBISITE_PG_SCHEMA (default `mobisite`); pg is loaded only here. */
export async function openPostgres(url: string, env: NodeJS.ProcessEnv): Promise<{ store: Store; label: string }> {
  const { PostgresStore } = await import('./postgres.js').catch((error: unknown) => {
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
  const { RedisStore } = await import('./redis.js').catch((error: unknown) => {
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
