/**
 * Rules that must hold under concurrency, exercised with parallel HTTP
 * requests (each is one atomic store operation): unique site and account names,
 * the first-publish charge, generated names, and grants racing deletes.
 */
import t from 'tap'
import { createSite, setup, siteBody, type Res } from '../helpers/api.js'

const N = 50

/** A distinct ASCII-letters tag per request index. */
const tag = (i: number): string => `Try${String.fromCharCode(65 + Math.floor(i / 26), 97 + (i % 26))}`

/** Counts responses by `status error_code`. */
function tally(responses: Res[]): Record<string, number> {
  const counts: Record<string, number> = Object.create(null)
  for (const res of responses) {
    const key = `${res.status}${res.body?.error_code ? ` ${res.body.error_code}` : ''}`
    counts[key] = (counts[key] ?? 0) + 1
  }
  return { ...counts }
}

t.test('50 parallel creates of one site_name: exactly one 200, 49 ResourceAlreadyExist', async (t) => {
  const f = await setup(t)
  const responses = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      f.alice.post('/sites/create', siteBody('contested', { external_uid: `try-${i}` })),
    ),
  )
  t.same(tally(responses), { '200': 1, '400 ResourceAlreadyExist': N - 1 })
  const winner = responses.findIndex((res) => res.status === 200)
  t.equal((await f.alice.get('/sites/contested')).body.external_uid, `try-${winner}`, 'the stored site is the winner’s')
  t.same((await f.alice.get('/sites/created')).body, [{ site_name: 'contested' }], 'one site in the listing')
})

t.test('parallel creates of one site_name by two masters: one owner', async (t) => {
  const f = await setup(t)
  const responses = await Promise.all(
    Array.from({ length: N }, (_, i) => (i % 2 ? f.alice : f.bob).post('/sites/create', siteBody('twoowners'))),
  )
  t.same(tally(responses), { '200': 1, '400 ResourceAlreadyExist': N - 1 })
  const seen = [(await f.alice.get('/sites/twoowners')).status, (await f.bob.get('/sites/twoowners')).status].sort()
  t.same(seen, [200, 400], 'exactly one master sees it')
})

t.test('50 parallel creates of one account name: exactly one 204, 49 ResourceAlreadyExist', async (t) => {
  const f = await setup(t)
  const responses = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      (i % 2 ? f.alice : f.bob).post('/accounts/create', { account_name: 'same@example.com', first_name: tag(i) }),
    ),
  )
  t.same(tally(responses), { '204': 1, '400 ResourceAlreadyExist': N - 1 })
  const winner = responses.findIndex((res) => res.status === 204)
  const owner = winner % 2 ? f.alice : f.bob
  t.equal((await owner.get('/accounts/same@example.com')).body.first_name, tag(winner))
})

t.test('50 parallel first publishes: all succeed, exactly one charge and one subscription', async (t) => {
  const f = await setup(t)
  await createSite(t, f.alice, 'hotsite')
  const responses = await Promise.all(Array.from({ length: N }, () => f.alice.post('/sites/publish/hotsite')))
  t.same(tally(responses), { '204': N })
  const billing = await f.engine.billing('alice')
  t.equal(billing.charges.length, 1, 'one charge')
  t.same(billing.subscriptions, [{ site_name: 'hotsite', status: 'active' }])
})

t.test('parallel first publishes mixing ?test=true: at most one charge', async (t) => {
  const f = await setup(t)
  await createSite(t, f.alice, 'mixsite')
  const responses = await Promise.all(
    Array.from({ length: N }, (_, i) => f.alice.post(`/sites/publish/mixsite${i % 2 ? '?test=true' : ''}`)),
  )
  t.same(tally(responses), { '204': N })
  t.ok((await f.engine.billing('alice')).charges.length <= 1, 'never more than one charge')
})

t.test('parallel creates with publish_now of distinct sites: one charge each', async (t) => {
  const f = await setup(t)
  const responses = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      f.alice.post('/sites/create', siteBody(`fleet-${i}`, {}, { publish_now: true })),
    ),
  )
  t.same(tally(responses), { '200': 20 })
  const charged = (await f.engine.billing('alice')).charges.map((c) => c.site_name).sort()
  t.same(charged, Array.from({ length: 20 }, (_, i) => `fleet-${i}`).sort())
})

