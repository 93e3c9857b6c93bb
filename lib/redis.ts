/**
 * `mobisite/redis`: the Store on Redis, for several processes sharing one
 * state. A separate entry so that the package root never loads ioredis;
 * install `ioredis` (an optional peer dependency) to use it.
 */
export { RedisStore, type RedisStoreOptions } from './store/redis/store.js'
export type { RedisTimeouts } from './store/redis/conn.js'
export { migrateRedisLayout, type MigrateOptions, type MigrateReport } from './store/redis/migrate.js'
export type { RedisClient } from './store/redis/conn.js'
