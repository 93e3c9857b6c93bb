/**
 * Failed-login limits (DESIGN "Abuse resistance", issue 23): per client IP
 * (default 10 a minute) and per user name and IP (default 5), counted in the
 * store so every instance sharing it sees them; past either, 429
 * TooManyRequests with Retry-After and no password check; a cached valid
 * credential is still served; a missing or malformed Authorization stays a
 * plain 401; a success does not reset the count; the IP follows Express's
 * `trust proxy`. The defaults are used throughout (a test pays about a dozen
 * scrypt checks); checks run are counted by the password gate's stats.
 *
 * The counters run on real time, not the engine clock (a frozen test clock
 * must not freeze them), so the bounds of `Retry-After` (issue 35: at most
 * 60 s, and a client that waits it is let in) are tried on FailedLogins
 * itself with a clock the test moves, as the rate limit's tests do.
 */
import express from 'express'
import request from 'supertest'
import t, { type Test } from 'tap'
import { MemoryStore, apiRouter, createEngine, type Engine, type Store } from '../../lib/index.js'
import { contextOf } from '../../lib/engine/context-access.js'
import { FailedLogins } from '../../lib/engine/auth/failed-logins.js'
import { ServiceError } from '../../lib/errors.js'
import { PostgresStore } from '../../lib/store/postgres/store.js'
import { RedisStore } from '../../lib/store/redis/store.js'
import { DATABASE_URL, dropSchema, postgresOrSkip, randomSchema } from '../helpers/postgres.js'
import { awayFromMinuteTurn } from '../helpers/real-minute.js'
import { REDIS_URL, deleteUnder, randomPrefix, redisOrSkip } from '../helpers/redis.js'

const basic = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

function appOf(engine: Engine, trustProxy?: boolean): express.Express {
  const app = express()
  if (trustProxy) app.set('trust proxy', true)
  app.use('/api', apiRouter(engine))
  return app
}

async function call(app: express.Express, authorization?: string, from?: string): Promise<request.Response> {
  const req = request(app).get('/api/agents')
  if (authorization !== undefined) req.set('authorization', authorization)
  if (from !== undefined) req.set('x-forwarded-for', from)
  return req
}

async function engineWith(t: Test, store: Store = new MemoryStore()): Promise<Engine> {
  await awayFromMinuteTurn()
  const engine = createEngine({ store })
  t.teardown(() => engine.close())
  for (const user of ['alice', 'bob', 'carol']) await engine.addMasterAccount({ user, password: `${user}-secret` })
  return engine
}

const checks = (engine: Engine) => contextOf(engine).masters.gate.stats.started

t.test('past 5 failures for one user from one IP: 429 with Retry-After, no password check', async (t) => {
  const engine = await engineWith(t)
  const app = appOf(engine)
  for (let i = 1; i <= 5; i++) t.equal((await call(app, basic('alice', `guess-${i}`))).status, 401, `failure ${i}`)
  const before = checks(engine)
  const refused = await call(app, basic('alice', 'guess-6'))
  t.equal(refused.status, 429)
  t.match(refused.body, { error_code: 'TooManyRequests', message: /failed logins/ })
  const wait = Number(refused.headers['retry-after'])
  t.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}: a per-minute limit never asks for more than 60 s`)
  t.equal((await call(app, basic('alice', 'alice-secret'))).status, 429, 'even the right password, uncached')
  t.equal(checks(engine), before, 'neither ran a password check')
  t.equal((await call(app, basic('bob', 'bob-secret'))).status, 200, 'another user from the same IP is not locked')
})

t.test('past 10 failures from one IP: 429 for every user; cached valid credentials still served', async (t) => {
  const engine = await engineWith(t)
  const app = appOf(engine)
  t.equal((await call(app, basic('carol', 'carol-secret'))).status, 200, 'carol logs in (and is cached)')
  for (let i = 1; i <= 4; i++) t.equal((await call(app, basic('alice', `guess-${i}`))).status, 401)
  for (let i = 1; i <= 4; i++) t.equal((await call(app, basic('bob', `guess-${i}`))).status, 401)
  t.equal((await call(app, basic('alice', 'alice-secret'))).status, 200, 'a success in between')
  t.equal((await call(app, basic('nobody', 'guess-1'))).status, 401, 'an unknown user is a failure too')
  t.equal((await call(app, basic('nobody2', 'guess-1'))).status, 401, 'the 10th failure')
  const before = checks(engine)
  const refused = await call(app, basic('nobody3', 'guess-1'))
  t.equal(refused.status, 429, 'the success did not reset the count')
  const wait = Number(refused.headers['retry-after'])
  t.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`)
  t.equal((await call(app, basic('bob', 'bob-secret'))).status, 429, 'an uncached valid credential waits too')
  t.equal(checks(engine), before, 'no password check past the limit')
  t.equal((await call(app, basic('carol', 'carol-secret'))).status, 200, 'a cached valid credential is served')
  t.equal((await call(app, basic('alice', 'alice-secret'))).status, 200, 'so is the one cached by the success')
  const none = await call(app)
  t.equal(none.status, 401, 'no Authorization: plain 401')
  t.equal(none.body.error_code, 'Unauthorized')
  t.equal((await call(app, 'Basic %%%')).status, 401, 'malformed Authorization: plain 401')
  t.equal((await call(app, 'Basic YWxpY2U=')).status, 401, 'no colon: plain 401')
  t.equal((await call(app, 'Bearer x')).status, 401, 'another scheme: plain 401')
})

