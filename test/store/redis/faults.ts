/**
 * Faults: a Redis that goes away (or hangs) while requests are in flight gives
 * 503 ServiceUnavailable JSON, never a hang and never a crash, and the server
 * recovers when Redis returns. Each test starts, kills and restarts its own
 * `redis-server --port N --save ''`.
 * Needs REDIS_URL (like every Redis suite); without it the file skips.
 */
import t from 'tap'
import { createEngine, startServer } from '../../../lib/index.js'
import type { Store } from '../../../lib/store/contract/index.js'
import { RedisStore } from '../../../lib/store/redis/store.js'
import type { Test as Tap } from 'tap'
import {
  OwnRedis,
  freePort,
  randomPrefix,
  redisOrSkip,
  request,
  spawnMobisite,
  type ApiResponse,
} from '../../helpers/redis.js'

const admin = await redisOrSkip(t, 'Redis fault suite')

const USER = 'faulty'
const PASSWORD = 'pw'
const auth: [string, string] = [USER, PASSWORD]
const createBody = (site_name: string) => ({ site_data: { site_name, original_site_url: 'https://www.example.com/' } })

/** Asserts a 503 with the ServiceUnavailable JSON body. */
function unavailable(t: Tap, r: ApiResponse, what: string): void {
  t.equal(r.status, 503, `${what}: 503`)
  t.equal(r.body?.error_code, 'ServiceUnavailable', `${what}: error_code ServiceUnavailable`)
}

/** Retries `probe` until it is not a 503 (at most ~10 s), and returns that answer. */
async function untilAvailable(probe: () => Promise<ApiResponse>): Promise<ApiResponse> {
  let last: ApiResponse = { status: 0, body: undefined }
  for (let i = 0; i < 100; i++) {
    last = await probe()
    if (last.status !== 503) return last
    await new Promise((r) => setTimeout(r, 100))
  }
  return last
}

/**
 * Wraps a store so the test can wait until the engine has handed a call to
 * it: a request is then truly in flight at the store.
 */
function watched(store: Store): { store: Store; nextCall(): Promise<string> } {
  let waiters: ((method: string) => void)[] = []
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        const ws = waiters
        waiters = []
        for (const w of ws) w(String(prop))
        return (value as (...a: unknown[]) => unknown).apply(target, args)
      }
    },
  })
  return { store: proxy, nextCall: () => new Promise((resolve) => waiters.push(resolve)) }
}

