/**
 * Conformance groups for the hardening rules: conditional master writes
 * (hash upgrades and re-creating lost masters never overwrite another
 * instance's record) and names unique regardless of letter case.
 */
import { TRICKY_NAMES, masterRecord, open } from './fixtures.js'
import type { StoreFactory, Tap } from './fixtures.js'

/** Registers the hardening groups on `t`. */
export function hardeningGroups(t: Tap, factory: StoreFactory): void {
  t.test('putMasterIf: only if absent, or only over the expected hash', async (t) => {
    const store = await open(t, factory)
    const first = { ...masterRecord('alice', true), password_hash: 'h1' }
    t.equal(await store.putMasterIf(first, null), true, 'absent: written')
    t.strictSame(await store.getMaster('alice'), first)
    t.equal(await store.putMasterIf({ ...first, password_hash: 'h2' }, null), false, 'present: an if-absent write is refused')
    t.equal(await store.putMasterIf({ ...first, password_hash: 'h2' }, 'other'), false, 'another hash: refused')
    t.strictSame(await store.getMaster('alice'), first, 'refused writes change nothing')
    const second = { ...first, partner: false, password_hash: 'h2' }
    t.equal(await store.putMasterIf(second, 'h1'), true, 'the expected hash: replaced')
    t.strictSame(await store.getMaster('alice'), second)
    t.equal(await store.putMasterIf({ ...first, user: 'bob' }, 'h1'), false, 'an expected hash on a missing master: refused')
    t.equal(await store.getMaster('bob'), undefined)
    for (const name of TRICKY_NAMES) {
      t.equal(await store.putMasterIf(masterRecord(name), null), true, `a master named ${name}`)
      t.strictSame(await store.getMaster(name), masterRecord(name))
    }
  })

  t.test('putMasterIf: 20 parallel if-absent writes, one winner', async (t) => {
    const store = await open(t, factory)
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.putMasterIf({ ...masterRecord('race'), password_hash: `h${i}` }, null)),
    )
    t.equal(outcomes.filter(Boolean).length, 1, 'exactly one write')
    const winner = outcomes.indexOf(true)
    t.equal((await store.getMaster('race'))?.password_hash, `h${winner}`, 'and the stored record is the winner\'s')
  })
}