t.test('the client IP follows trust proxy', async (t) => {
  const engine = await engineWith(t)
  const trusting = appOf(engine, true)
  for (let i = 1; i <= 5; i++) await call(trusting, basic('alice', `guess-${i}`), '203.0.113.7')
  t.equal((await call(trusting, basic('alice', 'guess-6'), '203.0.113.7')).status, 429, 'limited by forwarded IP')
  t.equal((await call(trusting, basic('alice', 'alice-secret'), '203.0.113.8')).status, 200, 'another forwarded IP')
  const direct = appOf(engine, false)
  t.equal(
    (await call(direct, basic('alice', 'guess-7'), '203.0.113.7')).status,
    401,
    'without trust proxy X-Forwarded-For is ignored: the socket address has no failures',
  )
})

t.test('the limits can be changed and turned off', async (t) => {
  await awayFromMinuteTurn()
  const engine = createEngine({ failedLogins: { perIp: 2, perUserAndIp: 0 } })
  t.teardown(() => engine.close())
  await engine.addMasterAccount({ user: 'alice', password: 'alice-secret' })
  const app = appOf(engine)
  t.equal((await call(app, basic('alice', 'a'))).status, 401)
  t.equal((await call(app, basic('alice', 'b'))).status, 401)
  t.equal((await call(app, basic('alice', 'c'))).status, 429)
  const off = createEngine({ failedLogins: { perIp: 0, perUserAndIp: 0 } })
  t.teardown(() => off.close())
  await off.addMasterAccount({ user: 'alice', password: 'alice-secret' })
  const offApp = appOf(off)
  for (let i = 0; i < 7; i++) t.equal((await call(offApp, basic('alice', `x${i}`))).status, 401, `off: ${i}`)
})

/** Failures through one engine lock the user out on another engine sharing the store. */
async function shared(t: Test, storeOf: () => Store): Promise<void> {
  await awayFromMinuteTurn(20)
  const first = await engineWith(t, storeOf())
  const second = await engineWith(t, storeOf())
  const a = appOf(first)
  const b = appOf(second)
  for (let i = 1; i <= 3; i++) t.equal((await call(a, basic('alice', `guess-${i}`))).status, 401, `instance 1: ${i}`)
  for (let i = 4; i <= 5; i++) t.equal((await call(b, basic('alice', `guess-${i}`))).status, 401, `instance 2: ${i}`)
  const refused = await call(a, basic('alice', 'guess-6'))
  t.equal(refused.status, 429, 'instance 1 sees the failures made on instance 2')
  t.equal((await call(b, basic('alice', 'alice-secret'))).status, 429, 'and instance 2 too')
}

t.test('RedisStore: two instances share the counters', async (t) => {
  const admin = await redisOrSkip(t, 'failed logins on Redis')
  if (!admin) return
  const prefix = randomPrefix('logins')
  t.teardown(() => deleteUnder(admin, prefix))
  await shared(t, () => new RedisStore({ url: REDIS_URL!, prefix }))
})

t.test('PostgresStore: two instances share the counters', async (t) => {
  const admin = await postgresOrSkip(t, 'failed logins on PostgreSQL')
  if (!admin) return
  const schema = randomSchema('logins')
  t.teardown(() => dropSchema(admin, schema))
  await shared(t, () => new PostgresStore({ connectionString: DATABASE_URL!, schema }))
})

t.test('past a limit, refusals cost no store round trip', async (t) => {
  let calls = 0
  class Counting extends MemoryStore {
    override incrementWithinLimit(key: string, limit: number, expiresAt: number) {
      calls++
      return super.incrementWithinLimit(key, limit, expiresAt)
    }
  }
  const engine = await engineWith(t, new Counting())
  const app = appOf(engine)
  for (let i = 1; i <= 5; i++) await call(app, basic('alice', `guess-${i}`))
  t.equal((await call(app, basic('alice', 'guess-6'))).status, 429)
  const before = calls
  for (let i = 7; i <= 9; i++) t.equal((await call(app, basic('alice', `guess-${i}`))).status, 429)
  t.equal(calls, before, 'the refusal is remembered until the window where it could change')
})

/** A moved clock far from real time in the future, so MemoryStore never sweeps a counter still read. */
const MINUTE = 60_000
const EPOCH = Date.UTC(2100, 0, 1)