if (admin) {
  t.test('in-process server: Redis killed mid-request, then restarted', async (t) => {
    const redis = new OwnRedis(await freePort())
    await redis.start()
    const w = watched(new RedisStore({ url: redis.url, prefix: randomPrefix('faults') }))
    const engine = createEngine({ store: w.store })
    const server = await startServer({ engine })
    t.teardown(async () => {
      await server.close()
      await engine.close()
      await redis.stop()
    })
    const api = `${server.url}/api`
    const call = (method: string, path: string, body?: unknown) => request(api, auth, method, path, body)
    await engine.addMasterAccount({ user: USER, password: PASSWORD, partner: true })
    t.equal((await call('POST', '/sites/create', createBody('before'))).status, 200)

    // Freeze Redis so requests reach the store and wait there, then kill it.
    redis.signal('SIGSTOP')
    const reached = w.nextCall()
    const inFlight = [
      call('GET', '/sites/before'),
      call('POST', '/sites/create', createBody('during')),
      call('POST', '/sites/publish/before'),
      call('GET', '/analytics/site/before'),
      call('POST', '/accounts/create', { account_name: 'someone' }),
    ]
    t.ok(await reached, 'a request reached the store while Redis was frozen')
    await new Promise((r) => setImmediate(r))
    await redis.stop()
    const answers = await Promise.all(inFlight)
    answers.forEach((r, i) => unavailable(t, r, `in-flight request ${i}`))

    const down = await Promise.all([
      call('GET', '/sites/before'),
      call('GET', '/sites/created'),
      call('GET', '/analytics/sites/withmosttraffic'),
    ])
    down.forEach((r, i) => unavailable(t, r, `request ${i} while Redis is down`))

    await redis.start()
    // The restarted Redis is empty (--save ''): the master account comes back first.
    const back = await untilAvailable(() =>
      engine.addMasterAccount({ user: USER, password: PASSWORD, partner: true }).then(
        () => ({ status: 200, body: undefined }),
        () => ({ status: 503, body: undefined }),
      ),
    )
    t.equal(back.status, 200, 'the store accepts writes again')
    t.equal((await call('POST', '/sites/create', createBody('after'))).status, 200, 'create after recovery')
    t.equal((await call('GET', '/sites/after')).body.site_name, 'after', 'read after recovery')
  })

  t.test('in-process server: a hung Redis (SIGSTOP) gives 503 after the command timeout, then recovers', async (t) => {
    const redis = new OwnRedis(await freePort())
    await redis.start()
    const engine = createEngine({ store: new RedisStore({ url: redis.url, prefix: randomPrefix('faults') }) })
    const server = await startServer({ engine })
    t.teardown(async () => {
      redis.signal('SIGCONT')
      await server.close()
      await engine.close()
      await redis.stop()
    })
    const api = `${server.url}/api`
    await engine.addMasterAccount({ user: USER, password: PASSWORD })
    t.equal((await request(api, auth, 'POST', '/sites/create', createBody('hung'))).status, 200)
    redis.signal('SIGSTOP')
    unavailable(t, await request(api, auth, 'GET', '/sites/hung'), 'a read against a frozen Redis')
    redis.signal('SIGCONT')
    const r = await untilAvailable(() => request(api, auth, 'GET', '/sites/hung'))
    t.equal(r.status, 200, 'answers again once Redis thaws')
    t.equal(r.body.site_name, 'hung', 'with the data intact')
  })

  t.test('CLI process: Redis killed under load, no crash, recovery on restart', async (t) => {
    const redis = new OwnRedis(await freePort())
    await redis.start()
    const prefix = randomPrefix('faults')
    const server = await spawnMobisite({
      REDIS_URL: redis.url,
      MOBISITE_REDIS_PREFIX: prefix,
      MOBISITE_USER: USER,
      MOBISITE_PASSWORD: PASSWORD,
    })
    const store = new RedisStore({ url: redis.url, prefix })
    t.teardown(async () => {
      await server.stop()
      await store.close()
      await redis.stop()
    })
    const call = (method: string, path: string, body?: unknown) => request(server.api, auth, method, path, body)
    t.equal((await call('POST', '/sites/create', createBody('cli-before'))).status, 200)
    const master = await store.getMaster(USER)
    t.ok(master, 'the CLI stored its master account in Redis')

    // A burst of writes and reads, with Redis killed in the middle of it.
    const burst = Array.from({ length: 60 }, (_, i) =>
      i % 2 ? call('POST', '/sites/create', createBody(`burst-${i}`)) : call('GET', '/sites/cli-before'),
    )
    await new Promise((r) => setTimeout(r, 5))
    await redis.stop()
    const answers = await Promise.all(burst)
    const statuses = [...new Set(answers.map((r) => r.status))].sort()
    t.ok(
      statuses.every((s) => s === 200 || s === 503),
      `every burst request was answered: ${statuses.join(', ')}`,
    )
    t.ok(
      answers.filter((r) => r.status === 503).every((r) => r.body?.error_code === 'ServiceUnavailable'),
      'every failure is ServiceUnavailable JSON',
    )
    unavailable(t, await call('GET', '/sites/cli-before'), 'a read while Redis is down')
    unavailable(t, await call('POST', '/sites/create', createBody('cli-down')), 'a write while Redis is down')
    t.equal(server.child.exitCode, null, 'the server process is still running')

    await redis.start()
    // The restarted Redis is empty (--save ''): put the master account back, as a persistent Redis would have kept it.
    const restored = await untilAvailable(() =>
      store.putMaster(master!).then(
        () => ({ status: 200, body: undefined }),
        () => ({ status: 503, body: undefined }),
      ),
    )
    t.equal(restored.status, 200, 'Redis is back')
    const created = await untilAvailable(() => call('POST', '/sites/create', createBody('cli-after')))
    t.equal(created.status, 200, 'the server recovered: create works')
    t.equal((await call('GET', '/sites/cli-after')).status, 200, 'and read works')
    t.equal(server.child.exitCode, null, 'the server process never exited')
  })
}
