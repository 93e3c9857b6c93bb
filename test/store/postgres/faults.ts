/**
 * Faults on PostgresStore: a database that refuses connections, a network
 * that drops or goes silent (a TCP proxy the test controls), and backends
 * terminated under load (pg_terminate_backend on the store's own
 * connections, found by their application_name). Every call answers within
 * 3 s (503 ServiceUnavailable over HTTP), nothing hangs or crashes, the
 * process recovers by itself, and no write that was acknowledged is lost.
 * The machine's PostgreSQL server itself is never stopped.
 * Needs DATABASE_URL; without it the file skips and says so.
 */
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { createEngine, startServer } from '../../../lib/index.js'
import { StoreUnavailableError } from '../../../lib/store/contract/index.js'
import { PostgresStore } from '../../../lib/store/postgres/store.js'
import { siteRecord } from '../../../lib/testing/conformance/fixtures.js'
import type { Test } from 'tap'
import {
  DATABASE_URL,
  PgProxy,
  dropSchema,
  postgresOrSkip,
  randomSchema,
  terminateBackends,
  viaPort,
} from '../../helpers/postgres.js'
import { freePort, request, spawnMobisite, type ApiResponse } from '../../helpers/redis.js'

const admin = await postgresOrSkip(t, 'PostgreSQL fault suite')

const USER = 'faulty'
const PASSWORD = 'pw'
const auth: [string, string] = [USER, PASSWORD]
const createBody = (site_name: string) => ({ site_data: { site_name, original_site_url: 'https://www.example.com/' } })
/** The promise: an outage answers within 3 s. */
const BOUND_MS = 3000

/** Asserts a 503 with the ServiceUnavailable JSON body. */
function unavailable(t: Test, r: ApiResponse, what: string): void {
  t.equal(r.status, 503, `${what}: 503`)
  t.equal(r.body?.error_code, 'ServiceUnavailable', `${what}: error_code ServiceUnavailable`)
}

/** Runs `fn` and returns its result (or error) with the elapsed milliseconds. */
async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value?: T; error?: unknown }> {
  const start = Date.now()
  try {
    const value = await fn()
    return { ms: Date.now() - start, value }
  } catch (error) {
    return { ms: Date.now() - start, error }
  }
}

/** Retries `probe` until it is not a 503 (at most ~15 s), and returns that answer. */
async function untilAvailable(probe: () => Promise<ApiResponse>): Promise<ApiResponse> {
  let last: ApiResponse = { status: 0, body: undefined }
  for (let i = 0; i < 150; i++) {
    last = await probe()
    if (last.status !== 503) return last
    await new Promise((r) => setTimeout(r, 100))
  }
  return last
}

