/**
 * RedisStore throughput against shards: the same mix of store calls (create a
 * site, read it, record a visit) on one Redis primary (REDIS_URL) and on the
 * local Redis Cluster of 3 primaries + 3 replicas (REDIS_CLUSTER_URL, or one
 * started here with scripts/redis-cluster.sh and stopped at the end), with
 * and without `WAIT 1`. Beside ops/s it reports the Redis CPU each primary
 * spent (INFO cpu): how evenly the shards share the load, which is what
 * predicts the throughput of shards on separate machines, where each primary
 * has its own cores and this one client process is not the limit.
 *
 *   REDIS_URL=redis://127.0.0.1:6379 npx tsx benchmark/redis-cluster.ts
 *
 * Writes only under a random prefix and deletes it at the end.
 */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Cluster, Redis } from 'ioredis'
import { RedisStore } from '../lib/store/redis/store.js'
import { parseClusterUrl } from '../lib/store/redis/conn.js'
import { figure } from './lib/report.js'

const OPS = Number(process.env.BENCH_CLUSTER_OPS ?? 3000)
const CONCURRENCY = 64
const run = promisify(execFile)
const script = new URL('../scripts/redis-cluster.sh', import.meta.url).pathname

let clusterUrl = process.env.REDIS_CLUSTER_URL
let ownDir: string | undefined
if (!clusterUrl) {
  ownDir = join(await mkdtemp(join(tmpdir(), 'mobisite-bench-cluster-')), 'cluster')
  clusterUrl = (await run(script, ['start', ownDir])).stdout.trim()
}

/** Redis CPU seconds (user + sys) of each node given. */
async function cpu(nodes: Redis[]): Promise<number[]> {
  return Promise.all(
    nodes.map(async (n) => {
      const info = await n.info('cpu')
      const get = (k: string) => Number(new RegExp(`${k}:([\\d.]+)`).exec(info)?.[1] ?? 0)
      return get('used_cpu_user') + get('used_cpu_sys')
    }),
  )
}

/** The mix on `store`: `OPS` rounds of create + get + visit, `CONCURRENCY` in flight; ops/s and CPU per node. */
async function mix(store: RedisStore, nodes: Redis[]) {
  const before = await cpu(nodes)
  let next = 0
  const start = process.hrtime.bigint()
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < OPS) {
        const i = next++
        const name = `s${i}`
        const t = 1_700_000_000_000 + i
        await store.createSite({ site_name: name, owner: `o${i % 50}`, created_at: t, modified_at: t } as never)
        await store.getSite(name)
        await store.recordVisit({
          site_name: name,
          day: '2024-01-02',
          visitor_id: `v${i}`,
          page_views: 1,
          browser: 'Chrome 120',
          os: 'Windows',
          country: 'FR',
          region: 'IDF',
        })
      }
    }),
  )
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  const after = await cpu(nodes)
  return { opsPerSecond: (OPS * 3) / seconds, cpu: after.map((a, i) => a - before[i]!) }
}

const results: { name: string; opsPerSecond: number; cpu: number[] }[] = []
const cleanups: (() => Promise<void>)[] = []
try {
  if (process.env.REDIS_URL) {
    const prefix = `mobisite-bench:${randomBytes(4).toString('hex')}:`
    const store = new RedisStore({ url: process.env.REDIS_URL, prefix })
    const admin = new Redis(process.env.REDIS_URL)
    cleanups.push(async () => {
      await store.close()
      let cursor = '0'
      do {
        const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
        if (keys.length > 0) await admin.unlink(...keys)
        cursor = next
      } while (cursor !== '0')
      admin.disconnect()
    })
    results.push({ name: '1 primary (single Redis, no WAIT)', ...(await mix(store, [admin])) })
  } else {
    console.log('REDIS_URL not set: the single-primary line is skipped')
  }
  const admin = new Cluster(parseClusterUrl(clusterUrl).seeds)
  await new Promise((r) => admin.once('ready', r))
  const primaries = admin.nodes('master')
  for (const [name, waitReplicas] of [
    ['3 primaries (cluster, WAIT 1)', 1],
    ['3 primaries (cluster, no WAIT)', 0],
  ] as const) {
    const prefix = `mobisite-bench:${randomBytes(4).toString('hex')}:`
    const store = new RedisStore({ url: clusterUrl, prefix, waitReplicas })
    cleanups.push(async () => {
      await store.close()
      for (const node of primaries) {
        let cursor = '0'
        do {
          const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
          for (const key of keys) await node.unlink(key)
          cursor = next
        } while (cursor !== '0')
      }
    })
    await store.getSite('warm-up').catch(() => undefined)
    results.push({ name, ...(await mix(store, primaries)) })
  }
  cleanups.push(async () => admin.disconnect())

  const base = results[0]!
  for (const r of results) {
    const total = r.cpu.reduce((a, b) => a + b, 0)
    const busiest = Math.max(...r.cpu)
    const share = total > 0 ? busiest / total : 1
    console.log(
      `${r.name}: ${Math.round(r.opsPerSecond)} store calls/s; Redis CPU ${total.toFixed(2)} s, busiest primary ${(share * 100).toFixed(0)} %`,
    )
    figure({
      group: 'Redis Cluster',
      name: `create + get + recordVisit, ${r.name}`,
      value: Math.round(r.opsPerSecond),
      unit: 'calls/s',
      anchor: base.name,
      anchorValue: Math.round(base.opsPerSecond),
      ratio: r.opsPerSecond / base.opsPerSecond,
      note: `busiest primary did ${(share * 100).toFixed(0)} % of the Redis CPU (${r.cpu.length} primaries): shards on separate machines each carry that share, so their capacity is about ${(1 / share).toFixed(1)}x one primary's while no other resource limits`,
    })
  }
  console.log(
    'On this 2-core machine the six redis-servers and this client share the same cores, so the cluster lines show the cost (WAIT, more round trips for creates), not the gain; the CPU share predicts the gain on separate machines.',
  )
} finally {
  for (const c of cleanups.reverse()) await c().catch(() => undefined)
  if (ownDir) await run(script, ['stop', ownDir])
}
