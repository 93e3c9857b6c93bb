/**
 * The two-process suite: two mobisite servers in separate processes on one
 * store race each other. Run on a single Redis (test/store/redis/multi-instance.ts),
 * a Redis Cluster (test/store/redis/cluster-races.ts), each under a random
 * prefix, and PostgreSQL (test/store/postgres/multi-instance.ts, a random schema).
 */
import type { Test as Tap } from 'tap'
import type { Store } from '../../lib/store/contract/index.js'
import { RedisStore } from '../../lib/store/redis/store.js'
import { type ApiResponse, type MobisiteProcess, randomPrefix, request, spawnMobisite } from './redis.js'

/** Two mobisite processes on one store, and how a test talks to them. */
export interface Pair {
  A: MobisiteProcess
  B: MobisiteProcess
  /** The partner master both start with. */
  user: string
  auth: [string, string]
  /** The environment both were started with. */
  env: Record<string, string>
  /** A third client of the same store, reading the shared state directly. */
  store: Pick<Store, 'getBilling' | 'listGrants'>
  call(server: MobisiteProcess, method: string, path: string, body?: unknown): Promise<ApiResponse>
  /** A for even `i`, B for odd: spreads a burst over both. */
  either(i: number): MobisiteProcess
  createBody(site_name: string, extra?: object): object
}

/** What {@link twoProcessSuite} runs on. */
export interface TwoProcessOptions {
  /** The store settings of both processes (REDIS_URL and a prefix, MOBISITE_STORE and a schema, …). */
  env: Record<string, string>
  /** A third client of that store; closed at teardown. */
  store: Pick<Store, 'getBilling' | 'listGrants' | 'close'>
  /** Deletes what the suite wrote; runs at teardown. */
  cleanup: () => Promise<void>
  /** Tests of this store's own, registered after the shared races (before the check that both still run). */
  more?: (pair: Pair) => void
}

/**
 * Starts two mobisite processes at the same moment on one store and races
 * them: what one does the other sees; one winner of concurrent creates of a
 * name (sites, accounts), exactly 300 of 400 analytics calls, one
 * first-publish charge, grants against deletes, nothing lost.
 */
