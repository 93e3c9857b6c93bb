/**
 * RedisStore against a real Redis: the shared Store conformance suite, then
 * what only a shared store has to show (prefix isolation, several clients
 * racing, fast failure when Redis is away, closing rules).
 * Needs REDIS_URL; without it the file skips and says so.
 */
import t from 'tap'
import { Redis } from 'ioredis'
import { StoreUnavailableError } from '../../../lib/store/contract/index.js'
import { RedisStore } from '../../../lib/store/redis/store.js'
import { accountRecord, masterRecord, siteRecord } from '../../../lib/testing/conformance/fixtures.js'
import { storeConformance } from '../../../lib/testing/conformance/index.js'
import { REDIS_URL, deleteUnder, freePort, keysUnder, randomPrefix, redisOrSkip } from '../../helpers/redis.js'

const admin = await redisOrSkip(t, 'Redis suite')

if (admin && REDIS_URL) {
  const url = REDIS_URL
  const prefixes: string[] = []
  /** A store on a fresh prefix, cleaned up at the end of the file. */
  const fresh = (prefix = randomPrefix()): RedisStore => {
    prefixes.push(prefix)
    return new RedisStore({ url, prefix })
  }
  t.teardown(async () => {
    for (const p of prefixes) await deleteUnder(admin, p)
  })

  await storeConformance(t, 'RedisStore', () => fresh(), { visitorSketches: true })

  t.test('every key sits under the prefix, and two prefixes never see each other', async (t) => {
    const pa = randomPrefix()
    const a = fresh(pa)
    const b = fresh()
    t.teardown(() => Promise.all([a.close(), b.close()]))
    t.equal(await a.createSite(siteRecord('shared-name', 'alice', { external_uid: 'x1' })), true)
    t.equal(await b.createSite(siteRecord('shared-name', 'alice')), true, 'the same name is free under another prefix')
    await a.createAccount(accountRecord('acc', 'alice'))
    t.equal(await a.grantAccess('alice', 'acc', 'shared-name'), 'ok')
    await a.publishSite('alice', 'shared-name', Date.UTC(2024, 0, 2), true)
    await a.incrementWithinLimit('daily', 3, Date.UTC(2999, 0, 1))
    await a.recordVisit({
      site_name: 'shared-name',
      day: '2024-01-02',
      visitor_id: 'v',
      page_views: 2,
      browser: 'Chrome 120',
      os: 'Windows',
      country: 'FR',
      region: 'IDF',
    })
    const keys = await keysUnder(admin, pa)
    t.ok(keys.length >= 10, `the store wrote ${keys.length} keys under its prefix`)
    t.strictSame(await b.getBilling('alice'), { charges: [], subscriptions: [] }, 'the other prefix has no ledger')
    t.equal(await b.getAccount('acc'), undefined)

    t.equal(await a.deleteSite('alice', 'shared-name'), true)
    await a.deleteAccount('alice', 'acc')
    // `{kind:name}:rest...` → `kind:rest` (keys.ts): which kinds of key are left.
    const kindOf = (key: string) => {
      const rest = key.slice(pa.length)
      const close = rest.indexOf('}')
      return [
        rest.slice(1, rest.indexOf(':')),
        ...rest
          .slice(close + 2)
          .split(':')
          .slice(0, 1),
      ].join(':')
    }
    const left = new Set((await keysUnder(admin, pa)).map(kindOf))
    t.strictSame(
      [...left].sort(),
      ['l:', 'o:charges', 'o:odays', 'o:subs'],
      'after deleting the site and the account only the ledger, the limit and the owner day index remain',
    )
  })

  t.test("a grant's permissions leave no key behind when its site or account goes", async (t) => {
    const pa = randomPrefix()
    const a = fresh(pa)
    t.teardown(() => a.close())
    await a.createAccount(accountRecord('acc', 'alice'))
    for (const site of ['s1', 's2']) {
      await a.createSite(siteRecord(site, 'alice'))
      t.equal(await a.grantAccess('alice', 'acc', site, ['EDIT']), 'ok')
    }
    const perms = async () => (await keysUnder(admin, pa)).filter((key) => key.endsWith('}:gperm'))
    t.equal((await perms()).length, 1, 'one permissions hash per account')
    await a.deleteSite('alice', 's1')
    await a.deleteSite('alice', 's2')
    t.strictSame(await perms(), [], 'deleting the sites empties it')
    await a.createSite(siteRecord('s1', 'alice'))
    await a.grantAccess('alice', 'acc', 's1', ['SEO'])
    await a.deleteAccount('alice', 'acc')
    t.strictSame(await perms(), [], 'deleting the account removes it')
  })

  t.test('two clients race on one Redis: one winner per name, one charge', async (t) => {
    const prefix = randomPrefix()
    const stores = [fresh(prefix), new RedisStore({ url, prefix })]
    t.teardown(() => Promise.all(stores.map((s) => s.close())))
    const creates = await Promise.all(
      Array.from({ length: 50 }, (_, i) => stores[i % 2]!.createSite(siteRecord('contested', `owner${i}`))),
    )
    t.equal(creates.filter(Boolean).length, 1, 'exactly one create wins')
    const winner = (await stores[1]!.getSite('contested'))!.owner
    const pubs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => stores[i % 2]!.publishSite(winner, 'contested', 1000 + i, true)),
    )
    t.equal(pubs.filter((p) => p?.charged).length, 1, 'one publish charged')
    t.equal((await stores[0]!.getBilling(winner)).charges.length, 1)
  })

  t.test('on a single Redis writes do not WAIT unless asked; asked, an unconfirmed write is a 503', async (t) => {
    const plain = fresh()
    const waiting = new RedisStore({ url, prefix: plain.prefix, waitReplicas: 1, waitTimeout: 50 })
    t.teardown(() => Promise.all([plain.close(), waiting.close()]))
    t.equal(await plain.createSite(siteRecord('no-wait', 'alice')), true, 'default: acknowledged without a replica')
    // The shared test Redis has no replica, so nothing can confirm a write.
    await t.rejects(waiting.putMaster(masterRecord('w')), StoreUnavailableError, 'asked to WAIT 1 with no replica: 503')
    await t.rejects(waiting.publishSite('alice', 'no-wait', 5, true), StoreUnavailableError)
    t.equal((await waiting.getSite('no-wait'))?.site_name, 'no-wait', 'reads never wait')
  })

  t.test('a passed-in client is used and left open by close()', async (t) => {
    const client = new Redis(url)
    t.teardown(() => client.quit().then(() => undefined))
    const prefix = randomPrefix()
    prefixes.push(prefix)
    const store = new RedisStore({ client, prefix })
    t.equal(await store.createSite(siteRecord('via-client', 'alice')), true)
    await store.close()
    await t.rejects(store.getSite('via-client'), 'the store is unusable after close')
    t.equal(await client.exists(`${prefix}{s:via-client}:site`), 1, 'the client still works and the data is there')
  })

  t.test('a client with keyPrefix is refused (scripts build keys themselves)', async (t) => {
    const client = new Redis(url, { keyPrefix: 'x:', lazyConnect: true })
    t.teardown(() => client.disconnect())
    t.throws(() => new RedisStore({ client }), /prefix/)
  })

  t.test('an unreachable Redis rejects quickly with StoreUnavailableError', async (t) => {
    const port = await freePort()
    const store = new RedisStore({ url: `redis://127.0.0.1:${port}`, prefix: randomPrefix() })
    t.teardown(() => store.close())
    const calls: [string, () => Promise<unknown>][] = [
      ['getSite', () => store.getSite('x')],
      ['createSite', () => store.createSite(siteRecord('xxxx', 'alice'))],
      ['incrementWithinLimit', () => store.incrementWithinLimit('k', 1, 0)],
      ['siteTraffic', () => store.siteTraffic('x', '2024-01-01', '2024-01-02')],
      ['listSites', () => store.listSites('alice', 'created', 0, 1)],
    ]
    for (const [name, call] of calls) {
      await t.rejects(call(), StoreUnavailableError, name)
    }
  })

  t.test('HyperLogLog visitors stay within the stated 2 % on 5,000 distinct visitors', async (t) => {
    const store = fresh()
    t.teardown(() => store.close())
    t.equal(await store.createSite(siteRecord('hll', 'alice')), true)
    const visit = (i: number, day: string) =>
      store.recordVisit({
        site_name: 'hll',
        day,
        visitor_id: `visitor-${i}`,
        page_views: 1,
        browser: 'Chrome 120',
        os: i % 2 ? 'Windows' : 'Linux',
        country: 'US',
        region: 'CA',
      })
    // 5,000 visitors over two days, 1,000 of them on both days.
    for (let i = 0; i < 3000; i += 100)
      await Promise.all(Array.from({ length: 100 }, (_, j) => visit(i + j, '2024-03-01')))
    for (let i = 2000; i < 5000; i += 100)
      await Promise.all(Array.from({ length: 100 }, (_, j) => visit(i + j, '2024-03-02')))
    const [row] = await store.siteTraffic('hll', '2024-03-01', '2024-03-02')
    t.equal(row?.data.visits, 6000)
    const u = row!.data.unique_visitors
    t.ok(Math.abs(u - 5000) <= 100, `unique visitors ${u} within 2 % of 5000`)
    const bySystem = await store.siteTraffic('hll', '2024-03-01', '2024-03-02', 'system')
    for (const r of bySystem) {
      t.ok(
        Math.abs(r.data.unique_visitors - 2500) <= 50,
        `${r.key.join('/')}: ${r.data.unique_visitors} within 2 % of 2500`,
      )
    }
    const [top] = await store.mostTraffic('alice', '2024-03-01', '2024-03-02', 10)
    t.ok(Math.abs(top!.data.unique_visitors - 5000) <= 100, 'mostTraffic uses the same union')
  })

  t.test('owner and external uid parts cannot run into each other in a key', async (t) => {
    const store = fresh()
    t.teardown(() => store.close())
    await store.createSite(siteRecord('uid-one', 'o', { external_uid: 'p:q' }))
    await store.createSite(siteRecord('uid-two', 'o:p', { external_uid: 'q' }))
    t.equal((await store.findSiteByExternalUid('o', 'p:q'))?.site_name, 'uid-one')
    t.equal((await store.findSiteByExternalUid('o:p', 'q'))?.site_name, 'uid-two')
    t.equal(await store.findSiteByExternalUid('o', 'q'), undefined)
  })

  t.test('periods longer than one script batch (600 days) add up', async (t) => {
    const store = fresh()
    t.teardown(() => store.close())
    const day = (i: number) => new Date(Date.UTC(2022, 0, 1) + i * 86_400_000).toISOString().slice(0, 10)
    t.equal(await store.createSite(siteRecord('long', 'alice')), true)
    for (let i = 0; i < 600; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          store.recordVisit({
            site_name: 'long',
            day: day(i + j),
            visitor_id: `v${(i + j) % 300}`,
            page_views: 2,
            browser: 'Firefox 120',
            os: 'Linux',
            country: 'DE',
            region: 'BE',
          }),
        ),
      )
    }
    const [all] = await store.siteTraffic('long', day(0), day(599))
    t.equal(all?.data.visits, 600)
    t.equal(all?.data.page_views, 1200)
    t.ok(Math.abs(all!.data.unique_visitors - 300) <= 6, `${all!.data.unique_visitors} ≈ 300 distinct visitors`)
    const [geo] = await store.siteTraffic('long', day(0), day(599), 'geo')
    t.strictSame(geo?.key, ['DE', 'BE'])
    t.ok(Math.abs(geo!.data.unique_visitors - 300) <= 6, 'per dimension value too')
    const top = await store.mostTraffic('alice', day(0), day(599), 10)
    t.equal(top.length, 1)
    t.equal(top[0]?.data.visits, 600)
    t.equal(top[0]?.data.page_views, 1200)
    t.equal((await store.mostTraffic('alice', day(100), day(199), 10))[0]?.data.visits, 100, 'a sub-period')
    t.equal(await store.deleteSite('alice', 'long'), true)
    t.equal((await store.siteTraffic('long', day(0), day(599)))[0]?.data.visits, 0, 'deleting drops all 600 days')
  })

  t.test('patches that would corrupt a record reject with TypeError and change nothing', async (t) => {
    const store = fresh()
    t.teardown(() => store.close())
    const site = siteRecord('guarded', 'alice', { external_uid: 'uid' })
    await store.createSite(site)
    const bad: [string, object][] = [
      ['site_name', { site_name: 'renamed' }],
      ['owner', { owner: 'bob' }],
      ['created_at', { created_at: 9 }],
      ['first_published_at', { first_published_at: 9 }],
      ['a bookkeeping field', { '#xkey': 'elsewhere' }],
      ['removing original_site_url', { original_site_url: null }],
      ['removing modified_at', { modified_at: null }],
      ['__proto__', JSON.parse('{"__proto__": {"polluted": true}}')],
    ]
    for (const [label, patch] of bad) {
      await t.rejects(store.updateSite('alice', 'guarded', { site_domain: 'x.example', ...patch }), TypeError, label)
    }
    t.strictSame(await store.getSite('guarded'), site, 'the site is untouched')
    await store.createAccount(accountRecord('acc', 'alice'))
    await t.rejects(store.updateAccount('alice', 'acc', { first_name: 'Eve', owner: 'bob' } as object), TypeError)
    t.equal((await store.getAccount('acc'))?.first_name, 'Ada', 'the account is untouched')
  })
}
