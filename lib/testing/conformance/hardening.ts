/**
 * Conformance groups for the hardening rules: conditional master writes
 * (hash upgrades and re-creating lost masters never overwrite another
 * instance's record) and names unique regardless of letter case.
 */
import { TRICKY_NAMES, accountRecord, masterRecord, open, siteRecord } from './fixtures.js'
import type { StoreFactory, Tap } from './fixtures.js'

/** Registers the hardening groups on `t`. */
export function hardeningGroups(t: Tap, factory: StoreFactory): void {
  t.test('putMasterIf: only if absent, or only over the expected hash', async (t) => {
    const store = await open(t, factory)
    const first = { ...masterRecord('alice', true), password_hash: 'h1' }
    t.equal(await store.putMasterIf(first, null), true, 'absent: written')
    t.strictSame(await store.getMaster('alice'), first)
    t.equal(
      await store.putMasterIf({ ...first, password_hash: 'h2' }, null),
      false,
      'present: an if-absent write is refused',
    )
    t.equal(await store.putMasterIf({ ...first, password_hash: 'h2' }, 'other'), false, 'another hash: refused')
    t.strictSame(await store.getMaster('alice'), first, 'refused writes change nothing')
    const second = { ...first, partner: false, password_hash: 'h2' }
    t.equal(await store.putMasterIf(second, 'h1'), true, 'the expected hash: replaced')
    t.strictSame(await store.getMaster('alice'), second)
    t.equal(
      await store.putMasterIf({ ...first, user: 'bob' }, 'h1'),
      false,
      'an expected hash on a missing master: refused',
    )
    t.equal(await store.getMaster('bob'), undefined)
    for (const name of TRICKY_NAMES) {
      t.equal(await store.putMasterIf(masterRecord(name), null), true, `a master named ${name}`)
      t.strictSame(await store.getMaster(name), masterRecord(name))
    }
  })

  t.test('putMasterIf: 20 parallel if-absent writes, one winner', async (t) => {
    const store = await open(t, factory)
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.putMasterIf({ ...masterRecord('race'), password_hash: `h${i}` }, null),
      ),
    )
    t.equal(outcomes.filter(Boolean).length, 1, 'exactly one write')
    const winner = outcomes.indexOf(true)
    t.equal((await store.getMaster('race'))?.password_hash, `h${winner}`, "and the stored record is the winner's")
  })

  t.test('site names are unique regardless of letter case; lookups stay exact', async (t) => {
    const store = await open(t, factory)
    t.equal(await store.createSite(siteRecord('alicesite', 'alice')), true)
    for (const name of ['ALICESITE', 'AliceSite', 'alicesitE']) {
      t.equal(await store.createSite(siteRecord(name, 'alice')), false, `${name} beside alicesite is refused`)
      t.equal(await store.createSite(siteRecord(name, 'bob')), false, `${name} is refused for another owner too`)
      t.equal(await store.getSite(name), undefined, `${name} does not exist: lookups are exact`)
    }
    t.equal((await store.getSite('alicesite'))?.owner, 'alice', 'the first one is intact')
    t.strictSame(
      await store.listSites('alice', 'created', 0, Number.MAX_SAFE_INTEGER),
      ['alicesite'],
      "and alone in its owner's index",
    )
    t.equal(await store.createSite(siteRecord('alice-site2', 'alice')), true, 'other names are free')
    t.equal(await store.deleteSite('alice', 'ALICESITE'), false, 'a delete by another case finds nothing')
    t.equal(await store.deleteSite('alice', 'alicesite'), true)
    t.equal(await store.createSite(siteRecord('AliceSite', 'bob')), true, 'once deleted, any case of the name is free')
    t.equal(await store.createSite(siteRecord('alicesite', 'alice')), false, 'and taken again by the new one')
    t.equal(await store.deleteSite('bob', 'AliceSite'), true)
    t.equal(await store.createSite(siteRecord('alicesite', 'alice')), true, 'free again after its delete')
  })

  t.test('account names are unique regardless of letter case; lookups stay exact', async (t) => {
    const store = await open(t, factory)
    t.equal(await store.createAccount(accountRecord('Ann.B+c@x.io', 'alice')), true)
    t.equal(await store.createAccount(accountRecord('ann.b+c@x.io', 'alice')), false, 'the lower-case twin is refused')
    t.equal(await store.createAccount(accountRecord('ANN.B+C@X.IO', 'bob')), false, 'for another owner too')
    t.equal(await store.getAccount('ann.b+c@x.io'), undefined, 'lookups are exact')
    t.equal(await store.deleteAccount('alice', 'ann.b+c@x.io'), false, 'a delete by another case finds nothing')
    t.equal(await store.deleteAccount('alice', 'Ann.B+c@x.io'), true)
    t.equal(await store.createAccount(accountRecord('ann.b+c@x.io', 'bob')), true, 'once deleted, any case is free')
  })

  t.test('parallel creates of abcd, ABCD and AbCd: exactly one winner', async (t) => {
    const store = await open(t, factory)
    for (let round = 0; round < 5; round++) {
      const names = [`abcd${round}`, `ABCD${round}`, `AbCd${round}`]
      const sites = await Promise.all(
        names.flatMap((name) => [
          store.createSite(siteRecord(name, 'alice')),
          store.createSite(siteRecord(name, 'bob')),
        ]),
      )
      t.equal(sites.filter(Boolean).length, 1, `round ${round}: one site created`)
      const found = (await store.getSites(names)).filter((site) => site !== undefined)
      t.equal(found.length, 1, `round ${round}: one site stored`)
      const accounts = await Promise.all(
        names.flatMap((name) => [
          store.createAccount(accountRecord(name, 'alice')),
          store.createAccount(accountRecord(name, 'bob')),
        ]),
      )
      t.equal(accounts.filter(Boolean).length, 1, `round ${round}: one account created`)
      const stored = await Promise.all(names.map((name) => store.getAccount(name)))
      t.equal(stored.filter((account) => account !== undefined).length, 1, `round ${round}: one account stored`)
    }
  })
}
