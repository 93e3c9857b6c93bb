/**
 * A primary of a Redis Cluster killed (SIGKILL) under write load while its
 * replica lags: no acknowledged write is lost, writes to that shard answer
 * StoreUnavailableError (503) while no replica can confirm them, and they
 * succeed again, through the same store and client, once the shard has a
 * replica back. The test starts its own cluster (scripts/redis-cluster.sh, a
 * 1 s node timeout) so the one the other suites share is left alone. Runs
 * where REDIS_CLUSTER_URL is set (the sign that the cluster suites are wanted);
 * without it the file skips and says so.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Redis } from 'ioredis'
import t from 'tap'
import { StoreUnavailableError } from '../../../lib/store/contract/index.js'
import { RedisStore } from '../../../lib/store/redis/store.js'
import { masterRecord } from '../../../lib/testing/conformance/fixtures.js'
import { REDIS_CLUSTER_URL } from '../../helpers/redis-cluster.js'

const run = promisify(execFile)
const script = new URL('../../../scripts/redis-cluster.sh', import.meta.url).pathname
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Polls `check` every 100 ms until it holds, for at most `ms`. */
async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) {
    if (await check().catch(() => false)) return true
  }
  return false
}

if (!REDIS_CLUSTER_URL) {
  t.plan(0, 'REDIS_CLUSTER_URL not set: Redis Cluster failover test skipped')
} else {
  const parent = await mkdtemp(join(tmpdir(), 'mobisite-failover-'))
  const dir = join(parent, 'cluster')
  const env = { ...process.env, REDIS_CLUSTER_NODE_TIMEOUT: '1000' }
  const url = (await run(script, ['start', dir], { env })).stdout.trim()
  const admins = new Map<number, Redis>()
  let restarted: ChildProcess | undefined
  const store = new RedisStore({ url, prefix: 'failover:', waitTimeout: 300 })
  t.teardown(async () => {
    await store.close()
    for (const a of admins.values()) a.disconnect()
    restarted?.kill('SIGKILL')
    await run(script, ['stop', dir])
    await rm(parent, { recursive: true, force: true })
  })
  const admin = (port: number) => {
    let a = admins.get(port)
    if (!a) {
      a = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true })
      a.on('error', () => {})
      admins.set(port, a)
    }
    return a
  }
  const ports = (await readdir(dir)).filter((f) => /^\d+$/.test(f)).map(Number)
  /** The primary serving `slot` and its replica, as a live node sees them. */
  const shardOf = async (slot: number, askPort: number) => {
    const lines = String(await admin(askPort).call('CLUSTER', 'NODES'))
      .trim()
      .split('\n')
    const nodes = lines.map((l) => l.split(' '))
    const primary = nodes.find(
      (n) =>
        n[2]!.includes('master') &&
        !n[2]!.includes('fail') &&
        n.slice(8).some((r) => {
          const [a, b] = r.split('-').map(Number)
          return slot >= a! && slot <= (b ?? a!)
        }),
    )
    const replica = nodes.find((n) => n[3] === primary?.[0] && !n[2]!.includes('fail'))
    const port = (n?: string[]) => (n ? Number(n[1]!.split(':')[1]!.split('@')[0]) : undefined)
    return { primary: port(primary), replica: port(replica) }
  }
  const pidOf = async (port: number) => Number(/process_id:(\d+)/.exec(await admin(port).info('server'))![1])

  t.test('failover under load: nothing acknowledged is lost, 503 while unconfirmed, recovery in place', async (t) => {
    const probe = 'probe'
    const slot = Number(await admin(ports[0]!).call('CLUSTER', 'KEYSLOT', `failover:{m:${probe}}`))
    const { primary, replica } = await shardOf(slot, ports[0]!)
    t.ok(primary && replica, `slot ${slot}: primary ${primary}, replica ${replica}`)
    const other = ports.find((p) => p !== primary && p !== replica)!
    const primaryPid = await pidOf(primary!)
    const replicaPid = await pidOf(replica!)

    // Write load over every shard: each acknowledged write is remembered.
    const acked: string[] = []
    const refusals: unknown[] = []
    let stop = false
    let n = 0
    const writer = async () => {
      while (!stop) {
        const user = `u${n++}`
        try {
          await store.putMaster(masterRecord(user))
          acked.push(user)
        } catch (err) {
          refusals.push(err)
          await sleep(5)
        }
      }
    }
    const load = Promise.all([writer(), writer(), writer()])
    t.ok(await until(async () => acked.length > 50, 5000), 'writes are acknowledged on a healthy cluster')

    // The replica lags (frozen): the shard cannot confirm a write.
    process.kill(replicaPid, 'SIGSTOP')
    await t.rejects(store.putMaster(masterRecord(probe)), StoreUnavailableError, 'unconfirmed write: 503')

    // The primary dies while its replica lags; then the replica wakes up and takes over.
    process.kill(primaryPid, 'SIGKILL')
    await sleep(300)
    process.kill(replicaPid, 'SIGCONT')
    const promoted = await until(async () => (await shardOf(slot, other)).primary === replica, 15_000)
    t.ok(promoted, 'the replica is promoted')

    // A shard without a replica cannot confirm either.
    await t.rejects(store.putMaster(masterRecord(probe)), StoreUnavailableError, 'no replica: 503')

    // The old primary comes back (as the new primary's replica): writes succeed again, same store.
    restarted = spawn(
      'redis-server',
      [
        ...['--port', String(primary), '--bind', '127.0.0.1', '--dir', join(dir, String(primary))],
        ...['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '1000'],
        ...['--appendonly', 'no', '--save', '', '--cluster-require-full-coverage', 'no'],
      ],
      { stdio: 'ignore' },
    )
    const recovered = await until(async () => {
      await store.putMaster(masterRecord(probe))
      return true
    }, 20_000)
    t.ok(recovered, 'writes to the shard succeed again without a restart')
    stop = true
    await load

    const other503 = refusals.find((e) => !(e instanceof StoreUnavailableError))
    t.equal(
      other503,
      undefined,
      `every refused write was a 503 (${refusals.length} refused, ${acked.length} acknowledged)`,
    )
    const missing: string[] = []
    for (const user of acked) if ((await store.getMaster(user)) === undefined) missing.push(user)
    t.strictSame(missing, [], `all ${acked.length} acknowledged writes survived the failover`)
    t.ok((await store.getMaster(probe)) !== undefined, 'the write made after recovery is there')
  })
}
