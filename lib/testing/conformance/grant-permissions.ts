/**
 * Conformance group for a grant's permissions (today's Duda API): a grant
 * with a list holds exactly it, a grant without one holds every permission
 * (null), the last grant on either path decides, and revokes and deletes of
 * either side take the permissions with the grant.
 */
import { type StoreFactory, type Tap, TRICKY_NAMES, accountRecord, open, siteRecord } from './fixtures.js'

/** The permissions conformance group. */
export function grantPermissionGroups(t: Tap, factory: StoreFactory): void {
  t.test('getGrant: the permissions of the last grant, under the grant checks', async (t) => {
    const store = await open(t, factory)
    await store.createAccount(accountRecord('acc', 'alice'))
    await store.createAccount(accountRecord('bacc', 'bob'))
    for (const s of ['s1', 's2']) await store.createSite(siteRecord(s, 'alice'))
    await store.createSite(siteRecord('bsite', 'bob'))

    t.equal(await store.getGrant('alice', 'acc', 's1'), 'no-grant', 'not granted yet')
    t.equal(await store.getGrant('alice', 'missing', 's1'), 'no-account')
    t.equal(await store.getGrant('alice', 'bacc', 's1'), 'no-account', "another owner's account")
    t.equal(await store.getGrant('alice', 'acc', 'missing'), 'no-site')
    t.equal(await store.getGrant('alice', 'acc', 'bsite'), 'no-site', "another owner's site")

    t.equal(await store.grantAccess('alice', 'acc', 's1', ['STATS_TAB', 'EDIT']), 'ok')
    t.strictSame(await store.getGrant('alice', 'acc', 's1'), { permissions: ['STATS_TAB', 'EDIT'] }, 'as given')
    t.strictSame(await store.listGrants('alice', 'acc'), ['s1'], 'a grant like any other')
    t.equal(await store.grantAccess('alice', 'acc', 's1', ['PUBLISH']), 'ok')
    t.strictSame(await store.getGrant('alice', 'acc', 's1'), { permissions: ['PUBLISH'] }, 'a new grant replaces them')
    t.equal(await store.grantAccess('alice', 'acc', 's1'), 'ok')
    t.strictSame(await store.getGrant('alice', 'acc', 's1'), { permissions: null }, 'a grant without a list: every one')
    t.equal(await store.grantAccess('alice', 'acc', 's1', ['SEO']), 'ok')
    t.strictSame(await store.getGrant('alice', 'acc', 's1'), { permissions: ['SEO'] }, 'and back to a list')
    t.equal(await store.grantAccess('alice', 'acc', 's2'), 'ok')
    t.strictSame(await store.getGrant('alice', 'acc', 's2'), { permissions: null }, 'the other grant is its own')

    t.equal(await store.grantAccess('alice', 'acc', 'bsite', ['SEO']), 'no-site', 'refused grants keep the checks')
    t.equal(await store.getGrant('alice', 'acc', 'bsite'), 'no-site')

    t.equal(await store.revokeAccess('alice', 'acc', 's1'), 'ok')
    t.equal(await store.getGrant('alice', 'acc', 's1'), 'no-grant', 'revoked')
    t.equal(await store.grantAccess('alice', 'acc', 's1'), 'ok')
    t.strictSame(await store.getGrant('alice', 'acc', 's1'), { permissions: null }, 'a revoked list does not come back')

    const answer = await store.getGrant('alice', 'acc', 's2')
    await store.grantAccess('alice', 'acc', 's2', ['EDIT'])
    const copy = await store.getGrant('alice', 'acc', 's2')
    if (typeof copy === 'object' && copy.permissions) copy.permissions.push('BLOG')
    t.strictSame(await store.getGrant('alice', 'acc', 's2'), { permissions: ['EDIT'] }, 'the answer is a copy')
    t.strictSame(answer, { permissions: null })
  })

  t.test('permissions die with the site or the account', async (t) => {
    const store = await open(t, factory)
    await store.createAccount(accountRecord('a1', 'alice'))
    await store.createSite(siteRecord('site', 'alice'))
    const recreations = {
      site: async () => {
        await store.deleteSite('alice', 'site')
        await store.createSite(siteRecord('site', 'alice'))
      },
      account: async () => {
        await store.deleteAccount('alice', 'a1')
        await store.createAccount(accountRecord('a1', 'alice'))
      },
    }
    for (const [what, recreate] of Object.entries(recreations)) {
      await store.grantAccess('alice', 'a1', 'site', ['EDIT'])
      await recreate()
      t.equal(await store.getGrant('alice', 'a1', 'site'), 'no-grant', `a recreated ${what} is not granted`)
      await store.grantAccess('alice', 'a1', 'site')
      t.strictSame(await store.getGrant('alice', 'a1', 'site'), { permissions: null }, 'nothing of the old list')
    }
  })

  t.test('permissions: tricky names, and export/import keeps them', async (t) => {
    const store = await open(t, factory)
    for (const name of TRICKY_NAMES) {
      await store.createAccount(accountRecord(name, 'owner'))
      await store.createSite(siteRecord(name, 'owner'))
    }
    for (const [i, name] of TRICKY_NAMES.entries()) {
      t.equal(await store.grantAccess('owner', name, name, i % 2 ? ['EDIT'] : undefined), 'ok')
    }
    const dump = await store.exportState()
    for (const [i, name] of TRICKY_NAMES.entries()) {
      const grant = dump.grants.find((g) => g.account_name === name && g.site_name === name)
      t.strictSame(grant?.permissions, i % 2 ? ['EDIT'] : undefined, `the dump says the permissions of ${name}`)
    }
    await store.clearState()
    await store.importState(dump)
    for (const [i, name] of TRICKY_NAMES.entries()) {
      t.strictSame(await store.getGrant('owner', name, name), { permissions: i % 2 ? ['EDIT'] : null }, name)
    }
    t.strictSame(await store.exportState(), dump, 'the same dump again')
  })
}
