/**
 * Shared pieces of the test-double tests: the stores to run on (MemoryStore
 * always, RedisStore when REDIS_URL is set, on a private key prefix removed
 * afterwards), and a started admin server with a master account.
 */
import request from 'supertest'
import type { Test } from 'tap'
import { createEngine, startServer, type Engine, type EngineOptions, type RunningServer } from '../../lib/index.js'
import { MemoryStore } from '../../lib/store/memory.js'
import { RedisStore } from '../../lib/store/redis.js'
import type { Store } from '../../lib/store/contract.js'
import { REDIS_URL, deleteUnder, randomPrefix } from './redis.js'
import { Redis } from 'ioredis'

/** A store kind to run a test on. */
export interface StoreKind {
  name: 'memory' | 'redis'
  make(t: Test): Store
}

/** MemoryStore, and RedisStore when REDIS_URL is set. */
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
]

export const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
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
export async function adminServer(t: Test, kind: StoreKind, options: EngineOptions = {}, token?: string): Promise<AdminFixture> {
  const engine = createEngine({ store: kind.make(t), ...options })
  await engine.addMasterAccount(ALICE)
  await engine.addMasterAccount(BOB)
  const server = await startServer({ engine, admin: true, ...(token ? { adminToken: token } : {}) })
  t.teardown(async () => {
    await server.close()
    await engine.close()
  })
  return { server, engine, http: request(server.url), alice: basic(ALICE.user, ALICE.password), bob: basic(BOB.user, BOB.password) }
}
