/**
 * MemoryStore: the shared conformance suite, then what only MemoryStore
 * promises (close behaviour, patch guards, tie rules, counter sweeping,
 * analytics delegation) and the OrderedIndex behind its listings.
 */
import fc from 'fast-check'
import t from 'tap'
import { checkProperty, replayable } from '../helpers/fuzz-seed.js'
import { StoreUnavailableError } from '../../lib/store/contract/index.js'
import type { Store } from '../../lib/store/contract/index.js'
import { MemoryAnalytics } from '../../lib/store/memory/analytics-buckets.js'
import { MemoryStore } from '../../lib/store/memory/store.js'
import { OrderedIndex } from '../../lib/store/memory/ordered-index.js'
import { storeConformance } from '../../lib/testing/conformance/index.js'
import { T0, accountRecord, at, siteRecord } from '../../lib/testing/conformance/fixtures.js'

replayable(t, import.meta.url)

// The default threshold (10,000 a site-day) is far above what the suite records: exact.
storeConformance(t, 'MemoryStore', () => new MemoryStore(), { uniqueVisitors: 'exact' })
// Threshold 0: every site-day with a visitor is sketched, as a flooded one is; estimated, exported as sketches.
storeConformance(t, 'MemoryStore (sketched)', () => new MemoryStore({ exactVisitors: 0 }), {
  uniqueVisitors: 'estimated',
  visitorSketches: true,
})

t.test('after close every method rejects with StoreUnavailableError; closing twice is fine', async (t) => {
  const store = new MemoryStore()
  await store.createSite(siteRecord('s', 'alice'))
  await store.close()
  await store.close()
  const calls: [string, (s: Store) => Promise<unknown>][] = [
    ['putMaster', (s) => s.putMaster({ user: 'u', partner: false, salt: '', password_hash: '' })],
    ['getMaster', (s) => s.getMaster('u')],
    ['createSite', (s) => s.createSite(siteRecord('s2', 'alice'))],
    ['getSite', (s) => s.getSite('s')],
    ['getSites', (s) => s.getSites(['s'])],
    ['findSiteByExternalUid', (s) => s.findSiteByExternalUid('alice', 'x')],
    ['updateSite', (s) => s.updateSite('alice', 's', {})],
    ['publishSite', (s) => s.publishSite('alice', 's', T0, true)],
    ['deleteSite', (s) => s.deleteSite('alice', 's')],
    ['listSites', (s) => s.listSites('alice', 'created', 0, T0)],
    ['getBilling', (s) => s.getBilling('alice')],
    ['createAccount', (s) => s.createAccount(accountRecord('a', 'alice'))],
    ['getAccount', (s) => s.getAccount('a')],
    ['updateAccount', (s) => s.updateAccount('alice', 'a', {})],
    ['deleteAccount', (s) => s.deleteAccount('alice', 'a')],
    ['grantAccess', (s) => s.grantAccess('alice', 'a', 's')],
    ['revokeAccess', (s) => s.revokeAccess('alice', 'a', 's')],
    ['listGrants', (s) => s.listGrants('alice', 'a')],
    ['incrementWithinLimit', (s) => s.incrementWithinLimit('k', 1, T0)],
    ['siteTraffic', (s) => s.siteTraffic('s', '2024-01-01', '2024-01-01')],
    ['mostTraffic', (s) => s.mostTraffic('alice', '2024-01-01', '2024-01-01', 10)],
    [
      'issueSsoToken',
      (s) =>
        s.issueSsoToken(
          'd',
          { account_name: 'a', owner: 'alice', incarnation: 'i', target: 'DASHBOARD', expires_at: T0 },
          T0,
        ),
    ],
    ['redeemSsoToken', (s) => s.redeemSsoToken('d', T0, 's', T0)],
    ['getSession', (s) => s.getSession('s', T0)],
    ['deleteSession', (s) => s.deleteSession('s')],
  ]
  for (const [name, call] of calls) await t.rejects(call(store), StoreUnavailableError, name)
})

