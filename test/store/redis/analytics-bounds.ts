/**
 * RedisStore analytics stay bounded under a flood of new values: the keys a
 * site-day can make are bounded by the cardinality cap, every analytics key
 * written under a retention expires, and dimension reads never run as one
 * long script (they are short commands: see lib/store/redis/analytics-read.ts).
 */
import t from 'tap'
import { createEngine } from '../../../lib/index.js'
import { RedisStore } from '../../../lib/redis.js'
import { REDIS_URL, deleteUnder, keysUnder, randomPrefix, redisOrSkip } from '../../helpers/redis.js'

const admin = await redisOrSkip(t, 'Redis analytics bounds')

if (admin) {
  t.test('a random-value flood makes at most the cap worth of keys; every key expires', async (t) => {
    const prefix = randomPrefix('abounds')
    t.teardown(() => deleteUnder(admin, prefix))
    const engine = createEngine({
      store: new RedisStore({ url: REDIS_URL!, prefix }),
      now: () => new Date('2025-03-10T12:00:00Z'),
      maxDimensionValues: 5,
      analyticsRetentionDays: 30,
    })
    t.teardown(() => engine.close())
    await engine.addMasterAccount({ user: 'alice', password: 'alice-password-1' })
    await engine
      .as('alice')
      .createSite({ site_data: { site_name: 'flooded', original_site_url: 'https://x.example/' } })
    const before = new Set(await keysUnder(admin, prefix))
    const flood = Array.from({ length: 200 }, (_, i) =>
      engine.recordVisit({
        site_name: 'flooded',
        visitor_id: `v${i}`,
        country: `C${i}`,
        region: `${i}`,
        user_agent: `Agent/${i}`,
      }),
    )
    await Promise.all(flood)
    const made = (await keysUnder(admin, prefix)).filter((key) => !before.has(key))
    // The site's analytics keys are `prefix{s:flooded}:…`, its owner's ranking `prefix{o:alice}:…` (keys.ts).
    const tags = [`${prefix}{s:flooded}:`, `${prefix}{o:alice}:`]
    t.ok(made.length > 0 && made.every((key) => tags.some((tag) => key.startsWith(tag))), 'all under the two tags')
    t.ok(
      made.some((key) => key.startsWith(`${prefix}{o:alice}:rank:`)),
      'the owner ranking is written',
    )
    // A site-day is three keys whatever the flood: day counters, value sketches (fields), day sketch.
    const sketches = await admin.hlen(`${prefix}{s:flooded}:du:2025-03-10`)
    t.ok(sketches > 5, `the flood made per-value sketches: ${sketches}`)
    t.ok(sketches <= 2 * 6, `visitor sketches per value: ${sketches} ≤ 2 × (cap + 1)`)
    t.ok(made.length <= 7, `keys made by 200 new values: ${made.length} (3 per site-day, the indexes, the ranking)`)
    // Every key the recording made expires, the site's `aowner` included.
    for (const key of made) {
      const ttl = await admin.ttl(key)
      t.ok(ttl > 0 && ttl <= 30 * 86_400, `${key.slice(prefix.length)} expires (${ttl} s)`)
    }
    const rows = (await engine
      .as('alice')
      .siteAnalytics('flooded', { from: '2025-03-10', to: '2025-03-10', dimension: 'geo' })) as {
      dimension: { country: string }
      data: { VISITS: number; UNIQUE_VISITORS: number }
    }[]
    t.equal(rows.length, 6, 'five values and (other)')
    const other = rows.find((row) => row.dimension.country === '(other)')
    t.equal(other?.data.VISITS, 195, 'the rest of the flood under (other)')
    t.ok(Math.abs(other!.data.UNIQUE_VISITORS - 195) <= 4, 'with its distinct visitors')
  })
}
