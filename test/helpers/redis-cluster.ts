/**
 * Shared pieces of the Redis Cluster tests: the REDIS_CLUSTER_URL gate (set by
 * .ci/run, which starts a local cluster with scripts/redis-cluster.sh), an
 * admin client, and cleanup of exactly the keys a test wrote, on every primary.
 */
import { Cluster } from 'ioredis'
import type { Test as Tap } from 'tap'
import { parseClusterUrl } from '../../lib/store/redis/conn.js'
import { keysUnder } from './redis.js'

/** The Redis Cluster under test (`redis-cluster://host:port,...`), or undefined to skip. */
export const REDIS_CLUSTER_URL: string | undefined = process.env.REDIS_CLUSTER_URL || undefined

/**
 * Gate for a cluster test file: without REDIS_CLUSTER_URL the file skips with
 * a visible reason; with it, an unreachable cluster FAILS the file. Returns a
 * ready admin client (closed at teardown).
 */
export async function clusterOrSkip(t: Tap, what: string): Promise<Cluster | undefined> {
  if (!REDIS_CLUSTER_URL) {
    t.plan(0, `REDIS_CLUSTER_URL not set (scripts/redis-cluster.sh start prints one): ${what} skipped`)
    return undefined
  }
  const admin = new Cluster(parseClusterUrl(REDIS_CLUSTER_URL).seeds, { lazyConnect: true })
  admin.on('error', () => {})
  try {
    await admin.connect()
    await admin.cluster('INFO')
  } catch (err) {
    admin.disconnect()
    t.fail(`REDIS_CLUSTER_URL=${REDIS_CLUSTER_URL} is set but the cluster is unreachable: ${(err as Error).message}`)
    return undefined
  }
  t.teardown(() => admin.quit().then(() => undefined))
  return admin
}

/** Every key under `prefix`, on every primary. */
export async function clusterKeysUnder(admin: Cluster, prefix: string): Promise<string[]> {
  const found: string[] = []
  for (const node of admin.nodes('master')) found.push(...(await keysUnder(node, prefix)))
  return found
}

/** Deletes the keys under `prefix`, and only those (one key per command: they are in many slots). */
export async function clusterDeleteUnder(admin: Cluster, prefix: string): Promise<void> {
  await Promise.all((await clusterKeysUnder(admin, prefix)).map((key) => admin.del(key)))
}
