/**
 * The Redis phases, on a redis-server this run starts itself on a free
 * loopback port, in its own temporary directory, with AOF and fsync on every
 * write: two server instances racing on one store (one winner, the daily
 * limit, one charge), a kill -9 of Redis under write load with every
 * acknowledged write checked afterwards, and a restart that lost everything
 * (no lock-out of the masters).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { createEngine } from '../../lib/index.js'
import { RedisStore } from '../../lib/store/redis/store.js'
import { basic, send, sleep, startChild } from './common.js'

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })
}

/** A redis-server owned by this run. */
export class OwnRedis {
  private child: ChildProcess | undefined
  readonly dir = mkdtempSync(join(tmpdir(), 'mobisite-reliability-'))
  constructor(readonly port: number) {}
  static async create(): Promise<OwnRedis> {
    return new OwnRedis(await freePort())
  }
  get url(): string {
    return `redis://127.0.0.1:${this.port}`
  }
  async start(persistent = true): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', '']
    args.push(...(persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']))
    this.child = spawn('redis-server', args, { stdio: 'ignore' })
    const probe = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
    probe.on('error', () => {})
    for (let i = 0; i < 200; i++) {
      try {
        await probe.connect()
        // Loading the AOF answers LOADING until done.
        await probe.ping()
        probe.disconnect()
        return
      } catch {
        probe.disconnect()
        await sleep(50)
      }
    }
    throw new Error('redis-server did not start')
  }
  async kill(): Promise<void> {
    const child = this.child
    if (!child || child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((r) => child.once('exit', r))
    child.kill('SIGKILL')
    await exited
  }
  /** Kills it and removes its data. */
  async wipe(): Promise<void> {
    await this.kill()
    rmSync(this.dir, { recursive: true, force: true })
  }
}

const json = { 'content-type': 'application/json' }

export interface RaceFigures {
  sameName: { attempts: number; winners: number }
  caseVariants: { attempts: number; winners: number }
  dailyLimit: { attempts: number; allowed: number; refused: number }
  publishes: { attempts: number; charges: number }
}

/** Two server processes on one Redis prefix, each request going to one of them in turn. */
export async function racePhase(redis: OwnRedis): Promise<RaceFigures> {
  const prefix = 'race:'
  const instances = [
    await startChild({ redisUrl: redis.url, prefix }),
    await startChild({ redisUrl: redis.url, prefix }),
  ]
  try {
    const url = (i: number) => `${instances[i % 2]!.url}/api`
    const create = (i: number, site_name: string) =>
      send(
        `${url(i)}/sites/create`,
        'POST',
        { ...json, authorization: basic(i % 4 < 2 ? 'alice' : 'bob') },
        JSON.stringify({ site_data: { site_name, original_site_url: 'https://www.example.com/' } }),
      )
    const same = await Promise.all(Array.from({ length: 200 }, (_, i) => create(i, 'racesite')))
    const variants = ['abcd', 'ABCD', 'AbCd']
    const cased = await Promise.all(Array.from({ length: 150 }, (_, i) => create(i, variants[i % 3]!)))
    const limit = await Promise.all(
      Array.from({ length: 400 }, (_, i) =>
        send(`${url(i)}/analytics/sites/withmosttraffic`, 'GET', { authorization: basic('carol') }),
      ),
    )
    await create(0, 'publishme')
    const publishes = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        send(`${url(i)}/sites/publish/publishme`, 'POST', { authorization: basic('alice') }),
      ),
    )
    if (publishes.some((r) => r.status !== 204))
      throw new Error(`publish: ${publishes.find((r) => r.status !== 204)?.text}`)
    const engine = createEngine({ store: new RedisStore({ url: redis.url, prefix }) })
    const billing = await engine.billing('alice')
    await engine.close()
    return {
      sameName: { attempts: same.length, winners: same.filter((r) => r.status === 200).length },
      caseVariants: { attempts: cased.length, winners: cased.filter((r) => r.status === 200).length },
      dailyLimit: {
        attempts: limit.length,
        allowed: limit.filter((r) => r.status === 200).length,
        refused: limit.filter((r) => r.status === 429).length,
      },
      publishes: {
        attempts: publishes.length,
        charges: billing.charges.filter((c) => c.site_name === 'publishme').length,
      },
    }
  } finally {
    for (const child of instances) await child.stop()
  }
}

