/**
 * Conformance groups for master accounts, sub-user accounts and grants,
 * including grants racing the deletes they must not survive.
 */
import { TRICKY_NAMES, accountRecord, masterRecord, open, siteRecord } from './fixtures.js'
import type { StoreFactory, Tap } from './fixtures.js'

/** Registers the master, account and grant groups on `t`. */
export function accountGroups(t: Tap, factory: StoreFactory): void {
  t.test('putMaster / getMaster', async (t) => {
    const store = await open(t, factory)
    for (const name of TRICKY_NAMES) t.equal(await store.getMaster(name), undefined, `getMaster(${name}) when empty`)
    const alice = masterRecord('alice', true)
    await store.putMaster(alice)
    t.strictSame(await store.getMaster('alice'), alice)
    const replaced = { ...masterRecord('alice', false), salt: '11ee' }
    await store.putMaster(replaced)
    t.strictSame(await store.getMaster('alice'), replaced, 'put replaces')
    const got = await store.getMaster('alice')
    if (got) got.partner = true
    replaced.partner = true
    t.equal((await store.getMaster('alice'))?.partner, false, 'neither the input nor the answer is live')
    for (const name of TRICKY_NAMES) {
      await store.putMaster(masterRecord(name, true))
      t.strictSame(await store.getMaster(name), masterRecord(name, true), `a master named ${name}`)
    }
  })

  t.test('createAccount / getAccount', async (t) => {
    const store = await open(t, factory)
    const acc = accountRecord('ada@example.com', 'alice', { lang: 'ja' })
    t.equal(await store.createAccount(acc), true)
    t.strictSame(await store.getAccount('ada@example.com'), acc)
    t.equal(await store.createAccount(accountRecord('ada@example.com', 'alice')), false, 'taken')
    t.equal(await store.createAccount(accountRecord('ada@example.com', 'bob')), false, 'names are global across owners')
    t.strictSame(await store.getAccount('ada@example.com'), acc, 'a refused create changes nothing')
    t.equal(await store.getAccount('missing'), undefined)

    const bare = { account_name: 'bare', owner: 'alice', created_at: 1, email: undefined }
    await store.createAccount(bare)
    t.strictSame(
      await store.getAccount('bare'),
      { account_name: 'bare', owner: 'alice', created_at: 1 },
      'optional fields stay absent',
    )

    const got = await store.getAccount('ada@example.com')
    if (got) got.first_name = 'Mutated'
    acc.last_name = 'Mutated'
    t.equal((await store.getAccount('ada@example.com'))?.first_name, 'Ada', 'the answer is a copy')
    t.equal((await store.getAccount('ada@example.com'))?.last_name, 'Lovelace', 'so is what was stored')

    for (const name of TRICKY_NAMES) {
      t.equal(await store.getAccount(name), undefined, `getAccount(${name}) before create`)
      t.equal(await store.createAccount(accountRecord(name, name)), true)
      t.equal((await store.getAccount(name))?.owner, name)
    }
  })

  t.test('createAccount: 50 parallel creates of one name, exactly one wins', async (t) => {
    const store = await open(t, factory)
    const owners = Array.from({ length: 50 }, (_, i) => `owner-${i}`)
    const results = await Promise.all(owners.map((o) => store.createAccount(accountRecord('contested', o))))
    t.equal(results.filter(Boolean).length, 1, 'exactly one true')
    t.equal((await store.getAccount('contested'))?.owner, owners[results.indexOf(true)])
  })

  t.test('updateAccount', async (t) => {
    const store = await open(t, factory)
    const acc = accountRecord('acc', 'alice')
    await store.createAccount(acc)
    const foreign = await store.updateAccount('bob', 'acc', { first_name: 'Eve' })
    t.equal(foreign, false, "another owner's account is not found")
    t.equal(await store.updateAccount('alice', 'missing', { first_name: 'Eve' }), false, 'missing account')
    t.strictSame(await store.getAccount('acc'), acc, 'refused updates change nothing')
    t.equal(await store.getAccount('missing'), undefined)

    t.equal(
      await store.updateAccount('alice', 'acc', { first_name: 'Grace', email: null, lang: 'es', last_name: undefined }),
      true,
    )
    const expected = { ...acc, first_name: 'Grace', lang: 'es' as const }
    delete expected.email
    t.strictSame(await store.getAccount('acc'), expected, 'set, removed by null, left alone when absent or undefined')
  })

  t.test('deleteAccount', async (t) => {
    const store = await open(t, factory)
    await store.createAccount(accountRecord('acc', 'alice'))
    t.equal(await store.deleteAccount('bob', 'acc'), false, "another owner's account is not found")
    t.ok(await store.getAccount('acc'), 'and it is still there')
    t.equal(await store.deleteAccount('alice', 'missing'), false)
    t.equal(await store.deleteAccount('alice', 'acc'), true)
    t.equal(await store.getAccount('acc'), undefined)
    t.equal(await store.deleteAccount('alice', 'acc'), false, 'a second delete finds nothing')
    t.equal(await store.createAccount(accountRecord('acc', 'bob')), true, 'the name is free again')
  })

  t.test('grantAccess / revokeAccess / listGrants', async (t) => {
    const store = await open(t, factory)
    await store.createAccount(accountRecord('acc', 'alice'))
    await store.createAccount(accountRecord('acc2', 'alice'))
    await store.createAccount(accountRecord('bacc', 'bob'))
    for (const s of ['s1', 's2', 's3']) await store.createSite(siteRecord(s, 'alice'))
    await store.createSite(siteRecord('bsite', 'bob'))

    t.strictSame(await store.listGrants('alice', 'acc'), [], 'no grants yet')
    t.equal(await store.grantAccess('alice', 'acc', 's3'), 'ok')
    t.equal(await store.grantAccess('alice', 'acc', 's1'), 'ok')
    t.equal(await store.grantAccess('alice', 'acc', 's1'), 'ok', 'granting twice is ok')
    t.strictSame(await store.listGrants('alice', 'acc'), ['s1', 's3'], 'sorted, each once')

    t.equal(await store.grantAccess('alice', 'missing', 's1'), 'no-account')
    t.equal(await store.grantAccess('alice', 'bacc', 's1'), 'no-account', "another owner's account")
    t.equal(await store.grantAccess('bob', 'acc', 'bsite'), 'no-account', 'an account of another owner, for that owner')
    t.equal(await store.grantAccess('alice', 'acc', 'missing'), 'no-site')
    t.equal(await store.grantAccess('alice', 'acc', 'bsite'), 'no-site', "another owner's site")
    t.strictSame(await store.listGrants('alice', 'acc'), ['s1', 's3'], 'refused grants change nothing')
    t.strictSame(await store.listGrants('bob', 'bacc'), [])

    t.equal(await store.listGrants('bob', 'acc'), undefined, "another owner's account is not listed")
    t.equal(await store.listGrants('alice', 'missing'), undefined)

    t.equal(await store.revokeAccess('alice', 'acc', 's3'), 'ok')
    t.equal(await store.revokeAccess('alice', 'acc', 's3'), 'ok', 'revoking a missing grant is ok')
    t.equal(await store.revokeAccess('alice', 'acc', 's2'), 'ok', 'revoking a never-made grant is ok')
    t.equal(await store.revokeAccess('alice', 'missing', 's1'), 'no-account')
    t.equal(await store.revokeAccess('bob', 'acc', 's1'), 'no-account')
    t.equal(await store.revokeAccess('alice', 'acc', 'missing'), 'no-site')
    t.equal(await store.revokeAccess('alice', 'acc', 'bsite'), 'no-site')
    t.strictSame(await store.listGrants('alice', 'acc'), ['s1'], 'refused revokes change nothing')

    const listed = await store.listGrants('alice', 'acc')
    listed?.push('s9')
    t.strictSame(await store.listGrants('alice', 'acc'), ['s1'], 'the answer is a copy')
  })

  t.test('grants: deletes cascade both ways', async (t) => {
    const store = await open(t, factory)
    await store.createAccount(accountRecord('a1', 'alice'))
    await store.createAccount(accountRecord('a2', 'alice'))
    await store.createSite(siteRecord('shared', 'alice'))
    await store.createSite(siteRecord('other', 'alice'))
    for (const a of ['a1', 'a2']) for (const s of ['shared', 'other']) await store.grantAccess('alice', a, s)

    await store.deleteSite('alice', 'shared')
    t.strictSame(await store.listGrants('alice', 'a1'), ['other'], 'a deleted site leaves every account')
    t.strictSame(await store.listGrants('alice', 'a2'), ['other'])

    await store.deleteAccount('alice', 'a1')
    await store.createAccount(accountRecord('a1', 'alice'))
    t.strictSame(await store.listGrants('alice', 'a1'), [], 'a recreated account starts without grants')
    t.strictSame(await store.listGrants('alice', 'a2'), ['other'], "other accounts' grants stay")

    await store.createSite(siteRecord('shared', 'alice'))
    t.strictSame(await store.listGrants('alice', 'a2'), ['other'], 'a recreated site starts without grants')
  })

  t.test('grants: tricky names', async (t) => {
    const store = await open(t, factory)
    for (const name of TRICKY_NAMES) {
      t.equal(await store.listGrants(name, name), undefined, `listGrants(${name}) when empty`)
      t.equal(await store.grantAccess(name, name, name), 'no-account')
      await store.createAccount(accountRecord(name, 'owner'))
      await store.createSite(siteRecord(name, 'owner'))
    }
    for (const name of TRICKY_NAMES) {
      for (const site of TRICKY_NAMES) t.equal(await store.grantAccess('owner', name, site), 'ok')
    }
    t.strictSame(await store.listGrants('owner', '__proto__'), [...TRICKY_NAMES].sort())
    await store.deleteSite('owner', 'constructor')
    t.strictSame(await store.listGrants('owner', 'toString'), TRICKY_NAMES.filter((n) => n !== 'constructor').sort())
  })

  t.test('grants racing deletes leave no dangling grant', async (t) => {
    const store = await open(t, factory)
    /** Ten grants before and ten after `remove`, all at once; each answers ok or, once removed, `gone`. */
    const race = async (account: string, site: string, remove: () => Promise<boolean>, gone: string, round: number) => {
      const grants = () => Array.from({ length: 10 }, () => store.grantAccess('alice', account, site))
      const [before, removed, after] = await Promise.all([Promise.all(grants()), remove(), Promise.all(grants())])
      t.equal(removed, true)
      t.ok(
        [...before, ...after].every((o) => o === 'ok' || o === gone),
        `round ${round}: ok or ${gone}`,
      )
    }
    await store.createAccount(accountRecord('racer', 'alice'))
    for (let round = 0; round < 10; round++) {
      const site = `race-${round}`
      await store.createSite(siteRecord(site, 'alice'))
      await race('racer', site, () => store.deleteSite('alice', site), 'no-site', round)
      await store.createSite(siteRecord(site, 'alice'))
      t.notOk(
        (await store.listGrants('alice', 'racer'))?.includes(site),
        `round ${round}: the site's grant died with it`,
      )
    }
    await store.createSite(siteRecord('stay', 'alice'))
    for (let round = 0; round < 10; round++) {
      const account = `acc-race-${round}`
      await store.createAccount(accountRecord(account, 'alice'))
      await race(account, 'stay', () => store.deleteAccount('alice', account), 'no-account', round)
      await store.createAccount(accountRecord(account, 'alice'))
      t.strictSame(await store.listGrants('alice', account), [], `round ${round}: the account's grant died with it`)
    }
  })
}
