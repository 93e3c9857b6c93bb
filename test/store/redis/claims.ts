/**
 * The cross-slot sequences of RedisStore interrupted between steps (a process
 * that died mid-create, mid-delete or mid-grant), on a Redis Cluster and on a
 * single Redis: the state each crash leaves is written key by key, as the
 * steps before the crash leave it, and the store must show no half state and
 * take a stale name claim over after `claimTimeout`. Runs on each of
 * REDIS_CLUSTER_URL and REDIS_URL that is set; without both the file skips.
 */
import t from 'tap'
import { RedisKeys } from '../../../lib/store/redis/keys.js'
import { RedisStore } from '../../../lib/store/redis/store.js'
import { accountRecord, siteRecord } from '../../../lib/testing/conformance/fixtures.js'
import { REDIS_CLUSTER_URL } from '../../helpers/redis-cluster.js'
import { REDIS_URL, randomPrefix } from '../../helpers/redis.js'

const targets = [
  ['Redis Cluster', REDIS_CLUSTER_URL],
  ['single Redis', REDIS_URL],
].filter((e): e is [string, string] => e[1] !== undefined)

if (targets.length === 0) t.plan(0, 'neither REDIS_CLUSTER_URL nor REDIS_URL set: claim crash tests skipped')

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

for (const [label, url] of targets) {
  t.test(label, async (t) => {
    const prefix = randomPrefix('claims')
    const k = new RedisKeys(prefix)
    const store = new RedisStore({ url, prefix, claimTimeout: 600 })
    const written: string[] = []
    const c = store.client
    await store.getSite('warm-up') // the store's client fails fast until connected; this waits for it
    /** A claim as the claim step writes it, `ageMs` old on Redis' clock. */
    const claim = async (key: string, name: string, ageMs: number) => {
      const [s, us] = (await c.call('TIME')) as [string, string]
      const at = Number(s) * 1000 + Math.floor(Number(us) / 1000) - ageMs
      await c.hset(key, 'name', name, 'at', String(at))
      written.push(key)
    }
    t.teardown(async () => {
      const keys = [
        ...written,
        ...['lost', 'gone', 'Ok-Site', 'half'].flatMap((n) => [
          k.site(n),
          k.siteGrants(n),
          k.siteClaim(n.toLowerCase()),
        ]),
        ...['alice', 'bob'].flatMap((o) => [k.created(o), k.modified(o), k.externalUid(o, 'x1')]),
        ...['acc', 'ghost'].flatMap((a) => [k.account(a), k.accountGrants(a), k.accountClaim(a)]),
        k.grantPermissions('acc'),
      ]
      for (const key of keys) await c.del(key)
      await store.close()
    })

    await t.test(
      'crash after the claim (and the index step) of a create: nothing shows; taken over later',
      async (t) => {
        await claim(k.siteClaim('lost'), 'lost', 0)
        await c.zadd(k.created('alice'), 1000, 'lost')
        await c.zadd(k.modified('alice'), 1000, 'lost')
        await c.zadd(k.externalUid('alice', 'x1'), 1000, 'lost')
        t.equal(await store.getSite('lost'), undefined, 'the site reads as absent')
        t.strictSame(await store.listSites('alice', 'created', 0, 5000), [], 'no listing entry shows')
        t.strictSame(await store.listSites('alice', 'modified', 0, 5000), [])
        t.equal(await store.findSiteByExternalUid('alice', 'x1'), undefined, 'the external uid finds nothing')
        t.equal(await store.createSite(siteRecord('LOST', 'bob')), false, 'a young claim still holds the name')
        await sleep(700)
        t.equal(
          await store.createSite(siteRecord('Lost', 'bob')),
          true,
          'after claimTimeout the next create takes over',
        )
        t.equal((await store.getSite('Lost'))?.owner, 'bob')
        t.equal(await store.createSite(siteRecord('lost', 'alice')), false, 'and now holds the name, in any case')
        t.strictSame(await store.listSites('alice', 'created', 0, 5000), [], "the dead create's entry never shows")
      },
    )

    await t.test(
      'crash after the site step of a delete: nothing shows; the name is free after the timeout',
      async (t) => {
        t.equal(await store.createSite(siteRecord('gone', 'alice', { external_uid: 'x1' })), true)
        await c.del(k.site('gone')) // the site step of delete; the rest never ran
        t.equal(await store.getSite('gone'), undefined)
        t.strictSame(await store.listSites('alice', 'created', 0, Date.now() * 2), [])
        t.equal(await store.findSiteByExternalUid('alice', 'x1'), undefined)
        await c.hset(k.siteClaim('gone'), 'at', '0') // as if the claim had been made long ago
        t.equal(await store.createSite(siteRecord('gone', 'bob')), true, 'the stale claim is taken over')
      },
    )

    await t.test('half a grant (the site side only) is no grant; half an account create is no account', async (t) => {
      t.equal(await store.createSite(siteRecord('half', 'alice')), true)
      t.equal(await store.createAccount(accountRecord('acc', 'alice')), true)
      await c.sadd(k.siteGrants('half'), 'acc') // grant's first step; the account side never written
      t.strictSame(await store.listGrants('alice', 'acc'), [], 'listGrants does not count it')
      t.equal(await store.grantAccess('alice', 'acc', 'half'), 'ok')
      t.strictSame(await store.listGrants('alice', 'acc'), ['half'])
      await claim(k.accountClaim('ghost'), 'ghost', 0)
      t.equal(await store.getAccount('ghost'), undefined, 'a claimed account name without its record reads absent')
      t.equal(await store.createAccount(accountRecord('Ghost', 'bob')), false, 'while the claim is young')
      await sleep(700)
      t.equal(await store.createAccount(accountRecord('Ghost', 'bob')), true, 'then taken over')
      written.push(k.account('Ghost'), k.accountClaim('ghost'))
    })

    await t.test("a half grant's permissions: no grant until both sides, never outliving a revoke", async (t) => {
      // 'half' and 'acc' exist and are granted (previous test).
      t.equal(await store.grantAccess('alice', 'acc', 'half', ['EDIT']), 'ok')
      t.strictSame(await store.getGrant('alice', 'acc', 'half'), { permissions: ['EDIT'] })
      await c.srem(k.siteGrants('half'), 'acc') // revoke's first step; the account side never cleared
      t.equal(await store.getGrant('alice', 'acc', 'half'), 'no-grant', 'the account side alone is no grant')
      t.strictSame(await store.listGrants('alice', 'acc'), [], 'nor listed')
      t.equal(await store.grantAccess('alice', 'acc', 'half'), 'ok', 'granted again, without permissions')
      t.strictSame(await store.getGrant('alice', 'acc', 'half'), { permissions: null }, 'the old permissions are gone')
      t.equal(await store.revokeAccess('alice', 'acc', 'half'), 'ok')
      await c.sadd(k.siteGrants('half'), 'acc') // a grant's first step, the account side never written
      t.equal(await store.getGrant('alice', 'acc', 'half'), 'no-grant', 'the site side alone is no grant')
      t.equal(await c.hexists(k.grantPermissions('acc'), 'half'), 0, 'the revoke removed the permissions')
    })
  })
}
