/**
 * Strict input: invalid UTF-8 bodies and queries, lone surrogates and C0
 * control characters in any string (keys and values, body, query, path) are
 * 400 InvalidInput, with TAB/LF/CR allowed only in business info; site and
 * account names are unique regardless of letter case (reserved names too),
 * with exact lookups, one winner among parallel creates, and generated names
 * under the same rule; on MemoryStore and, with REDIS_URL, RedisStore.
 */
import request from 'supertest'
import t, { type Test } from 'tap'
import { createEngine, type Engine } from '../../lib/index.js'
import { RedisStore } from '../../lib/store/redis/store.js'
import { isError, isInvalid, isMissing, rejectsWith, setup } from '../helpers/api.js'
import { deleteUnder, randomPrefix, redisOrSkip } from '../helpers/redis.js'

const URL_OK = 'https://www.example.com/'

t.test('invalid UTF-8 is 400 InvalidInput, in the body and in the query', async (t) => {
  const f = await setup(t)
  const bytes = Buffer.concat([
    Buffer.from('{"site_data":{"original_site_url":"https://x.example/","site_vertical":"'),
    Buffer.from([0xc3, 0x28]),
    Buffer.from('"}}'),
  ])
  const res = await request(f.server)
    .post('/api/sites/create')
    .auth('alice', 'alice-secret')
    .set('content-type', 'application/json')
    .serialize((raw) => raw)
    .send(bytes)
  isInvalid(t, res, 'a body with invalid UTF-8')
  t.match(res.body.message, /UTF-8/)
  const badKey = await request(f.server)
    .post('/api/sites/create')
    .auth('alice', 'alice-secret')
    .set('content-type', 'application/json; charset=utf-8')
    .serialize((raw) => raw)
    .send(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]))
  isInvalid(t, badKey, 'a key with invalid UTF-8')
  t.same((await f.alice.get('/sites/created?from=2000-01-01')).body, [], 'nothing was created')
  isInvalid(t, await f.alice.get('/sites/created?from=%FF'), 'a query value that is not UTF-8')
  isInvalid(t, await f.alice.get('/sites/created?%C3%28=1'), 'a query key that is not UTF-8')
  t.equal((await f.alice.get('/sites/created?from=%32%30%32%30-01-01')).status, 200, 'valid percent-encoding is read')
  t.same(f.errors, [], 'nothing reached onError')
})

t.test('lone surrogates and C0 controls are InvalidInput wherever a string goes', async (t) => {
  const f = await setup(t)
  const create = (site_data: Record<string, unknown>) =>
    f.alice.post('/sites/create', { site_data: { original_site_url: URL_OK, ...site_data } })
  // JSON escapes are how such characters travel in a valid UTF-8 body.
  const raw = (json: string) =>
    request(f.server)
      .post('/api/sites/create')
      .auth('alice', 'alice-secret')
      .set('content-type', 'application/json')
      .send(json)
  isInvalid(
    t,
    await raw('{"site_data":{"original_site_url":"https://x.example/","site_vertical":"\\ud800"}}'),
    'a lone high surrogate',
  )
  isInvalid(
    t,
    await raw('{"site_data":{"original_site_url":"https://x.example/","site_vertical":"a\\udc00b"}}'),
    'a lone low surrogate',
  )
  isInvalid(
    t,
    await raw('{"site_data":{"original_site_url":"https://x.example/\\u0000","site_name":"nulsite"}}'),
    'a NUL inside original_site_url',
  )
  isInvalid(
    t,
    await raw('{"site_data":{"original_site_url":"https://x.example/","site_vertical":"x","\\u0001":"y"}}'),
    'a control character in a key',
  )
  const named = await raw('{"site_data":{"original_site_url":"https://x.example/","site_vertical":"bad\\u001bvalue"}}')
  isInvalid(t, named, 'an escape character')
  t.match(named.body.message, /site_data\.site_vertical/, 'the message names the field')
  isInvalid(t, await create({ site_vertical: 'two\nlines' }), 'LF outside business info')
  isInvalid(t, await create({ site_vertical: 'tab\there' }), 'TAB outside business info')
  isInvalid(t, await create({ site_business_info: { business_name: 'Caf\u0000e' } }), 'NUL inside business info')

  const ok = await create({
    site_name: 'freetext',
    site_vertical: '\ud83d\ude00 emoji is a valid pair',
    site_business_info: { business_name: 'Trattoria\tRoma', address: { street: '1 Main St\r\nBuilding B' } },
  })
  t.equal(ok.status, 200, 'TAB, CR and LF in business info, and a surrogate pair anywhere, are accepted')
  const site = await f.alice.get('/sites/freetext')
  t.equal(site.body.site_business_info.address.street, '1 Main St\r\nBuilding B', 'and stored as given')

  isInvalid(t, await f.alice.get('/sites/created?from=2020-01-01%00'), 'a NUL in a query value')
  isInvalid(t, await f.alice.get('/sites/created?%01=x'), 'a control character in a query key')
  isInvalid(t, await f.alice.get('/sites/free%00text'), 'a NUL in a path parameter')
  isInvalid(t, await f.alice.get('/sites/%ED%A0%80'), 'an encoded surrogate in the path')
  await rejectsWith(t, f.alice.api.getSite('free\u0000text'), 'InvalidInput', 'in-process: a path parameter')
  await rejectsWith(t, f.alice.api.sitesCreated({ from: '\ud800' }), 'InvalidInput', 'in-process: a query value')
  await rejectsWith(
    t,
    f.alice.api.createAccount({ account_name: 'ok', first_name: 'A\u0007' }),
    'InvalidInput',
    'in-process: a body value',
  )
  t.same(f.errors, [], 'nothing reached onError')
})

