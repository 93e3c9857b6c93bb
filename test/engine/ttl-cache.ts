/**
 * The verified-credential cache's container (lib/engine/auth/ttl-cache.ts): an
 * entry lives exactly its TTL, a full cache drops the least recently used,
 * and the options are checked as the lru-cache it replaced checked them.
 */
import t from 'tap'
import { TtlCache } from '../../lib/engine/auth/ttl-cache.js'

t.test('an entry lives for its TTL after it is set, and no longer', async (t) => {
  let now = 1000
  const cache = new TtlCache<string>(10, 100, () => now)
  cache.set('a', 'A')
  now += 100
  t.equal(cache.get('a'), 'A', 'at exactly the TTL it is still there')
  now += 1
  t.equal(cache.get('a'), undefined, 'older than the TTL it is gone')
  t.equal(cache.get('a'), undefined, 'and stays gone')
  cache.set('a', 'A2')
  now += 50
  t.equal(cache.get('a'), 'A2', 'setting again starts a new TTL')
  now += 60
  t.equal(cache.get('a'), undefined, 'reading does not extend it')
})

t.test('aging: whether the value just read has lived more than half its TTL', async (t) => {
  let now = 0
  const cache = new TtlCache<string>(10, 100, () => now)
  cache.set('a', 'A')
  now = 50
  t.equal(cache.get('a'), 'A')
  t.equal(cache.aging, false, 'at half its TTL it is not aging yet')
  now = 51
  t.equal(cache.get('a'), 'A')
  t.equal(cache.aging, true, 'past half its TTL it is')
  t.equal(cache.get('b'), undefined)
  t.equal(cache.aging, false, 'a miss is never aging')
  now = 101
  t.equal(cache.get('a'), undefined)
  t.equal(cache.aging, false, 'nor is an expired entry')
  cache.set('a', 'A2')
  t.equal(cache.get('a'), 'A2')
  t.equal(cache.aging, false, 'setting again makes it young')
})

t.test('a full cache drops the least recently used entry', async (t) => {
  const cache = new TtlCache<number>(3, 1000, () => 0)
  cache.set('a', 1)
  cache.set('b', 2)
  cache.set('c', 3)
  t.equal(cache.get('a'), 1, 'a read makes "a" the most recently used')
  cache.set('d', 4)
  t.equal(cache.get('b'), undefined, '"b" was the least recently used')
  t.same([cache.get('a'), cache.get('c'), cache.get('d')], [1, 3, 4])
  cache.set('c', 30)
  cache.set('e', 5)
  t.equal(cache.get('a'), undefined, 'setting an existing key makes it recent too')
  t.equal(cache.get('c'), 30)
})

t.test('deleteWhere and clear', async (t) => {
  const cache = new TtlCache<{ user: string }>(10, 1000, () => 0)
  cache.set('k1', { user: 'alice' })
  cache.set('k2', { user: 'bob' })
  cache.set('k3', { user: 'alice' })
  cache.deleteWhere((v) => v.user === 'alice')
  t.same([cache.get('k1'), cache.get('k2'), cache.get('k3')], [undefined, { user: 'bob' }, undefined])
  cache.clear()
  t.equal(cache.get('k2'), undefined)
})

t.test('max 0 is no bound; bad options throw as lru-cache did', async (t) => {
  const unbounded = new TtlCache<number>(0, 1000, () => 0)
  for (let i = 0; i < 100; i++) unbounded.set(`k${i}`, i)
  t.equal(unbounded.get('k0'), 0, 'nothing evicted')
  for (const max of [-1, 1.5, Number.NaN]) {
    t.throws(() => new TtlCache(max, 1000), new TypeError('max option must be a nonnegative integer'), `max ${max}`)
  }
  for (const ttl of [0, 1.5, Number.POSITIVE_INFINITY]) {
    t.throws(() => new TtlCache(10, ttl), new TypeError('ttl must be a positive integer if specified'), `ttl ${ttl}`)
  }
})
