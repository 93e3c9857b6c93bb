/**
 * Failed-login limits (DESIGN "Abuse resistance", issue 23): per client IP
 * (default 10 a minute) and per user name and IP (default 5), counted in the
 * store so every instance sharing it sees them; past either, 429
 * TooManyRequests with Retry-After and no password check; a cached valid
 * credential is still served; a missing or malformed Authorization stays a
 * plain 401; a success does not reset the count; the IP follows Express's
 * `trust proxy`. The defaults are used throughout (a test pays about a dozen
 * scrypt checks); checks run are counted by the password gate's stats.
 */
import express from 'express'
import request from 'supertest'
import t, { type Test } from 'tap'
import { MemoryStore, apiRouter, createEngine, type Engine, type Store } from '../../lib/index.js'
import { contextOf } from '../../lib/engine/context-access.js'
import { PostgresStore } from '../../lib/store/postgres/store.js'
import { RedisStore } from '../../lib/store/redis/store.js'
import { DATABASE_URL, dropSchema, postgresOrSkip, randomSchema } from '../helpers/postgres.js'
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
  t.ok(wait >= 1 && wait <= 120, `Retry-After ${wait}`)
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
  t.ok(Number(refused.headers['retry-after']) >= 1)
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
