/**
 * migrateRedisLayout: data a single Redis holds in the key layout of the
 * previous version (written here key by key, exactly as that version's
 * scripts wrote it) is read through RedisStore after the migration: sites,
 * listings, external uids, accounts, grants, billing, masters, analytics,
 * and the case-folded name claims. A second run changes nothing.
 * Needs REDIS_URL; without it the file skips and says so.
 */
import t from 'tap'
import { encodeFields } from '../../../lib/store/redis/hash-fields.js'
import { migrateRedisLayout } from '../../../lib/store/redis/migrate.js'
import { RedisStore } from '../../../lib/store/redis/store.js'
import { accountRecord, masterRecord, siteRecord } from '../../../lib/testing/conformance/fixtures.js'
import { REDIS_URL, deleteUnder, keysUnder, randomPrefix, redisOrSkip } from '../../helpers/redis.js'

const admin = await redisOrSkip(t, 'Redis layout migration')

if (admin && REDIS_URL) {
  const P = randomPrefix('migrate')
  t.teardown(() => deleteUnder(admin, P))

  t.test('old-layout data reads the same after migrateRedisLayout', async (t) => {
    // The previous layout (main's lib/store/redis/keys.ts), written as its scripts did.
    const site = siteRecord('Old-Site', 'alice', { external_uid: 'ext-9', created_at: 1000, modified_at: 2000 })
    const other = siteRecord('plain', 'alice', { created_at: 1500, modified_at: 1500 })
    const owner = JSON.stringify('alice')
    const xkey = `${P}xuid:5:alice:ext-9`
    const day = '2024-01-02'
    const sys = JSON.stringify(['Chrome 120', 'Windows'])
    const geo = JSON.stringify(['FR', 'IDF'])
    await admin
      .multi()
      .set(`${P}master:alice`, JSON.stringify(masterRecord('alice', true)))
      .hset(`${P}site:Old-Site`, ...encodeFields(site), '#xkey', xkey, '#sub', '0')
      .hset(`${P}site:plain`, ...encodeFields(other))
      .zadd(`${P}created:alice`, 1000, 'Old-Site', 1500, 'plain')
      .zadd(`${P}modified:alice`, 2000, 'Old-Site', 1500, 'plain')
      .zadd(xkey, 1000, 'Old-Site')
      .hset(`${P}sfold`, 'old-site', 'Old-Site', 'plain', 'plain')
      .hset(`${P}acct:acc`, ...encodeFields(accountRecord('acc', 'alice')))
      .hset(`${P}afold`, 'acc', 'acc')
      .sadd(`${P}gacct:acc`, 'Old-Site')
      .sadd(`${P}gsite:Old-Site`, 'acc')
      .rpush(`${P}charges:alice`, JSON.stringify({ site_name: 'Old-Site', at: 3000 }))
      .rpush(`${P}subs:alice`, JSON.stringify({ site_name: 'Old-Site', status: 'active' }))
      .set(`${P}limit:daily`, '2')
      .hset(`${P}aowner`, 'Old-Site', owner)
      .zadd(`${P}days:Old-Site`, 0, day)
      .zadd(`${P}odays:${owner}`, 0, day)
      .hset(`${P}day:${day}:Old-Site`, 'visits', 3, 'page_views', 5)
      .pfadd(`${P}dayu:${day}:Old-Site`, 'v1', 'v2')
      .hset(`${P}dv:${day}:sys:Old-Site`, `visits:${sys}`, 3, `page_views:${sys}`, 5)
      .hset(`${P}dv:${day}:geo:Old-Site`, `visits:${geo}`, 3, `page_views:${geo}`, 5)
      .pfadd(`${P}dvu:${day}:sys:8:Old-Site:${sys}`, 'v1', 'v2')
      .pfadd(`${P}dvu:${day}:geo:8:Old-Site:${geo}`, 'v1', 'v2')
      .zadd(`${P}rank:${day}:${owner}`, 3, 'Old-Site')
      .exec()

    const report = await migrateRedisLayout(admin, { prefix: P })
    t.match(report, { claims: 3 }, 'a claim per folded name')
    t.ok(report.renamed >= 20, `${report.renamed} keys renamed`)
    t.equal(report.folded, 2, "the day's two dimension hashes folded into the compact site-day")
    const left = (await keysUnder(admin, P)).filter((k) => !k.slice(P.length).startsWith('{'))
    t.strictSame(left, [], 'no key of the old layout is left')
    t.strictSame(
      await migrateRedisLayout(admin, { prefix: P }),
      { renamed: 0, claims: 0, dropped: 0, folded: 0 },
      'idempotent',
    )
    const analyticsKeys = (await keysUnder(admin, P)).filter((k) => k.includes('{s:Old-Site}:d'))
    t.strictSame(
      analyticsKeys.map((k) => k.slice(k.indexOf('}:') + 2)).sort(),
      ['day:2024-01-02', 'days', 'dayu:2024-01-02', 'du:2024-01-02'],
      'three keys per site-day, no per-value key left',
    )

    const store = new RedisStore({ url: REDIS_URL, prefix: P })
    t.teardown(() => store.close())
    t.strictSame(await store.getSite('Old-Site'), site)
    t.strictSame(await store.listSites('alice', 'created', 0, 5000), ['Old-Site', 'plain'])
    t.strictSame(await store.listSites('alice', 'modified', 1600, 5000), ['Old-Site'])
    t.equal((await store.findSiteByExternalUid('alice', 'ext-9'))?.site_name, 'Old-Site')
    t.strictSame(await store.getMaster('alice'), masterRecord('alice', true))
    t.equal((await store.getAccount('acc'))?.account_name, 'acc')
    t.strictSame(await store.listGrants('alice', 'acc'), ['Old-Site'])
    t.strictSame(await store.getBilling('alice'), {
      charges: [{ site_name: 'Old-Site', at: 3000 }],
      subscriptions: [{ site_name: 'Old-Site', status: 'active' }],
    })
    t.strictSame(await store.incrementWithinLimit('daily', 3, Date.UTC(2999, 0, 1)), { allowed: true, count: 3 })
    t.match(await store.siteTraffic('Old-Site', day, day), [{ data: { visits: 3, page_views: 5, unique_visitors: 2 } }])
    t.match(await store.siteTraffic('Old-Site', day, day, 'geo'), [
      { key: ['FR', 'IDF'], data: { visits: 3, page_views: 5, unique_visitors: 2 } },
    ])
    t.match(await store.siteTraffic('Old-Site', day, day, 'system'), [
      { key: ['Chrome 120', 'Windows'], data: { visits: 3, page_views: 5, unique_visitors: 2 } },
    ])
    t.match(await store.mostTraffic('alice', day, day, 5), [
      { site_name: 'Old-Site', data: { visits: 3, page_views: 5, unique_visitors: 2 } },
    ])

    // The folds became claims: a name taken in another letter case stays taken.
    t.equal(await store.createSite(siteRecord('old-site', 'bob')), false, 'taken in another case')
    t.equal(await store.createAccount(accountRecord('ACC', 'bob')), false, 'account name taken in another case')
    // And the old records work with the new rules: delete cleans every index and frees the name.
    t.equal(await store.deleteSite('alice', 'Old-Site'), true)
    t.strictSame(await store.getBilling('alice'), {
      charges: [{ site_name: 'Old-Site', at: 3000 }],
      subscriptions: [{ site_name: 'Old-Site', status: 'cancelled' }],
    })
    t.strictSame(await store.listGrants('alice', 'acc'), [])
    t.equal(await store.findSiteByExternalUid('alice', 'ext-9'), undefined)
    t.strictSame(await store.mostTraffic('alice', day, day, 5), [])
    t.equal(await store.createSite(siteRecord('old-site', 'bob')), true, 'the name is free again')
  })
}