/** Limits on a clock the test sets, and the steps of a client: fail once, or be refused. */
function limitsAt(start: number, options?: { perIp?: number; perUserAndIp?: number }) {
  const clock = { now: start }
  const limits = new FailedLogins(new MemoryStore(), options, () => clock.now)
  return {
    clock,
    /** One login that fails; throws if refused. */
    async fail(ip = '192.0.2.1', user = 'alice'): Promise<void> {
      await limits.failed(await limits.admit(ip, user))
    },
    /** The Retry-After of a refused login, or undefined if it was admitted (and then settled as a success). */
    async refusal(ip = '192.0.2.1', user = 'alice'): Promise<number | undefined> {
      try {
        limits.done(await limits.admit(ip, user))
        return undefined
      } catch (error) {
        if (!(error instanceof ServiceError) || error.error_code !== 'TooManyRequests') throw error
        return error.retryAfter
      }
    },
  }
}

/** Seconds, checked: a refusal at most 60 s, still refused a second before it ends, let in when it has. */
async function waitOut(t: Test, at: string, limits: ReturnType<typeof limitsAt>, user?: string): Promise<number> {
  const started = limits.clock.now
  const wait = await limits.refusal(undefined, user)
  if (wait === undefined) {
    t.fail(`${at}: expected a refusal`)
    return 0
  }
  if (wait < 1 || wait > 60) t.fail(`${at}: Retry-After ${wait}`)
  if (wait > 1) {
    limits.clock.now = started + (wait - 1) * 1000
    if ((await limits.refusal(undefined, user)) === undefined) {
      t.fail(`${at}: let in a second before Retry-After ${wait} ended`)
    }
  }
  limits.clock.now = started + wait * 1000
  const again = await limits.refusal(undefined, user)
  if (again !== undefined) t.fail(`${at}: refused again (Retry-After ${again}) once Retry-After ${wait} had passed`)
  return wait
}

t.test('Retry-After is at most 60 s at every second of a minute, and waiting it out is enough', async (t) => {
  const waits: number[] = []
  for (let second = 0; second < 60; second++) {
    for (const offset of [0, 1, 500, 999]) {
      const at = `${second}.${String(offset).padStart(3, '0')} s`
      const now = EPOCH + second * 1000 + offset
      // All ten failures at this moment: the count of this minute alone is at the limit.
      const burst = limitsAt(now, { perIp: 10, perUserAndIp: 0 })
      for (let i = 0; i < 10; i++) await burst.fail()
      waits.push(await waitOut(t, `a burst at ${at}`, burst))
      // Six failures late in the minute before, then as many as are let in at its end: both minutes count.
      const carried = limitsAt(EPOCH - 2000, { perIp: 10, perUserAndIp: 0 })
      for (let i = 0; i < 6; i++) await carried.fail()
      carried.clock.now = EPOCH
      while ((await carried.refusal()) === undefined) await carried.fail()
      carried.clock.now = now
      if ((await carried.refusal()) !== undefined) {
        carried.clock.now = now
        waits.push(await waitOut(t, `a carried-over count at ${at}`, carried))
      }
    }
  }
  t.ok(waits.length > 240, `${waits.length} refusals tried`)
  t.equal(Math.max(...waits), 60, 'a burst at the start of a minute waits the whole 60 s')
  t.ok(Math.min(...waits) >= 1, 'never less than 1 s')
})

t.test('a client that waits Retry-After out is let in, through any run of failures (seeded)', async (t) => {
  for (const seed of [1, 7, 35, 1234]) {
    let state = seed
    const next = (n: number) => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0
      return state % n
    }
    // The default limits: one user's 5 a minute and the address's 10 both come into play.
    const limits = limitsAt(EPOCH + next(MINUTE), {})
    let refusals = 0
    for (let step = 0; step < 400; step++) {
      const user = ['alice', 'bob', 'carol'][next(3)]!
      if ((await limits.refusal(undefined, user)) !== undefined) {
        refusals++
        await waitOut(t, `seed ${seed}, step ${step}`, limits, user)
      }
      await limits.fail(undefined, user)
      limits.clock.now += next(next(2) === 0 ? 2000 : 20_000)
    }
    t.ok(refusals > 20, `seed ${seed}: ${refusals} refusals, each at most 60 s and enough`)
  }
})

t.test('counts past a limit (another instance with higher limits): the longer wait, capped at 60 s', async (t) => {
  const store = new MemoryStore()
  let now = EPOCH
  const lenient = new FailedLogins(store, { perIp: 100, perUserAndIp: 100 }, () => now)
  const strict = new FailedLogins(store, { perIp: 5, perUserAndIp: 3 }, () => now)
  for (let i = 0; i < 3; i++) await lenient.failed(await lenient.admit('192.0.2.1', 'alice'))
  for (let i = 0; i < 7; i++) await lenient.failed(await lenient.admit('192.0.2.1', `other-${i}`))
  // alice's 3 stop counting at the next minute; the address's 10, twice its limit, only halfway through it.
  await t.rejects(strict.admit('192.0.2.1', 'alice'), {
    error_code: 'TooManyRequests',
    retryAfter: 60,
    message: /from this address/,
  })
  now = EPOCH + MINUTE
  await t.rejects(strict.admit('192.0.2.1', 'alice'), { retryAfter: 30, message: /from this address/ })
  now = EPOCH + MINUTE + 30_000
  strict.done(await strict.admit('192.0.2.1', 'alice'))
})
