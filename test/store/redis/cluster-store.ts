/**
 * RedisStore on a real Redis Cluster (3 primaries + 3 replicas, started by
 * .ci/run through scripts/redis-cluster.sh): the whole Store conformance
 * suite, the key layout (a site's keys share one slot), and the settled edges
 * of the cluster URL and prefix. Needs REDIS_CLUSTER_URL; without it the file
 * skips and says so.
 */
import t from 'tap'
import { migrateRedisLayout } from '../../../lib/store/redis/migrate.js'
import { RedisStore } from '../../../lib/store/redis/store.js'
import { siteRecord } from '../../../lib/testing/conformance/fixtures.js'
import { storeConformance } from '../../../lib/testing/conformance/index.js'
import { REDIS_CLUSTER_URL, clusterDeleteUnder, clusterKeysUnder, clusterOrSkip } from '../../helpers/redis-cluster.js'
import { randomPrefix } from '../../helpers/redis.js'

const admin = await clusterOrSkip(t, 'Redis Cluster suite')

if (admin && REDIS_CLUSTER_URL) {
  const url = REDIS_CLUSTER_URL
  const prefixes: string[] = []
  const stores: RedisStore[] = []
  /** A store on a fresh prefix, cleaned up at the end of the file. */
  const fresh = (prefix = randomPrefix('cluster')): RedisStore => {
    prefixes.push(prefix)
    const store = new RedisStore({ url, prefix })
    stores.push(store)
    return store
  }
  t.teardown(async () => {
    await Promise.all(stores.map((s) => s.close()))
    for (const p of prefixes) await clusterDeleteUnder(admin, p)
  })

  await storeConformance(t, 'RedisStore on Redis Cluster', () => fresh(), { visitorSketches: true })

  t.test("migrateRedisLayout folds the previous release's site-days on a cluster", async (t) => {
    const prefix = randomPrefix('cluster')
    const store = fresh(prefix)
    t.equal(await store.createSite(siteRecord('folded', 'alice')), true)
    const visit = { site_name: 'folded', day: '2024-01-02', page_views: 2, browser: 'Chrome 120', os: 'Windows' }
    await store.recordVisit({ ...visit, visitor_id: 'v0', country: 'FR', region: 'IDF' })
    // That release's per-dimension hashes and per-value HyperLogLogs, as its scripts wrote them.
    const B = `${prefix}{s:folded}:`
    const geo = JSON.stringify(['JP', 'Tokyo'])
    await admin.hset(`${B}dv:2024-01-02:geo`, `visits:${geo}`, 2, `page_views:${geo}`, 3, `form_submit:${geo}`, 1)
    await admin.pfadd(`${B}dvu:2024-01-02:geo:${geo}`, 'v1', 'v2')
    await admin.hincrby(`${B}day:2024-01-02`, 'visits', 2)
    t.match(await migrateRedisLayout(admin, { prefix }), { folded: 1, renamed: 0 })
    t.strictSame(await clusterKeysUnder(admin, `${B}dv`), [], 'no per-dimension key left')
    t.match(await store.siteTraffic('folded', '2024-01-02', '2024-01-02', 'geo'), [
      { key: ['FR', 'IDF'], data: { visits: 1, page_views: 2, unique_visitors: 1 } },
      { key: ['JP', 'Tokyo'], data: { visits: 2, page_views: 3, unique_visitors: 2 } },
    ])
    t.match(await store.siteActivities('folded', '2024-01-02', '2024-01-02', 'geo'), [
      { key: ['JP', 'Tokyo'], data: { form_submit: 1 } },
    ])
  })

  t.test("a site's record and analytics share one slot; its owner's indexes share another", async (t) => {
    const prefix = randomPrefix('cluster')
    const store = fresh(prefix)
    t.equal(await store.createSite(siteRecord('slotted', 'alice', { external_uid: 'u1' })), true)
    await store.recordVisit({
      site_name: 'slotted',
      day: '2024-01-02',
      visitor_id: 'v',
      page_views: 1,
      browser: 'Chrome 120',
      os: 'Windows',
      country: 'FR',
      region: 'IDF',
    })
    const keys = await clusterKeysUnder(admin, prefix)
    const slots = async (tag: string) => {
      const mine = keys.filter((k) => k.startsWith(`${prefix}{${tag}}`))
      return { count: mine.length, slots: new Set(await Promise.all(mine.map((k) => admin.cluster('KEYSLOT', k)))) }
    }
    const site = await slots('s:slotted')
    t.ok(site.count >= 5, `${site.count} keys of the site`)
    t.equal(site.slots.size, 1, 'all in one slot')
    const owner = await slots('o:alice')
    t.ok(owner.count >= 3, `${owner.count} keys of the owner`)
    t.equal(owner.slots.size, 1, 'all in one slot')
    t.ok(keys.includes(`${prefix}{n:slotted}`), 'the name claim is a key of its own')
  })

  t.test(
    'a recording batch: one script per site, one ranking step per owner, each on one slot; every key expires',
    async (t) => {
      const prefix = randomPrefix('cluster')
      const store = fresh(prefix)
      t.equal(await store.createSite(siteRecord('batch-a', 'alice')), true)
      t.equal(await store.createSite(siteRecord('batch-b', 'alice')), true)
      t.equal(await store.createSite(siteRecord('batch-c', 'bob')), true)
      const before = new Set(await clusterKeysUnder(admin, prefix))
      /** Scripts run (EVALSHA and EVAL) over every primary. */
      const scripts = async () => {
        let n = 0
        for (const node of admin.nodes('master')) {
          const info = await node.info('commandstats')
          for (const m of info.matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+)/g)) n += Number(m[1])
        }
        return n
      }
      const visit = (site: string, visitor: string, country: string) => ({
        site_name: site,
        day: '2024-03-10',
        visitor_id: visitor,
        page_views: 1,
        browser: 'Chrome 120',
        os: 'Windows',
        country,
        region: '',
      })
      const ran = await scripts()
      const outcomes = await store.recordEvents(
        [
          visit('batch-a', 'v1', 'FR'),
          visit('batch-c', 'v1', 'FR'),
          visit('nosuch', 'v1', 'FR'),
          visit('batch-a', 'v2', 'DE'),
          visit('batch-b', 'v1', 'FR'),
          visit('batch-a', 'v3', 'IT'),
        ],
        { maxDimensionValues: 2, retentionDays: 30, today: '2024-03-10' },
      )
      t.equal((await scripts()) - ran, 4 + 2, 'four site scripts (the missing site too) and two owners ranked')
      const alice = { owner: 'alice', build: 'built' }
      const bob = { owner: 'bob', build: 'built' }
      t.strictSame(outcomes, [alice, bob, undefined, alice, alice, alice], 'outcomes in the batch order')
      const ranking = await store.mostTraffic('alice', '2024-03-10', '2024-03-10', 10)
      t.strictSame(
        ranking.map((r) => [r.site_name, r.data.visits]),
        [
          ['batch-a', 3],
          ['batch-b', 1],
        ],
        "a site's visits summed in the owner's ranking",
      )
      const geo = await store.siteTraffic('batch-a', '2024-03-10', '2024-03-10', 'geo')
      t.strictSame(
        geo.map((r) => [r.key[0], r.data.visits]).sort(),
        [
          ['(other)', 1],
          ['DE', 1],
          ['FR', 1],
        ],
        'the cap folds the third country into (other)',
      )
      const made = (await clusterKeysUnder(admin, prefix)).filter((k) => !before.has(k))
      t.ok(made.length >= 10, `${made.length} keys made`)
      for (const key of made) {
        const ttl = await admin.ttl(key)
        t.ok(ttl > 0 && ttl <= 30 * 86_400, `${key.slice(prefix.length)} expires (${ttl} s)`)
      }
      for (const tag of ['s:batch-a', 's:batch-b', 's:batch-c', 'o:alice', 'o:bob']) {
        const mine = made.filter((k) => k.startsWith(`${prefix}{${tag}}`))
        const slots = new Set(await Promise.all(mine.map((k) => admin.cluster('KEYSLOT', k))))
        t.ok(mine.length > 0 && slots.size === 1, `the ${mine.length} new keys of {${tag}} share one slot`)
      }
    },
  )
}
