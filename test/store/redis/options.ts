/**
 * RedisStore options that are refused before any connection is made, so this
 * file needs no Redis: the settled edges of the prefix and the cluster URL
 * (docs/redis.md). The suites that talk to a server are redis-store.ts and
 * redis-cluster-store.ts.
 */
import t from 'tap'
import { RedisStore } from '../../../lib/store/redis/store.js'

t.test('a prefix with a brace is refused, whatever the store talks to', async (t) => {
  t.throws(() => new RedisStore({ url: 'redis-cluster://127.0.0.1:1', prefix: 'a{b}:' }), /may not contain/)
  t.throws(() => new RedisStore({ url: 'redis://127.0.0.1:1', prefix: 'a}' }), /may not contain/)
  t.throws(() => new RedisStore({ url: 'redis-cluster://' }), /redis-cluster/)
})