if (admin && DATABASE_URL) {
  const url = DATABASE_URL
  const schemas: string[] = []
  t.teardown(async () => {
    for (const s of schemas) await dropSchema(admin, s)
  })
  const schema = (): string => {
    const s = randomSchema('faults')
    schemas.push(s)
    return s
  }

  t.test('a database that refuses connections: StoreUnavailableError at once, every call', async (t) => {
    const port = await freePort()
    const store = new PostgresStore({ connectionString: viaPort(url, port), schema: schema() })
    t.teardown(() => store.close())
    const calls: [string, () => Promise<unknown>][] = [
      ['getSite', () => store.getSite('x')],
      ['createSite', () => store.createSite(siteRecord('xxxx', 'alice'))],
      ['incrementWithinLimit', () => store.incrementWithinLimit('k', 1, 0)],
      ['siteTraffic', () => store.siteTraffic('x', '2024-01-01', '2024-01-02')],
      ['listSites', () => store.listSites('alice', 'created', 0, 1)],
    ]
    for (const [name, call] of calls) {
      const r = await timed(call)
      t.type(r.error, StoreUnavailableError, `${name} rejects with StoreUnavailableError`)
      t.ok(r.ms < BOUND_MS, `${name} answered in ${r.ms} ms`)
    }
  })

  t.test('a silent network: calls and waiting calls answer within 3 s, then the store recovers', async (t) => {
    const proxy = PgProxy.forUrl(url)
    await proxy.start()
    const store = new PostgresStore({ connectionString: viaPort(url, proxy.port), schema: schema(), max: 4 })
    t.teardown(async () => {
      await store.close()
      await proxy.close()
    })
    t.equal(await store.createSite(siteRecord('before', 'alice')), true)
    proxy.freeze()
    // More calls than connections: some run on frozen connections, the rest wait for one.
    const calls = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        timed<unknown>(() => (i % 2 ? store.getSite('before') : store.createSite(siteRecord(`frozen-${i}`, 'alice')))),
      ),
    )
    t.ok(
      calls.every((c) => c.error instanceof StoreUnavailableError),
      'every call rejected with StoreUnavailableError',
    )
    const slowest = Math.max(...calls.map((c) => c.ms))
    t.ok(slowest < BOUND_MS, `the slowest answered in ${slowest} ms`)
    const fresh = await timed(() => store.getSite('before'))
    t.type(fresh.error, StoreUnavailableError, 'a new call while frozen (a new connection that never completes)')
    t.ok(fresh.ms < BOUND_MS, `answered in ${fresh.ms} ms`)

    proxy.restore()
    t.equal((await store.getSite('before'))?.owner, 'alice', 'answers again once the network is back')
    const acked = calls.filter((c, i) => i % 2 === 0 && c.value === true).length
    t.equal(acked, 0, 'no create was acknowledged during the freeze')
  })

  t.test('backends terminated under load: acknowledged writes are all there, the store recovers', async (t) => {
    const applicationName = `mobisite-fault-${randomBytes(4).toString('hex')}`
    const store = new PostgresStore({ connectionString: url, schema: schema(), applicationName, max: 6 })
    t.teardown(() => store.close())
    t.equal(await store.createSite(siteRecord('seed', 'alice')), true)
    const names = Array.from({ length: 300 }, (_, i) => `load-${i}`)
    const outcomes: { name: string; ok?: boolean; error?: unknown; ms: number }[] = []
    let killed = 0
    const load = Promise.all(
      names.map(async (name) => {
        const r = await timed(() => store.createSite(siteRecord(name, 'alice')))
        outcomes.push({ name, ok: r.value, error: r.error, ms: r.ms })
      }),
    )
    const killer = (async () => {
      for (let i = 0; i < 5; i++) {
        await new Promise((r) => setTimeout(r, 15))
        killed += await terminateBackends(admin, applicationName)
      }
    })()
    await Promise.all([load, killer])
    t.ok(killed > 0, `terminated ${killed} backends of the store while it worked`)
    const failed = outcomes.filter((o) => o.error !== undefined)
    t.ok(
      failed.every((o) => o.error instanceof StoreUnavailableError),
      `${failed.length} failed calls, all StoreUnavailableError`,
    )
    t.ok(Math.max(...outcomes.map((o) => o.ms)) < BOUND_MS, 'every call answered within 3 s')
    const acked = outcomes.filter((o) => o.ok === true).map((o) => o.name)
    t.ok(acked.length > 0, `${acked.length} creates acknowledged`)
    await new Promise((r) => setTimeout(r, 100))
    const stored = await store.getSites(acked)
    t.ok(
      stored.every((s) => s !== undefined),
      'every acknowledged create is stored',
    )
    t.ok(
      outcomes.every((o) => o.ok !== false),
      'no create reported a taken name (none was applied twice)',
    )

    // Idle connections killed between calls: reads retry on a fresh connection.
    await terminateBackends(admin, applicationName)
    await new Promise((r) => setTimeout(r, 50))
    t.equal((await store.getSite('seed'))?.owner, 'alice', 'recovers without a restart')
    t.equal(await store.createSite(siteRecord('after-kill', 'alice')), true, 'writes too')
  })

  t.test('in-process server over a proxy: 503 within 3 s on drop and freeze, then 200 again', async (t) => {
    const proxy = PgProxy.forUrl(url)
    await proxy.start()
    const engine = createEngine({
      store: new PostgresStore({ connectionString: viaPort(url, proxy.port), schema: schema() }),
    })
    const server = await startServer({ engine })
    t.teardown(async () => {
      await server.close()
      await engine.close()
      await proxy.close()
    })
    const api = `${server.url}/api`
    const call = (method: string, path: string, body?: unknown) => request(api, auth, method, path, body)
    await engine.addMasterAccount({ user: USER, password: PASSWORD, partner: true })
    t.equal((await call('POST', '/sites/create', createBody('before'))).status, 200)

    for (const fault of ['drop', 'freeze'] as const) {
      proxy[fault]()
      const answers = await Promise.all(
        ['GET /sites/before', 'POST /sites/create', 'GET /analytics/site/before', 'GET /sites/created'].map((what) =>
          timed(() =>
            what === 'POST /sites/create'
              ? call('POST', '/sites/create', createBody(`during-${fault}`))
              : call(what.split(' ')[0]!, what.split(' ')[1]!),
          ).then((r) => ({ what, ...r })),
        ),
      )
      for (const a of answers) {
        unavailable(t, a.value!, `${fault}: ${a.what}`)
        t.ok(a.ms < BOUND_MS, `${fault}: ${a.what} answered in ${a.ms} ms`)
      }
      proxy.restore()
      const back = await untilAvailable(() => call('GET', '/sites/before'))
      t.equal(back.status, 200, `after the ${fault}: served again without a restart`)
      t.equal(
        (await call('GET', `/sites/during-${fault}`)).status,
        400,
        `the create refused during the ${fault} did not happen`,
      )
    }
  })

  t.test(
    'CLI process: dropped under load, no crash, recovers; a restarted process finds every acknowledged write',
    async (t) => {
      const proxy = PgProxy.forUrl(url)
      await proxy.start()
      const env = {
        REDIS_URL: '',
        MOBISITE_STORE: viaPort(url, proxy.port),
        MOBISITE_PG_SCHEMA: schema(),
        MOBISITE_USER: USER,
        MOBISITE_PASSWORD: PASSWORD,
      }
      let server = await spawnMobisite(env)
      t.teardown(async () => {
        await server.stop()
        await proxy.close()
      })
      const call = (method: string, path: string, body?: unknown) => request(server.api, auth, method, path, body)
      t.equal((await call('POST', '/sites/create', createBody('cli-before'))).status, 200)

      const burst = Array.from({ length: 80 }, (_, i) =>
        timed(() =>
          i % 2 ? call('POST', '/sites/create', createBody(`burst-${i}`)) : call('GET', '/sites/cli-before'),
        ),
      )
      await new Promise((r) => setTimeout(r, 20))
      proxy.drop()
      const answers = await Promise.all(burst)
      const statuses = [...new Set(answers.map((a) => a.value?.status))].sort()
      t.ok(
        statuses.every((s) => s === 200 || s === 503),
        `every burst request was answered: ${statuses.join(', ')}`,
      )
      t.ok(Math.max(...answers.map((a) => a.ms)) < BOUND_MS + 1000, 'none waited much past the bound')
      unavailable(t, await call('GET', '/sites/cli-before'), 'a read while the database is unreachable')
      t.equal(server.child.exitCode, null, 'the server process is still running')
      const acked = answers.flatMap((a, i) => (i % 2 && a.value?.status === 200 ? [`burst-${i}`] : []))

      proxy.restore()
      t.equal((await untilAvailable(() => call('GET', '/sites/cli-before'))).status, 200, 'recovered without a restart')

      // Kill the process outright and start a new one: acknowledged writes are durable.
      server.child.kill('SIGKILL')
      await server.stop()
      server = await spawnMobisite(env)
      for (const name of ['cli-before', ...acked]) {
        t.equal((await call('GET', `/sites/${name}`)).status, 200, `${name} survived the process`)
      }
    },
  )
}
