/**
 * Master credentials: scrypt hashes at rest, older SHA-256 hashes upgraded on
 * the next successful login, canonical Basic parsing, the verified-credential
 * cache, its bound and its renewal in the background, and masters re-created after the store lost them
 * (RedisStore, keys deleted behind the engine's back).
 */
import { createHash } from 'node:crypto'
import express from 'express'
import { checkedRequest } from '../helpers/openapi-check.js'
import t from 'tap'
import { MemoryStore, apiRouter, createEngine, type Engine } from '../../lib/index.js'
import { RedisStore } from '../../lib/store/redis/store.js'
import { contextOf } from '../../lib/engine/context-access.js'
import { deleteUnder, keysUnder, randomPrefix, redisOrSkip } from '../helpers/redis.js'

const basic = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

function appOf(engine: Engine): express.Express {
  const app = express()
  app.use('/api', apiRouter(engine))
  return app
}

async function status(app: express.Express, authorization: string | undefined): Promise<number> {
  const req = checkedRequest(app).get('/api/agents')
  if (authorization !== undefined) req.set('authorization', authorization)
  const res = await req
  if (res.status === 401) t.equal(res.body.error_code, 'Unauthorized')
  return res.status
}

/** The token's user and password, as the Basic middleware decodes them. */
const decodeBasicToken = (token: string) => {
  const text = Buffer.from(token, 'base64').toString()
  const colon = text.indexOf(':')
  return { user: text.slice(0, colon), password: text.slice(colon + 1) }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

t.test('passwords are stored as scrypt, never in a fast hash', async (t) => {
  const store = new MemoryStore()
  const engine = createEngine({ store })
  t.teardown(() => engine.close())
  await engine.addMasterAccount({ user: 'alice', password: 's3cret:with:colons' })
  const record = await store.getMaster('alice')
  t.match(
    record?.password_hash,
    /^\$scrypt\$ln=15,r=8,p=1\$[0-9a-f]{32}\$[0-9a-f]{64}$/,
    'scrypt, cost parameters inside',
  )
  t.notMatch(record?.password_hash ?? '', /s3cret/)
  const app = appOf(engine)
  t.equal(await status(app, basic('alice', 's3cret:with:colons')), 200, 'right password (split at the first colon)')
  t.equal(await status(app, basic('alice', 's3cret')), 401, 'wrong password')
  t.equal(await status(app, basic('nobody', 's3cret:with:colons')), 401, 'unknown user')
})

t.test('an older SHA-256 hash is upgraded to scrypt on the next successful login only', async (t) => {
  const store = new MemoryStore()
  const salt = 'a1b2c3d4'
  const legacy = createHash('sha256').update(salt).update('old-password').digest('hex')
  await store.putMaster({ user: 'veteran', partner: true, salt, password_hash: legacy })
  const engine = createEngine({ store })
  t.teardown(() => engine.close())
  const app = appOf(engine)
  t.equal(await status(app, basic('veteran', 'wrong')), 401, 'a wrong password is refused')
  t.equal((await store.getMaster('veteran'))?.password_hash, legacy, '... and upgrades nothing')
  t.equal(await status(app, basic('veteran', 'old-password')), 200, 'the old hash still verifies')
  const upgraded = await store.getMaster('veteran')
  t.match(upgraded?.password_hash, /^\$scrypt\$/, 'and is replaced by scrypt')
  t.equal(upgraded?.partner, true, 'the rest of the record is kept')
  const fresh = createEngine({ store })
  t.teardown(() => fresh.close())
  t.equal(
    await status(appOf(fresh), basic('veteran', 'old-password')),
    200,
    'the upgraded hash verifies (uncached engine)',
  )
  t.equal(await status(appOf(fresh), basic('veteran', 'wrong')), 401)
})

t.test('an unknown user costs what a wrong password costs', async (t) => {
  const engine = createEngine({ credentialCache: { ttlMs: 0 } })
  t.teardown(() => engine.close())
  await engine.addMasterAccount({ user: 'alice', password: 'right' })
  const time = async (user: string, i: number): Promise<number> => {
    const start = process.hrtime.bigint()
    t.equal(await engine.authenticate(user, `wrong-${i}`), undefined)
    return Number(process.hrtime.bigint() - start) / 1e6
  }
  const wrong: number[] = []
  const unknown: number[] = []
  for (let i = 0; i < 6; i++) {
    wrong.push(await time('alice', i))
    unknown.push(await time(`ghost-${i}`, i))
  }
  // Without the decoy an unknown user would answer in microseconds, a wrong password in tens of ms.
  const ratio = median(unknown) / median(wrong)
  t.ok(
    ratio > 0.5 && ratio < 2,
    `median unknown ${median(unknown).toFixed(1)} ms vs wrong ${median(wrong).toFixed(1)} ms`,
  )
})

t.test('Basic credentials must be canonical base64', async (t) => {
  const engine = createEngine()
  t.teardown(() => engine.close())
  await engine.addMasterAccount({ user: 'alice', password: 'pw1' })
  const app = appOf(engine)
  const b64 = Buffer.from('alice:pw1').toString('base64') // YWxpY2U6cHcx (no padding needed)
  await engine.addMasterAccount({ user: 'alice2', password: 'p' })
  t.equal(await status(app, `Basic ${b64}`), 200, 'canonical')
  t.equal(await status(app, `basic ${b64}`), 200, 'the scheme is case-insensitive')
  t.equal(await status(app, basic('alice2', 'p')), 200, 'canonical with padding')
  const refused: Record<string, string> = {
    'junk after the padding': `Basic ${b64}====AAAA`,
    'extra padding': `Basic ${b64}==`,
    'missing padding': `Basic ${Buffer.from('alice2:p').toString('base64').replace(/=+$/, '')}`,
    'url-safe alphabet': `Basic ${Buffer.from('alice:pw1>?').toString('base64url')}`,
    'whitespace inside': `Basic ${b64.slice(0, 4)} ${b64.slice(4)}`,
    'two spaces': `Basic  ${b64}`,
    'a tab': `Basic\t${b64}`,
    // YWxpY2UyOnA= is alice2:p; with the unused bits set, Node's decoder still reads alice2:p.
    'non-zero padding bits': 'Basic YWxpY2UyOnB=',
    'invalid UTF-8': `Basic ${Buffer.concat([Buffer.from('alice:'), Buffer.from([0xff, 0xfe])]).toString('base64')}`,
    'no colon': `Basic ${Buffer.from('alicepw1').toString('base64')}`,
    'another scheme': `Bearer ${b64}`,
    empty: 'Basic ',
  }
  for (const [what, header] of Object.entries(refused)) t.equal(await status(app, header), 401, what)
  t.equal(await status(app, undefined), 401, 'no header')
})

t.test("the credential cache: local changes at once, another instance's within the TTL", async (t) => {
  const store = new MemoryStore()
  const ttlMs = 400
  const here = createEngine({ store, credentialCache: { ttlMs } })
  const there = createEngine({ store })
  t.teardown(() => Promise.all([here.close(), there.close()]).then(() => undefined))
  await here.addMasterAccount({ user: 'alice', password: 'one' })
  const app = appOf(here)
  t.equal(await status(app, basic('alice', 'one')), 200)
  t.equal(await status(app, basic('alice', 'two')), 401)

  await here.addMasterAccount({ user: 'alice', password: 'two' })
  t.equal(await status(app, basic('alice', 'one')), 401, 'a change made through this engine applies at once')
  t.equal(await status(app, basic('alice', 'two')), 200, '... to failures cached before it too')

  await there.addMasterAccount({ user: 'alice', password: 'three' })
  // No wall-clock bound on how long a request takes (a scrypt check is slow
  // on a loaded machine): the rule is that no request STARTED more than the
  // TTL after the change is still answered from the old verdict.
  const changedAt = performance.now()
  let lateAcceptance = -1
  let refused = false
  while (!refused && performance.now() - changedAt < 30_000) {
    const startedAfter = performance.now() - changedAt
    const answer = await status(app, basic('alice', 'two'))
    if (answer === 401) refused = true
    else if (startedAfter > ttlMs) lateAcceptance = startedAfter
    await new Promise((r) => setTimeout(r, 25))
  }
  t.ok(refused, "another instance's change is seen")
  t.equal(lateAcceptance, -1, `no request started after the TTL (${ttlMs} ms) got the old verdict`)
  t.equal(await status(app, basic('alice', 'three')), 200)
})

t.test('a verdict used past half its TTL is renewed in the background, so a steady client never waits', async (t) => {
  const ttlMs = 2000
  const engine = createEngine({ credentialCache: { ttlMs } })
  t.teardown(() => engine.close())
  await engine.addMasterAccount({ user: 'alice', password: 'pw' })
  const masters = contextOf(engine).masters
  const token = Buffer.from('alice:pw').toString('base64')
  t.ok(await masters.authenticateToken(token, decodeBasicToken), 'the first call checks')
  const cachedAt = performance.now()
  await sleep(ttlMs / 2 + 50)
  const started = masters.gate.stats.started
  const aging = masters.authenticateToken(token, decodeBasicToken)
  t.notOk(aging instanceof Promise, 'a verdict past half its TTL still answers at once...')
  t.equal(masters.gate.stats.started, started + 1, '... and starts one check in the background')
  t.notOk(masters.authenticateToken(token, decodeBasicToken) instanceof Promise)
  t.equal(masters.gate.stats.started, started + 1, 'a second call while it runs starts no other')
  // Without the renewal this call would find the first verdict expired and wait for a check.
  await sleep(cachedAt + ttlMs + 100 - performance.now())
  const later = masters.authenticateToken(token, decodeBasicToken)
  t.notOk(later instanceof Promise, "past the first verdict's TTL a call is still answered at once")
  t.equal((later as { user: string } | undefined)?.user, 'alice')

  await engine.addMasterAccount({ user: 'alice', password: 'new' })
  t.equal(await masters.authenticateToken(token, decodeBasicToken), undefined, 'a local change still applies at once')
})

t.test('a renewal in flight when the password changes here does not bring the old verdict back', async (t) => {
  /** Holds each master record it read until `hold` settles: the renewal read the record before the change. */
  class HeldReads extends MemoryStore {
    hold: Promise<void> | undefined
    override async getMaster(user: string) {
      const record = await super.getMaster(user)
      await this.hold
      return record
    }
  }
  const store = new HeldReads()
  const engine = createEngine({ store, credentialCache: { ttlMs: 2000 } })
  t.teardown(() => engine.close())
  await engine.addMasterAccount({ user: 'alice', password: 'pw' })
  const masters = contextOf(engine).masters
  const token = Buffer.from('alice:pw').toString('base64')
  t.ok(await masters.authenticateToken(token, decodeBasicToken))
  let release = () => {}
  store.hold = new Promise((resolve) => (release = resolve))
  await sleep(1050)
  const started = masters.gate.stats.started
  t.ok(masters.authenticateToken(token, decodeBasicToken), 'an aging verdict still answers...')
  t.equal(masters.gate.stats.started, started + 1, '... and starts its renewal, which reads the old record')
  await engine.addMasterAccount({ user: 'alice', password: 'new' })
  release()
  // The renewal now verifies the old password against the old record, and finishes (or, if
  // slow, is still in flight for the call below), well within the TTL.
  await sleep(300)
  t.equal(await masters.authenticateToken(token, decodeBasicToken), undefined, 'the old password stays refused')
  t.ok(await masters.authenticateToken(Buffer.from('alice:new').toString('base64'), decodeBasicToken))
})

t.test('many parallel requests with new credentials all succeed', async (t) => {
  const engine = createEngine()
  t.teardown(() => engine.close())
  await engine.addMasterAccount({ user: 'alice', password: 'pw' })
  const app = appOf(engine)
  const statuses = await Promise.all(
    Array.from({ length: 30 }, () => checkedRequest(app).get('/api/agents').set('authorization', basic('alice', 'pw'))),
  )
  t.strictSame([...new Set(statuses.map((r) => r.status))], [200])
})

t.test(
  "RedisStore: masters lost by the store are re-created on demand, never over another instance's record",
  async (t) => {
    const admin = await redisOrSkip(t, 'master re-creation on RedisStore')
    if (!admin) return
    const prefix = randomPrefix('masters')
    t.teardown(() => deleteUnder(admin, prefix))
    const url = process.env.REDIS_URL!
    const engine = createEngine({ store: new RedisStore({ url, prefix }), credentialCache: { ttlMs: 0 } })
    const other = createEngine({ store: new RedisStore({ url, prefix }), credentialCache: { ttlMs: 0 } })
    t.teardown(() => Promise.all([engine.close(), other.close()]).then(() => undefined))
    await engine.addMasterAccount({ user: 'alice', password: 'pw', partner: true })
    const app = appOf(engine)
    const created = await checkedRequest(app)
      .post('/api/sites/create')
      .set('authorization', basic('alice', 'pw'))
      .send({ site_data: { site_name: 'keptsite', original_site_url: 'https://www.example.com/' } })
    t.equal(created.status, 200)

    // The store loses everything (a Redis restart without persistence).
    await deleteUnder(admin, prefix)
    t.strictSame(await keysUnder(admin, prefix), [], 'nothing left under the prefix')
    t.equal(await status(app, basic('alice', 'wrong')), 401, 'a wrong password does not re-create')
    // Only the failed-login counters (test/api/failed-logins.ts) are written.
    const masters = async () => (await keysUnder(admin, prefix)).filter((key) => !key.startsWith(`${prefix}{l:`))
    t.strictSame(await masters(), [], 'and writes no master')
    t.equal(await status(app, basic('alice', 'pw')), 200, 'the right one is let in')
    t.same(await masters(), [`${prefix}{m:alice}`], 'and the master is back in the store')
    const back = await checkedRequest(app).get('/api/accounts/nobody').set('authorization', basic('alice', 'pw'))
    t.equal(back.body.error_code, 'ResourceNotExist', 'still a partner (Accounts reachable)')
    t.equal(await status(appOf(other), basic('alice', 'pw')), 200, 'another instance sees the re-created master')

    // In-process calls by name re-create too.
    await deleteUnder(admin, prefix)
    await t.resolves(engine.as('alice').sitesCreated(), 'engine.as(user) re-creates a lost master')

    // Another instance changed the record: the re-creation never overwrites it.
    await deleteUnder(admin, prefix)
    await other.addMasterAccount({ user: 'alice', password: 'changed', partner: false })
    t.equal(await status(app, basic('alice', 'pw')), 401, 'the old password no longer works here')
    t.equal(await status(app, basic('alice', 'changed')), 200, "the other instance's password does")
    const stored = JSON.parse((await admin.get(`${prefix}{m:alice}`))!)
    t.equal(stored.partner, false, "the other instance's record is intact")
  },
)