t.test('parallel creates with generated names from one URL: all distinct, all valid', async (t) => {
  const f = await setup(t)
  const responses = await Promise.all(
    Array.from({ length: 30 }, () =>
      f.alice.post('/sites/create', siteBody(undefined, { original_site_url: 'https://www.popular.example/' })),
    ),
  )
  t.same(tally(responses), { '200': 30 })
  const names = responses.map((res) => res.body.site_name as string)
  t.equal(new Set(names).size, 30, 'all distinct')
  for (const name of names) t.match(name, /^[A-Za-z0-9_-]{4,45}$/)
  t.ok(names.includes('popularexample'), 'one got the plain name')
  const many = await f.alice.post(
    '/sites/get-many',
    names.map((site_name) => ({ site_name })),
  )
  t.equal(many.status, 200, 'every generated site exists')
})

t.test('50 parallel deletes of one site: one 204, the rest ResourceNotExist, one cancellation', async (t) => {
  const f = await setup(t)
  await createSite(t, f.alice, 'onlyonce', {}, { publish_now: true })
  const responses = await Promise.all(Array.from({ length: N }, () => f.alice.del('/sites/onlyonce')))
  t.same(tally(responses), { '204': 1, '400 ResourceNotExist': N - 1 })
  t.same((await f.engine.billing('alice')).subscriptions, [{ site_name: 'onlyonce', status: 'cancelled' }])
})

t.test('grant racing a site delete never leaves a grant on a deleted or reborn site', async (t) => {
  const f = await setup(t)
  await f.alice.api.createAccount({ account_name: 'racer' })
  for (let round = 0; round < 10; round++) {
    await f.alice.api.createSite(siteBody('racesite'))
    const grantIt = () => f.alice.post('/accounts/grant-access/racer/sites/racesite').then((res) => res)
    const deleteIt = () => f.alice.del('/sites/racesite').then((res) => res)
    // Alternate which request is sent first.
    const [grant, del] =
      round % 2
        ? await Promise.all([grantIt(), deleteIt()])
        : ((await Promise.all([deleteIt(), grantIt()])).reverse() as [Res, Res])
    t.equal(del.status, 204, `round ${round}: delete succeeds`)
    t.ok(
      grant.status === 204 || grant.body.error_code === 'ResourceNotExist',
      `round ${round}: grant succeeds or finds no site`,
    )
    t.same(await f.alice.api.accountSites('racer'), [], `round ${round}: no grant on the deleted site`)
    await f.alice.api.createSite(siteBody('racesite'))
    t.same(await f.alice.api.accountSites('racer'), [], `round ${round}: none on the reborn site`)
    await f.alice.api.deleteSite('racesite')
  }
})

t.test('grant racing an account delete never leaves a grant on a reborn account', async (t) => {
  const f = await setup(t)
  await f.alice.api.createSite(siteBody('steady'))
  for (let round = 0; round < 10; round++) {
    await f.alice.api.createAccount({ account_name: 'fleeting' })
    const [grant, del] = await Promise.all([
      f.alice.post('/accounts/grant-access/fleeting/sites/steady'),
      f.alice.del('/account/fleeting'),
    ])
    t.equal(del.status, 204, `round ${round}: delete succeeds`)
    t.ok(
      grant.status === 204 || grant.body.error_code === 'ResourceNotExist',
      `round ${round}: grant succeeds or finds no account`,
    )
    await f.alice.api.createAccount({ account_name: 'fleeting' })
    t.same(await f.alice.api.accountSites('fleeting'), [], `round ${round}: the reborn account has no grant`)
    await f.alice.api.deleteAccount('fleeting')
  }
})

t.test('parallel grants and revokes of one pair settle to a consistent state', async (t) => {
  const f = await setup(t)
  await f.alice.api.createSite(siteBody('pairsite'))
  await f.alice.api.createAccount({ account_name: 'pairacct' })
  const grants = await Promise.all(
    Array.from({ length: 20 }, () => f.alice.post('/accounts/grant-access/pairacct/sites/pairsite')),
  )
  t.same(tally(grants), { '204': 20 })
  t.same(await f.alice.api.accountSites('pairacct'), ['pairsite'], 'one grant after 20')
  const revokes = await Promise.all(
    Array.from({ length: 20 }, () => f.alice.post('/accounts/revoke-access/pairacct/sites/pairsite')),
  )
  t.same(tally(revokes), { '204': 20 })
  t.same(await f.alice.api.accountSites('pairacct'), [])
})
