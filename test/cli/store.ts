/**
 * Which store the CLI serves on (`--store` > MOBISITE_STORE > REDIS_URL >
 * DATABASE_URL), and that the line it prints never shows a store password.
 * The last test starts the real CLI on Redis (skipped without REDIS_URL).
 */
import t, { type Test } from 'tap'
import { chooseStore, shownUrl } from '../../lib/cli/store.js'
import { startCli, stop } from '../helpers/cli.js'
import { deleteUnder, randomPrefix, REDIS_URL, redisOrSkip } from '../helpers/redis.js'

t.test('the store choice: --store, then MOBISITE_STORE, then REDIS_URL, then DATABASE_URL', async (t) => {
  const env = { REDIS_URL: 'redis://r', DATABASE_URL: 'postgres://d', MOBISITE_STORE: 'postgres://m' }
  t.strictSame(chooseStore('redis://a', env), { kind: 'redis', url: 'redis://a' })
  t.strictSame(chooseStore('memory', env), { kind: 'memory' })
  t.strictSame(chooseStore(undefined, env), { kind: 'postgres', url: 'postgres://m' })
  t.strictSame(chooseStore(undefined, { ...env, MOBISITE_STORE: '' }), { kind: 'redis', url: 'redis://r' })
  t.strictSame(chooseStore(undefined, { DATABASE_URL: 'postgresql://d' }), { kind: 'postgres', url: 'postgresql://d' })
  t.strictSame(chooseStore(undefined, {}), { kind: 'memory' })
  t.strictSame(chooseStore('redis-cluster://h1:7000,h2:7001', {}), {
    kind: 'redis',
    url: 'redis-cluster://h1:7000,h2:7001',
  })
  t.throws(() => chooseStore('mysql://x', {}), /unknown store "mysql:\/\/x"/)
})

t.test('a printed store URL hides its password and nothing else', async (t) => {
  for (const [url, shown] of [
    ['redis://:sekret@127.0.0.1:6379/2', 'redis://:***@127.0.0.1:6379/2'],
    ['rediss://user:sekret@cache.example.com', 'rediss://user:***@cache.example.com'],
    ['postgres://app:se%40cret@db:5432/test', 'postgres://app:***@db:5432/test'],
    ['postgresql://app@db/test', 'postgresql://app@db/test'],
    ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379'],
    ['redis://h/0?password=x:y@z', 'redis://h/0?password=x:y@z'],
    ['redis-cluster://:sekret@h1:7000,h2:7001', 'redis-cluster://:***@h1:7000,h2:7001'],
  ] as const) {
    t.equal(shownUrl(url), shown, url)
  }
})

t.test('npm start on Redis does not print the Redis password', async (t) => {
  const admin = await redisOrSkip(t, 'the CLI on Redis')
  if (!admin) return
  // The shared Redis has no password; ioredis warns and goes on when given one.
  const url = new URL(REDIS_URL!)
  url.password = 'sekret-in-url'
  const prefix = randomPrefix('cli')
  t.teardown(() => deleteUnder(admin, prefix))
  const cli = await startCli(t, ['--store', url.toString()], /^try:/, { MOBISITE_REDIS_PREFIX: prefix })
  await stop(cli)
  const output = cli.output()
  t.match(output, /mobisite API: .*Redis store at redis:\/\/:\*\*\*@/, 'the store line names Redis, password hidden')
  t.match(output, `key prefix ${prefix}`, 'and the key prefix')
  t.notMatch(output, /sekret-in-url/, 'the password appears nowhere')
})

/** Starts the CLI on `store`, waits for the end of its banner, stops it; resolves with what it printed on stderr. */
async function bannerOf(t: Test, store: string, prefix: string, password?: string): Promise<string> {
  const cli = await startCli(t, ['--store', store], /^logs:/, {
    MOBISITE_REDIS_PREFIX: prefix,
    ...(password === undefined ? {} : { MOBISITE_PASSWORD: password }),
  })
  await stop(cli)
  return cli.stderr()
}

t.test('a restart on Redis with a generated password: no command that cannot work, and how to set one', async (t) => {
  const admin = await redisOrSkip(t, 'the CLI banner on Redis')
  if (!admin) return
  const prefix = randomPrefix('cli-banner')
  t.teardown(() => deleteUnder(admin, prefix))
  const first = await bannerOf(t, REDIS_URL!, prefix)
  const generated = /^password: ([0-9a-f]+) \(generated\)$/m.exec(first)?.[1]
  t.ok(generated, 'the first start generates and shows a password')
  t.match(first, `curl -u 'admin:${generated}'`, 'and its curl lines use it')

  const second = await bannerOf(t, REDIS_URL!, prefix)
  t.notMatch(second, generated!, 'the restart does not know (or show) the password')
  t.notMatch(second, /curl/, 'so it prints no curl line: none could work')
  t.notMatch(second, /\$MOBISITE_PASSWORD/, 'nor one that reads a variable nobody set')
  t.match(second, /restart with MOBISITE_PASSWORD=/, 'it says how to set a password instead')

  const third = await bannerOf(t, REDIS_URL!, prefix, 'chosen-pw')
  t.match(third, 'password: from MOBISITE_PASSWORD (not shown)', 'a password given at restart applies')
  t.match(third, `curl -u 'admin:'"$MOBISITE_PASSWORD"`, 'and the curl lines read it from the shell')
})