export async function twoProcessSuite(t: Tap, options: TwoProcessOptions): Promise<void> {
  const { store } = options
  const user = 'partner'
  const auth: [string, string] = [user, 'correct horse: battery']
  const env = { ...options.env, MOBISITE_USER: user, MOBISITE_PASSWORD: auth[1] }
  const servers: MobisiteProcess[] = []
  t.teardown(async () => {
    await Promise.all(servers.map((s) => s.stop()))
    await store.close()
    await options.cleanup()
  })
  const started = await Promise.allSettled([spawnMobisite(env), spawnMobisite(env)])
  for (const s of started) if (s.status === 'fulfilled') servers.push(s.value)
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected')
  if (failed) throw failed.reason

  const [A, B] = servers as [MobisiteProcess, MobisiteProcess]
  const call = (server: MobisiteProcess, method: string, path: string, body?: unknown): Promise<ApiResponse> =>
    request(server.api, auth, method, path, body)
  const either = (i: number): MobisiteProcess => (i % 2 === 0 ? A : B)
  const createBody = (site_name: string, extra: object = {}) => ({
    site_data: { site_name, original_site_url: 'https://www.example.com/', ...extra },
  })

  t.test('the two servers are distinct processes', async (t) => {
    t.not(A.api, B.api)
    t.not(A.child.pid, B.child.pid)
  })

  t.test('a site created through one is read, updated, published and deleted through the other', async (t) => {
    t.equal((await call(A, 'POST', '/sites/create', createBody('crossover', { external_uid: 'ext-1' }))).status, 200)
    const read = await call(B, 'GET', '/sites/crossover')
    t.equal(read.status, 200)
    t.equal(read.body.original_site_url, 'https://www.example.com/')
    t.equal((await call(B, 'GET', '/sites/byexternal/ext-1')).body.site_name, 'crossover')

    const update = await call(B, 'POST', '/sites/update/crossover', {
      site_domain: 'm.example.com',
      external_uid: 'ext-2',
    })
    t.equal(update.status, 204, 'updated through B')
    t.equal((await call(A, 'GET', '/sites/crossover')).body.site_domain, 'm.example.com', 'A sees the update')
    t.equal((await call(A, 'GET', '/sites/byexternal/ext-1')).status, 400, 'the old external uid is gone for A')
    t.equal((await call(A, 'GET', '/sites/byexternal/ext-2')).body.site_name, 'crossover')

    t.equal((await call(B, 'POST', '/sites/publish/crossover')).status, 204, 'published through B')
    t.match((await call(A, 'GET', '/sites/crossover')).body, { last_published_date: String }, 'A sees it published')
    t.match(await store.getBilling(user), { charges: [{ site_name: 'crossover' }] }, 'charged in the shared ledger')

    const created = await call(A, 'GET', '/sites/created?from=2000-01-01')
    t.ok(
      created.body.some((r: { site_name: string }) => r.site_name === 'crossover'),
      'A lists it',
    )

    t.equal((await call(B, 'DELETE', '/sites/crossover')).status, 204, 'deleted through B')
    t.match((await call(A, 'GET', '/sites/crossover')).body, { error_code: 'ResourceNotExist' }, 'A sees it gone')
    t.match((await call(A, 'POST', '/sites/publish/crossover')).body, { error_code: 'ResourceNotExist' })
    t.match(
      (await store.getBilling(user)).subscriptions.find((s) => s.site_name === 'crossover'),
      { status: 'cancelled' },
      'the subscription was cancelled',
    )
  })

  t.test('50 concurrent creates of one name over both servers: exactly one winner', async (t) => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => call(either(i), 'POST', '/sites/create', createBody('contested'))),
    )
    const won = results.filter((r) => r.status === 200)
    t.equal(won.length, 1, 'one 200')
    t.strictSame(won[0]?.body, { site_name: 'contested' })
    const lost = results.filter((r) => r.status !== 200)
    t.equal(lost.length, 49)
    t.ok(
      lost.every((r) => r.status === 400 && r.body.error_code === 'ResourceAlreadyExist'),
      'the rest: ResourceAlreadyExist',
    )
  })

  t.test('20 concurrent creates of one account name over both servers: exactly one winner', async (t) => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(either(i), 'POST', '/accounts/create', {
          account_name: 'racer@example.com',
          first_name: `N${'a'.repeat(i)}`,
        }),
      ),
    )
    t.equal(results.filter((r) => r.status === 204).length, 1, 'one 204')
    t.equal(results.filter((r) => r.body?.error_code === 'ResourceAlreadyExist').length, 19)
  })

  t.test('400 concurrent analytics calls over both servers: exactly 300 allowed', async (t) => {
    t.equal((await call(A, 'POST', '/sites/create', createBody('counted'))).status, 200)
    const results = await Promise.all(
      Array.from({ length: 400 }, (_, i) => call(either(i), 'GET', '/analytics/site/counted')),
    )
    t.equal(results.filter((r) => r.status === 200).length, 300, '300 answered')
    const refused = results.filter((r) => r.status !== 200)
    t.equal(refused.length, 100)
    t.ok(
      refused.every((r) => r.status === 429 && r.body.error_code === 'DailyLimitExceeded'),
      'the rest: 429',
    )
    t.equal((await call(B, 'GET', '/analytics/site/counted')).status, 429, 'the 401st, on either server, too')
    const other = await call(A, 'GET', '/analytics/sites/withmosttraffic')
    t.equal(other.status, 200, 'the limit is per method: most-traffic still answers')
  })

  t.test('the first-publish charge happens once when both publish at the same moment', async (t) => {
    const names = Array.from({ length: 10 }, (_, i) => `charge-once-${i}`)
    for (const name of names) t.equal((await call(A, 'POST', '/sites/create', createBody(name))).status, 200)
    const publishes = await Promise.all(
      names.flatMap((name) => [A, B, A, B].map((server) => call(server, 'POST', `/sites/publish/${name}`))),
    )
    t.ok(
      publishes.every((r) => r.status === 204),
      'every publish succeeded',
    )
    const ledger = await store.getBilling(user)
    for (const name of names) {
      t.equal(ledger.charges.filter((c) => c.site_name === name).length, 1, `${name}: one charge`)
      t.strictSame(
        ledger.subscriptions.filter((s) => s.site_name === name),
        [{ site_name: name, status: 'active' }],
        `${name}: one active subscription`,
      )
    }
  })

  t.test('nothing is lost: 100 distinct creates over both servers are all listed by both', async (t) => {
    const names = Array.from({ length: 100 }, (_, i) => `bulk-${String(i).padStart(3, '0')}`)
    const results = await Promise.all(names.map((n, i) => call(either(i), 'POST', '/sites/create', createBody(n))))
    t.ok(
      results.every((r) => r.status === 200),
      'all created',
    )
    for (const server of [A, B]) {
      const listed = (await call(server, 'GET', '/sites/created?from=2000-01-01')).body as { site_name: string }[]
      const bulk = listed.map((r) => r.site_name).filter((n) => n.startsWith('bulk-'))
      t.strictSame(bulk.sort(), names, `${server === A ? 'A' : 'B'} lists all 100`)
    }
    const many = await call(
      B,
      'POST',
      '/sites/get-many',
      names.slice(0, 50).map((site_name) => ({ site_name })),
    )
    t.equal(many.body.length, 50, 'get-many finds them')
  })

  t.test('grants racing a delete over both servers never point at a deleted site', async (t) => {
    t.equal((await call(A, 'POST', '/accounts/create', { account_name: 'granted@example.com' })).status, 204)
    const names = Array.from({ length: 10 }, (_, i) => `granted-${i}`)
    for (const name of names) t.equal((await call(A, 'POST', '/sites/create', createBody(name))).status, 200)
    const racing = await Promise.all(
      names.flatMap((name) => [
        call(A, 'POST', `/accounts/grant-access/granted@example.com/sites/${name}`),
        call(B, 'DELETE', `/sites/${name}`),
      ]),
    )
    t.ok(
      racing.every((r) => r.status === 204 || r.body?.error_code === 'ResourceNotExist'),
      'each call succeeded or found nothing',
    )
    t.strictSame(await store.listGrants(user, 'granted@example.com'), [], 'no grant survives its deleted site')
  })

  options.more?.({ A, B, user, auth, env, store, call, either, createBody })

  t.test('both processes are still running', async (t) => {
    t.equal(A.child.exitCode, null, A.output())
    t.equal(B.child.exitCode, null, B.output())
  })
}

/** The suite on the Redis (or Redis Cluster) at `url`, under a random prefix; `cleanup(prefix)` deletes what it wrote. */
export async function multiInstanceSuite(t: Tap, url: string, cleanup: (prefix: string) => Promise<void>) {
  const prefix = randomPrefix('multi')
  await twoProcessSuite(t, {
    env: { REDIS_URL: url, MOBISITE_REDIS_PREFIX: prefix },
    store: new RedisStore({ url, prefix }),
    cleanup: () => cleanup(prefix),
  })
}