export interface KillFigures {
  seconds: number
  attempts: number
  acknowledged: number
  lost: number
  unavailable: number
  otherFailures: number
  outageSeconds: number
  recoveredAfter: number
}

/** Writes under load; Redis is killed (SIGKILL) after a third of the time and restarted from its AOF 2 s later. */
export async function killPhase(redis: OwnRedis, seconds: number, concurrency = 16): Promise<KillFigures> {
  const child = await startChild({ redisUrl: redis.url, prefix: 'kill:' })
  const figures: KillFigures = {
    seconds,
    attempts: 0,
    acknowledged: 0,
    lost: 0,
    unavailable: 0,
    otherFailures: 0,
    outageSeconds: 2,
    recoveredAfter: -1,
  }
  const acknowledged: string[] = []
  const start = Date.now()
  let restartedAt = 0
  let stop = false
  let n = 0
  const writers = Array.from({ length: concurrency }, async () => {
    while (!stop) {
      const account_name = `acct${n++}`
      const res = await send(
        `${child.url}/api/accounts/create`,
        'POST',
        { ...json, authorization: basic('alice') },
        JSON.stringify({ account_name }),
      )
      figures.attempts++
      if (res.status === 204) {
        acknowledged.push(account_name)
        if (restartedAt && figures.recoveredAfter < 0) figures.recoveredAfter = (Date.now() - restartedAt) / 1000
      } else if (res.status === 503) figures.unavailable++
      else figures.otherFailures++
      if (res.status !== 204) await sleep(20)
    }
  })
  await sleep((seconds * 1000) / 3)
  await redis.kill()
  await sleep(figures.outageSeconds * 1000)
  await redis.start(true)
  restartedAt = Date.now()
  await sleep(Math.max(0, start + seconds * 1000 - Date.now()))
  stop = true
  await Promise.all(writers)
  figures.acknowledged = acknowledged.length
  for (let i = 0; i < acknowledged.length; i += 200) {
    const answers = await Promise.all(
      acknowledged
        .slice(i, i + 200)
        .map((name) => send(`${child.url}/api/accounts/${name}`, 'GET', { authorization: basic('alice') })),
    )
    figures.lost += answers.filter((r) => r.status !== 200).length
  }
  await child.stop()
  return figures
}

export interface LossFigures {
  calls: number
  unauthorized: number
  succeeded: number
  masterBack: boolean
}

/** Redis restarts empty (no persistence): once cached verdicts expire, masters are re-created on demand, never locked out. */
export async function lossPhase(redis: OwnRedis): Promise<LossFigures> {
  await redis.wipe()
  const fresh = new OwnRedis(redis.port)
  await fresh.start(false)
  const child = await startChild({ redisUrl: fresh.url, prefix: 'loss:' })
  try {
    await send(`${child.url}/api/sites/created`, 'GET', { authorization: basic('bob') })
    await fresh.kill()
    await fresh.start(false)
    // Past the verified-credential cache's 10 s, so every call below reads the (empty) store.
    await sleep(11_000)
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => send(`${child.url}/api/sites/created`, 'GET', { authorization: basic('bob') })),
    )
    const admin = new Redis(fresh.url)
    const masterBack = (await admin.exists('loss:{m:bob}')) === 1
    admin.disconnect()
    return {
      calls: answers.length,
      unauthorized: answers.filter((r) => r.status === 401).length,
      succeeded: answers.filter((r) => r.status === 200).length,
      masterBack,
    }
  } finally {
    await child.stop()
    await fresh.wipe()
  }
}