t.test('patches that would corrupt a record reject with TypeError and change nothing', async (t) => {
  const store = new MemoryStore()
  const site = siteRecord('guarded', 'alice', { external_uid: 'uid' })
  await store.createSite(site)
  const bad: [string, object][] = [
    ['site_name', { site_name: 'renamed' }],
    ['owner', { owner: 'bob' }],
    ['created_at', { created_at: at(9) }],
    ['first_published_at', { first_published_at: at(9) }],
    ['removing original_site_url', { original_site_url: null }],
    ['removing modified_at', { modified_at: null }],
    ['removing initial', { initial: null }],
    ['__proto__', JSON.parse('{"__proto__": {"polluted": true}, "site_domain": "x.example"}')],
  ]
  for (const [label, patch] of bad) {
    await t.rejects(store.updateSite('alice', 'guarded', { site_domain: 'x.example', ...patch }), TypeError, label)
  }
  t.strictSame(await store.getSite('guarded'), site, 'the site is untouched')
  t.strictSame(await store.listSites('alice', 'modified', T0, T0), ['guarded'])

  const acc = accountRecord('acc', 'alice')
  await store.createAccount(acc)
  for (const key of ['account_name', 'owner', 'created_at']) {
    await t.rejects(store.updateAccount('alice', 'acc', { first_name: 'Eve', [key]: 'x' } as object), TypeError, key)
  }
  t.strictSame(await store.getAccount('acc'), acc, 'the account is untouched')
})

t.test('findSiteByExternalUid: a tie on created_at goes to the greatest name', async (t) => {
  const store = new MemoryStore()
  for (const name of ['tie-b', 'tie-c', 'tie-a'])
    await store.createSite(siteRecord(name, 'alice', { external_uid: 'u' }))
  t.equal((await store.findSiteByExternalUid('alice', 'u'))?.site_name, 'tie-c')
})

t.test('grantAccess: with neither account nor site the owner’s, the account is reported', async (t) => {
  const store = new MemoryStore()
  t.equal(await store.grantAccess('alice', 'nobody', 'nothing'), 'no-account')
  t.equal(await store.revokeAccess('alice', 'nobody', 'nothing'), 'no-account')
})

t.test('incrementWithinLimit: which counters the lazy sweep drops', async (t) => {
  const store = new MemoryStore()
  const day1 = Date.UTC(2020, 0, 2)
  const day2 = Date.UTC(2020, 0, 3)
  await store.incrementWithinLimit('a', 10, day1)
  await store.incrementWithinLimit('b', 10, day1)
  t.equal((await store.incrementWithinLimit('a', 10, day1)).count, 2, 'same period, past clock: kept')
  t.equal((await store.incrementWithinLimit('a', 10, day2)).count, 3, 'the called counter itself is never dropped')
  t.equal((await store.incrementWithinLimit('b', 10, day1)).count, 1, 'a later period swept an expired counter')

  const future1 = Date.UTC(2999, 0, 2)
  const future2 = Date.UTC(2999, 0, 3)
  await store.incrementWithinLimit('f', 10, future1)
  await store.incrementWithinLimit('g', 10, future2)
  t.equal((await store.incrementWithinLimit('f', 10, future1)).count, 2, 'not yet expired on the real clock: kept')
})

