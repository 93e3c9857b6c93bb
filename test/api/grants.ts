/**
 * Access grants over HTTP (docs/api.md, Accounts): grant and
 * revoke are idempotent, both sides must exist and be the caller's, deletes
 * cascade, and the account's dashboard is `engine.as(user).accountSites(name)`.
 */
import t from 'tap'
import { type Fixture, isEmpty, isInvalid, isMissing, rejectsWith, setup, siteBody } from '../helpers/api.js'

async function seed(f: Fixture): Promise<void> {
  for (const name of ['siteone', 'sitetwo', 'sitethree']) await f.alice.api.createSite(siteBody(name))
  for (const name of ['ann', 'ben@example.com']) await f.alice.api.createAccount({ account_name: name })
}

const dashboard = (f: Fixture, account: string) => f.alice.api.accountSites(account)

t.test('grant gives access at once; one account holds several sites, one site several accounts', async (t) => {
  const f = await setup(t)
  await seed(f)
  t.same(await dashboard(f, 'ann'), [], 'nothing granted yet')
  isEmpty(t, await f.alice.post('/accounts/grant-access/ann/sites/sitetwo'))
  isEmpty(t, await f.alice.post('/accounts/grant-access/ann/sites/siteone'))
  isEmpty(t, await f.alice.post('/accounts/grant-access/ben@example.com/sites/siteone'))
  t.same(await dashboard(f, 'ann'), ['siteone', 'sitetwo'], 'sorted')
  t.same(await dashboard(f, 'ben@example.com'), ['siteone'])
})

t.test('granting twice and revoking a missing grant both succeed', async (t) => {
  const f = await setup(t)
  await seed(f)
  isEmpty(t, await f.alice.post('/accounts/grant-access/ann/sites/siteone'), 'first grant')
  isEmpty(t, await f.alice.post('/accounts/grant-access/ann/sites/siteone'), 'second grant')
  t.same(await dashboard(f, 'ann'), ['siteone'], 'still one grant')
  isEmpty(t, await f.alice.post('/accounts/revoke-access/ann/sites/siteone'), 'revoke')
  t.same(await dashboard(f, 'ann'), [])
  isEmpty(t, await f.alice.post('/accounts/revoke-access/ann/sites/siteone'), 'revoke again')
  isEmpty(t, await f.alice.post('/accounts/revoke-access/ann/sites/sitethree'), 'revoke never granted')
})

t.test('grant and revoke need an existing account and site: ResourceNotExist naming the missing one', async (t) => {
  const f = await setup(t)
  await seed(f)
  for (const op of ['grant-access', 'revoke-access']) {
    t.match(isMissing(t, await f.alice.post(`/accounts/${op}/nobody/sites/siteone`), `${op} no account`), /nobody/)
    t.match(isMissing(t, await f.alice.post(`/accounts/${op}/ann/sites/nosuchsite`), `${op} no site`), /nosuchsite/)
    isMissing(t, await f.alice.post(`/accounts/${op}/nobody/sites/nosuchsite`), `${op} neither`)
  }
  t.same(await dashboard(f, 'ann'), [])
})

t.test('grant and revoke with malformed names: InvalidInput', async (t) => {
  const f = await setup(t)
  await seed(f)
  for (const op of ['grant-access', 'revoke-access']) {
    isInvalid(t, await f.alice.post(`/accounts/${op}/ann/sites/abc`), `${op} site_name too short`)
    isInvalid(t, await f.alice.post(`/accounts/${op}/ann/sites/${'s'.repeat(46)}`), `${op} site_name too long`)
    isInvalid(t, await f.alice.post(`/accounts/${op}/ann/sites/bad%20name`), `${op} site_name with a space`)
    isInvalid(t, await f.alice.post(`/accounts/${op}/${'a'.repeat(46)}/sites/siteone`), `${op} account_name too long`)
    isInvalid(t, await f.alice.post(`/accounts/${op}/bad%20name/sites/siteone`), `${op} account_name with a space`)
  }
})

