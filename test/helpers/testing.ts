/**
 * Shared pieces of the test-double tests: the stores to run on (MemoryStore
 * always, RedisStore when REDIS_URL is set, on a private key prefix removed
 * afterwards), and a started admin server with a master account.
 */
import request from 'supertest'
import type { Test } from 'tap'
import { createEngine, startServer, type Engine, type EngineOptions, type RunningServer } from '../../lib/index.js'
import { MemoryStore } from '../../lib/store/memory/store.js'
import { RedisStore } from '../../lib/store/redis/store.js'
import type { Store } from '../../lib/store/contract/index.js'
import { REDIS_URL, deleteUnder, randomPrefix } from './redis.js'
import { DATABASE_URL, randomSchema } from './postgres.js'
import { PostgresStore } from '../../lib/store/postgres/store.js'
import { Redis } from 'ioredis'
import pg from 'pg'

/** A store kind to run a test on. */
export interface StoreKind {
  name: 'memory' | 'redis' | 'postgres'
  make(t: Test): Store
}

/** MemoryStore, RedisStore when REDIS_URL is set, PostgresStore when DATABASE_URL is. */
export const STORES: StoreKind[] = [
  { name: 'memory', make: () => new MemoryStore() },
  ...(REDIS_URL
    ? [
        {
          name: 'redis' as const,
          make(t: Test): Store {
            const prefix = randomPrefix('admin')
            t.teardown(async () => {
              const admin = new Redis(REDIS_URL!)
              await deleteUnder(admin, prefix)
              await admin.quit()
            })
            return new RedisStore({ url: REDIS_URL, prefix })
          },
        },
      ]
    : []),
  ...(DATABASE_URL
    ? [
        {
          name: 'postgres' as const,
          make(t: Test): Store {
            const schema = randomSchema()
            t.teardown(async () => {
              const admin = new pg.Client({ connectionString: DATABASE_URL })
              await admin.connect()
              await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
              await admin.end()
            })
            return new PostgresStore({ connectionString: DATABASE_URL, schema, max: 4 })
          },
        },
      ]
    : []),
]

export const basic = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
/** The master every fixture server starts with. */
export const ALICE = { user: 'alice', password: 'alice-pw', partner: true }
export const BOB = { user: 'bob', password: 'bob-pw', partner: false }

export interface AdminFixture {
  server: RunningServer
  engine: Engine
  /** supertest agent on the server's root. */
  http: ReturnType<typeof request>
  /** Authorization header of alice. */
  alice: string
  bob: string
}

/** An admin server on `kind`, alice and bob as start-up masters; closed at teardown. */
export async function adminServer(
  t: Test,
  kind: StoreKind,
  options: EngineOptions = {},
  token?: string,
): Promise<AdminFixture> {
  const engine = createEngine({ store: kind.make(t), ...options })
  await engine.addMasterAccount(ALICE)
  await engine.addMasterAccount(BOB)
  const server = await startServer({ engine, admin: true, ...(token ? { adminToken: token } : {}) })
  t.teardown(async () => {
    await server.close()
    await engine.close()
  })
  return {
    server,
    engine,
    http: request(server.url),
    alice: basic(ALICE.user, ALICE.password),
    bob: basic(BOB.user, BOB.password),
  }
}