t.test('analytics calls go to MemoryAnalytics; deleteSite drops the site there', async (t) => {
  const store = new MemoryStore()
  const proto = MemoryAnalytics.prototype
  const drops = t.capture(proto, 'dropSite')
  await store.createSite(siteRecord('s', 'alice'))
  await store.deleteSite('bob', 's')
  t.strictSame(drops.args(), [], 'a refused delete drops nothing')
  await store.deleteSite('alice', 's')
  t.strictSame(drops.args(), [['alice', 's']])

  await store.createSite(siteRecord('s', 'alice'))
  const visit = {
    site_name: 's',
    day: '2024-01-01',
    visitor_id: 'v',
    page_views: 1,
    browser: 'b',
    os: 'o',
    country: 'c',
    region: 'r',
  }
  const activity = { ...visit, kind: 'form_submit' as const }
  const visits = t.capture(proto, 'recordVisit')
  const activities = t.capture(proto, 'recordActivity')
  const traffic = t.capture(proto, 'siteTraffic', () => ['traffic'])
  const acts = t.capture(proto, 'siteActivities', () => ['activities'])
  const most = t.capture(proto, 'mostTraffic', () => ['most'])
  t.strictSame(await store.recordVisit(visit), { owner: 'alice', build: 'built' })
  t.strictSame(await store.recordActivity(activity), { owner: 'alice', build: 'built' })
  t.strictSame(await store.siteTraffic('s', '2024-01-01', '2024-01-02', 'geo'), ['traffic'])
  t.strictSame(await store.siteActivities('s', '2024-01-01', '2024-01-02'), ['activities'])
  t.strictSame(await store.mostTraffic('alice', '2024-01-01', '2024-01-02', 10), ['most'])
  t.strictSame(visits.args(), [[visit, 'alice']], 'with the owner read from the site')
  t.strictSame(activities.args(), [[activity, 'alice']])
  t.strictSame(traffic.args(), [['s', '2024-01-01', '2024-01-02', 'geo']])
  t.strictSame(acts.args(), [['s', '2024-01-01', '2024-01-02', undefined]])
  t.strictSame(most.args(), [['alice', '2024-01-01', '2024-01-02', 10]])
})

t.test('OrderedIndex', async (t) => {
  const idx = new OrderedIndex()
  t.strictSame(idx.range(-Infinity, Infinity), [], 'empty')
  idx.insert(5, 'b')
  idx.insert(5, 'a')
  idx.insert(1, 'z')
  idx.insert(9, 'a')
  idx.insert(5, 'a')
  t.equal(idx.size, 4, 'a present entry is not added twice')
  t.strictSame(idx.range(-Infinity, Infinity), ['z', 'a', 'b', 'a'], 'by time, then name')
  t.strictSame(idx.range(5, 5), ['a', 'b'], 'both ends included')
  t.strictSame(idx.range(1, 5), ['z', 'a', 'b'])
  t.strictSame(idx.range(2, 4), [])
  t.strictSame(idx.range(9, 1), [], 'from after to')
  t.equal(idx.remove(5, 'c'), false, 'absent name at a present time')
  t.equal(idx.remove(6, 'a'), false, 'present name at an absent time')
  t.equal(idx.remove(5, 'a'), true)
  t.equal(idx.remove(5, 'a'), false)
  t.strictSame(idx.range(-Infinity, Infinity), ['z', 'b', 'a'])
})

t.test('OrderedIndex behaves like a sorted set (property)', async (t) => {
  const op = fc.record({
    insert: fc.boolean(),
    time: fc.integer({ min: 0, max: 12 }),
    name: fc.constantFrom('a', 'b', 'c', 'ab', '', '__proto__', 'constructor'),
  })
  const query = fc.tuple(fc.integer({ min: -1, max: 13 }), fc.integer({ min: -1, max: 13 }))
  checkProperty(
    import.meta.url,
    fc.property(fc.array(op, { maxLength: 60 }), fc.array(query, { maxLength: 5 }), (ops, queries) => {
      const idx = new OrderedIndex()
      const model = new Map<string, { time: number; name: string }>()
      for (const { insert, time, name } of ops) {
        const id = JSON.stringify([time, name])
        if (insert) {
          idx.insert(time, name)
          model.set(id, { time, name })
        } else if (idx.remove(time, name) !== model.delete(id)) {
          return false
        }
      }
      const sorted = [...model.values()].sort(
        (x, y) => x.time - y.time || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0),
      )
      if (idx.size !== sorted.length) return false
      return queries.every(([from, to]) => {
        const want = sorted.filter((e) => e.time >= from && e.time <= to).map((e) => e.name)
        return JSON.stringify(idx.range(from, to)) === JSON.stringify(want)
      })
    }),
    { numRuns: 300 },
  )
  t.pass('300 random operation sequences matched the model')
})
