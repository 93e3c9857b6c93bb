/**
 * Two mobisite servers in separate processes on one PostgreSQL schema
 * (`mobisite --store postgres://…`): what one does the other sees, and racing
 * them against each other breaks no rule (unique names regardless of case,
 * the daily limit, the first-publish charge, grants against deletes) and
 * loses nothing. Both start at the same moment on an empty schema, so their
 * migrations race too.
 * Needs DATABASE_URL; without it the file skips and says so.
 */
import t from 'tap'
import { PostgresStore } from '../../../lib/store/postgres/store.js'
import { MIGRATIONS } from '../../../lib/store/postgres/migrate.js'
import { DATABASE_URL, dropSchema, postgresOrSkip, randomSchema } from '../../helpers/postgres.js'
import { request, spawnMobisite, type ApiResponse, type MobisiteProcess } from '../../helpers/redis.js'

const admin = await postgresOrSkip(t, 'PostgreSQL multi-instance suite')

if (admin && DATABASE_URL) {
  const schema = randomSchema('multi')
  const user = 'partner'
  const auth: [string, string] = [user, 'correct horse: battery']
  const env = {
    REDIS_URL: '',
    MOBISITE_STORE: DATABASE_URL,
    MOBISITE_PG_SCHEMA: schema,
    MOBISITE_USER: user,
    MOBISITE_PASSWORD: auth[1],
  }
  // Read the shared state directly, as a third client of the same database.
  const store = new PostgresStore({ connectionString: DATABASE_URL, schema })
  const servers: MobisiteProcess[] = []
  t.teardown(async () => {
    await Promise.all(servers.map((s) => s.stop()))
    await store.close()
    await dropSchema(admin, schema)
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

  t.test('both serve on PostgreSQL, migrated once', async (t) => {
    t.match(A.output(), /PostgreSQL store at .*schema mobisite_multi_/, 'A says which store')
    t.not(A.child.pid, B.child.pid)
    const { rows } = await admin.query(`SELECT version FROM "${schema}".migrations ORDER BY version`)
    t.strictSame(
      rows.map((r) => r.version),
      MIGRATIONS.map((m) => m.version),
      'each migration recorded once although both started together',
    )
  })

  t.test('a site created through one is read, updated, published and deleted through the other', async (t) => {
    t.equal((await call(A, 'POST', '/sites/create', createBody('crossover', { external_uid: 'ext-1' }))).status, 200)
    const read = await call(B, 'GET', '/sites/crossover')
    t.equal(read.status, 200)
    t.equal(read.body.original_site_url, 'https://www.example.com/')
    t.equal((await call(B, 'GET', '/sites/byexternal/ext-1')).body.site_name, 'crossover')
    t.equal(
      (await call(B, 'POST', '/sites/update/crossover', { site_domain: 'm.example.com', external_uid: 'ext-2' }))
        .status,
      204,
    )
    t.equal((await call(A, 'GET', '/sites/crossover')).body.site_domain, 'm.example.com', 'A sees the update')
    t.equal((await call(A, 'GET', '/sites/byexternal/ext-1')).status, 400, 'the old external uid is gone for A')
    t.equal((await call(B, 'POST', '/sites/publish/crossover')).status, 204, 'published through B')
    t.match((await call(A, 'GET', '/sites/crossover')).body, { last_published_date: String }, 'A sees it published')
    t.match(await store.getBilling(user), { charges: [{ site_name: 'crossover' }] }, 'charged in the shared ledger')
    t.equal((await call(B, 'DELETE', '/sites/crossover')).status, 204, 'deleted through B')
    t.match((await call(A, 'GET', '/sites/crossover')).body, { error_code: 'ResourceNotExist' }, 'A sees it gone')
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
    t.ok(
      lost.every((r) => r.status === 400 && r.body.error_code === 'ResourceAlreadyExist'),
      'the other 49: ResourceAlreadyExist',
    )
    t.equal(lost.length, 49)
  })

  t.test('concurrent creates of abcd, ABCD and AbCd over both servers: exactly one winner', async (t) => {
    const names = ['casey', 'CASEY', 'CaSeY', 'cAsEy']
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        call(either(i), 'POST', '/sites/create', createBody(names[i % names.length]!)),
      ),
    )
    t.equal(results.filter((r) => r.status === 200).length, 1, 'one 200')
    t.ok(
      results.filter((r) => r.status !== 200).every((r) => r.body?.error_code === 'ResourceAlreadyExist'),
      'the rest refused',
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
    t.equal((await call(A, 'GET', '/analytics/sites/withmosttraffic')).status, 200, 'the limit is per method')
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
      t.strictSame(
        listed
          .map((r) => r.site_name)
          .filter((n) => n.startsWith('bulk-'))
          .sort(),
        names,
        'all 100 listed',
      )
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

  t.test('a third process named by --store alone (over REDIS_URL and DATABASE_URL) serves the same data', async (t) => {
    const third = await spawnMobisite(
      {
        ...env,
        MOBISITE_STORE: '',
        REDIS_URL: 'redis://127.0.0.1:1',
        DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      },
      ['--store', DATABASE_URL!],
    )
    t.teardown(() => third.stop())
    t.match(third.output(), /PostgreSQL store at .*schema mobisite_multi_/)
    const listed = (await request(third.api, auth, 'GET', '/sites/created?from=2000-01-01')).body as {
      site_name: string
    }[]
    t.ok(
      listed.some((r) => r.site_name === 'contested'),
      'it lists what the other two created',
    )
  })

  t.test('both processes are still running', async (t) => {
    t.equal(A.child.exitCode, null, A.output())
    t.equal(B.child.exitCode, null, B.output())
  })
}