t.test('grant and revoke take no body and no query', async (t) => {
  const f = await setup(t)
  await seed(f)
  isInvalid(t, await f.alice.post('/accounts/grant-access/ann/sites/siteone', { role: 'admin' }), 'grant with a body')
  isInvalid(t, await f.alice.post('/accounts/grant-access/ann/sites/siteone?role=admin'), 'grant with a query')
  t.same(await dashboard(f, 'ann'), [], 'not granted')
  isEmpty(t, await f.alice.post('/accounts/grant-access/ann/sites/siteone', {}), 'an empty JSON object is no body')
})

t.test('deleting a site removes its grants; a new site with the name is not granted', async (t) => {
  const f = await setup(t)
  await seed(f)
  await f.alice.post('/accounts/grant-access/ann/sites/siteone')
  await f.alice.post('/accounts/grant-access/ann/sites/sitetwo')
  await f.alice.post('/accounts/grant-access/ben@example.com/sites/siteone')
  isEmpty(t, await f.alice.del('/sites/siteone'))
  t.same(await dashboard(f, 'ann'), ['sitetwo'])
  t.same(await dashboard(f, 'ben@example.com'), [])
  await f.alice.api.createSite(siteBody('siteone'))
  t.same(await dashboard(f, 'ann'), ['sitetwo'], 'no stale grant on the new siteone')
})

t.test('deleting an account removes its grants; a new account with the name starts empty', async (t) => {
  const f = await setup(t)
  await seed(f)
  await f.alice.post('/accounts/grant-access/ann/sites/siteone')
  await f.alice.post('/accounts/grant-access/ben@example.com/sites/siteone')
  isEmpty(t, await f.alice.del('/account/ann'))
  await rejectsWith(t, dashboard(f, 'ann'), 'ResourceNotExist', 'the dashboard of a deleted account')
  t.same(await dashboard(f, 'ben@example.com'), ['siteone'], 'other accounts keep theirs')
  isEmpty(t, await f.alice.post('/accounts/create', { account_name: 'ann' }))
  t.same(await dashboard(f, 'ann'), [], 'no stale grant on the new ann')
})

t.test('recreate, update, publish and unpublish keep grants', async (t) => {
  const f = await setup(t)
  await seed(f)
  await f.alice.post('/accounts/grant-access/ann/sites/siteone')
  await f.alice.post('/sites/update/siteone', { external_uid: 'x1' })
  await f.alice.post('/sites/publish/siteone')
  await f.alice.post('/sites/unpublish/siteone')
  await f.alice.post('/sites/recreate/siteone', { republish: true })
  t.same(await dashboard(f, 'ann'), ['siteone'])
})

t.test('accountSites of a missing or foreign account: ResourceNotExist', async (t) => {
  const f = await setup(t)
  await seed(f)
  await f.bob.api.createAccount({ account_name: 'bobs' })
  await rejectsWith(t, dashboard(f, 'nobody'), 'ResourceNotExist', 'unknown account')
  await rejectsWith(t, dashboard(f, 'bobs'), 'ResourceNotExist', 'another master’s account')
  t.same(await f.bob.api.accountSites('bobs'), [])
})

t.test('__proto__ and constructor are ordinary account and site names in grants', async (t) => {
  const f = await setup(t)
  await f.alice.api.createSite(siteBody('__proto__'))
  await f.alice.api.createSite(siteBody('constructor'))
  await f.alice.api.createAccount({ account_name: 'constructor' })
  await f.alice.api.createAccount({ account_name: '__proto__' })
  isEmpty(t, await f.alice.post('/accounts/grant-access/constructor/sites/__proto__'))
  isEmpty(t, await f.alice.post('/accounts/grant-access/__proto__/sites/constructor'))
  t.same(await dashboard(f, 'constructor'), ['__proto__'])
  t.same(await dashboard(f, '__proto__'), ['constructor'])
  isMissing(t, await f.alice.post('/accounts/grant-access/toString/sites/__proto__'), 'toString account')
  isMissing(t, await f.alice.post('/accounts/grant-access/constructor/sites/hasOwnProperty'), 'hasOwnProperty site')
  isEmpty(t, await f.alice.del('/sites/__proto__'))
  t.same(await dashboard(f, 'constructor'), [])
})