t.test('names are unique regardless of letter case; reserved names in any case', async (t) => {
  const f = await setup(t)
  t.equal(
    (await f.alice.post('/sites/create', { site_data: { site_name: 'alicesite', original_site_url: URL_OK } })).status,
    200,
  )
  for (const [client, name] of [
    [f.alice, 'ALICESITE'],
    [f.bob, 'AliceSite'],
  ] as const) {
    isError(
      t,
      await client.post('/sites/create', { site_data: { site_name: name, original_site_url: URL_OK } }),
      400,
      'ResourceAlreadyExist',
      `${client.user} creating ${name}`,
    )
  }
  isMissing(t, await f.alice.get('/sites/ALICESITE'), 'lookups are exact')
  for (const name of ['created', 'Created', 'MODIFIED', 'mOdIfIeD']) {
    isInvalid(
      t,
      await f.alice.post('/sites/create', { site_data: { site_name: name, original_site_url: URL_OK } }),
      `reserved ${name}`,
    )
  }
  t.equal((await f.alice.post('/accounts/create', { account_name: 'alice.sub' })).status, 204)
  isError(
    t,
    await f.bob.post('/accounts/create', { account_name: 'ALICE.SUB' }),
    400,
    'ResourceAlreadyExist',
    'ALICE.SUB beside alice.sub',
  )
  isMissing(t, await f.alice.get('/accounts/Alice.Sub'), 'account lookups are exact')

  // A generated name avoids a name taken in another case.
  t.equal(
    (await f.bob.post('/sites/create', { site_data: { site_name: 'EXAMPLECOM', original_site_url: URL_OK } })).status,
    200,
  )
  const generated = await f.alice.post('/sites/create', {
    site_data: { original_site_url: 'https://www.Example.com/shop' },
  })
  t.equal(generated.status, 200)
  t.not(
    generated.body.site_name.toLowerCase(),
    'examplecom',
    `generated ${generated.body.site_name} differs from EXAMPLECOM in more than case`,
  )
  t.same(f.errors, [], 'nothing reached onError')
})

async function race(t: Test, engines: Engine[]): Promise<void> {
  for (let round = 0; round < 4; round++) {
    const names = [`abcd${round}`, `ABCD${round}`, `AbCd${round}`]
    const sites = await Promise.allSettled(
      names.flatMap((site_name) =>
        engines.flatMap((engine) =>
          ['alice', 'bob'].map((user) =>
            engine.as(user).createSite({ site_data: { site_name, original_site_url: URL_OK } }),
          ),
        ),
      ),
    )
    t.equal(sites.filter((s) => s.status === 'fulfilled').length, 1, `round ${round}: one site created`)
    t.ok(
      sites.every(
        (s) => s.status === 'fulfilled' || (s.reason as { error_code?: string }).error_code === 'ResourceAlreadyExist',
      ),
      'the others are ResourceAlreadyExist',
    )
    const accounts = await Promise.allSettled(
      names.flatMap((account_name) =>
        engines.flatMap((engine) =>
          ['alice', 'bob'].map((user) => engine.as(user).createAccount({ account_name: `u.${account_name}` })),
        ),
      ),
    )
    t.equal(accounts.filter((s) => s.status === 'fulfilled').length, 1, `round ${round}: one account created`)
  }
}

t.test('parallel creates of abcd, ABCD and AbCd on MemoryStore: one winner', async (t) => {
  const engine = createEngine()
  t.teardown(() => engine.close())
  for (const user of ['alice', 'bob']) await engine.addMasterAccount({ user, password: 'pw', partner: true })
  await race(t, [engine])
})

t.test('parallel creates of abcd, ABCD and AbCd on two RedisStore instances: one winner', async (t) => {
  const admin = await redisOrSkip(t, 'the case-insensitive race on RedisStore')
  if (!admin) return
  const prefix = randomPrefix('names')
  t.teardown(() => deleteUnder(admin, prefix))
  const engines = [0, 1].map(() => createEngine({ store: new RedisStore({ url: process.env.REDIS_URL!, prefix }) }))
  t.teardown(() => Promise.all(engines.map((e) => e.close())).then(() => undefined))
  for (const user of ['alice', 'bob']) await engines[0]!.addMasterAccount({ user, password: 'pw', partner: true })
  await race(t, engines)
})
