/**
 * What bulk loads rely on: the ordered index behind listings stays exact
 * through thousands of entries sharing one time (a frozen test clock), and a
 * MemoryStore that keeps creation properties without a second copy still
 * restores them exactly on Recreate and never shares objects with callers.
 */
import fc from 'fast-check'
import t from 'tap'
import { checkProperty, replayable } from '../helpers/fuzz-seed.js'
import { type CreateSiteBody, createEngine, MemoryStore } from '../../lib/index.js'
import { OrderedIndex } from '../../lib/store/memory/ordered-index.js'

replayable(t, import.meta.url)

/** The reference: a plain list sorted by (time, name). */
function modelRange(entries: Map<string, number>, from: number, to: number): string[] {
  return [...entries]
    .filter(([, time]) => time >= from && time <= to)
    .sort(([a, ta], [b, tb]) => ta - tb || (a < b ? -1 : a > b ? 1 : 0))
    .map(([name]) => name)
}

t.test('OrderedIndex equals a sorted list through inserts, removes and ranges, across many blocks', async (t) => {
  const op = fc.oneof(
    fc.record({
      kind: fc.constant('insert' as const),
      time: fc.integer({ min: 0, max: 3 }),
      name: fc.integer({ min: 0, max: 3000 }),
    }),
    fc.record({
      kind: fc.constant('remove' as const),
      time: fc.integer({ min: 0, max: 3 }),
      name: fc.integer({ min: 0, max: 3000 }),
    }),
  )
  checkProperty(
    import.meta.url,
    fc.property(
      fc.array(op, { minLength: 1, maxLength: 4000 }),
      fc.integer({ min: -1, max: 4 }),
      fc.integer({ min: -1, max: 4 }),
      (ops, from, to) => {
        const idx = new OrderedIndex()
        const model = new Map<string, number>()
        for (const { kind, time, name } of ops) {
          const key = `s${name}`
          if (kind === 'insert') {
            idx.insert(time, key)
            if (!model.has(key)) model.set(key, time)
            else if (model.get(key) !== time) {
              // The index holds (time, name) pairs; a name at two times is two entries. Keep the model to one time per name.
              idx.remove(time, key)
            }
          } else if (model.get(key) === time) {
            if (!idx.remove(time, key)) return false
            model.delete(key)
          } else if (idx.remove(time, key)) return false
        }
        if (idx.size !== model.size) return false
        const got = idx.range(from, to)
        const want = modelRange(model, from, to)
        return got.length === want.length && got.every((name, i) => name === want[i])
      },
    ),
    { numRuns: 60 },
  )
  t.pass('60 random histories of up to 4,000 operations matched the sorted list')
})

t.test('OrderedIndex: 20,000 entries at one time, in name order; removing every other one', async (t) => {
  const idx = new OrderedIndex()
  const names = Array.from({ length: 20_000 }, (_, i) => `site-${i}`)
  for (const name of names) idx.insert(7, name)
  const sorted = [...names].sort()
  t.strictSame(idx.range(7, 7), sorted)
  t.strictSame(idx.range(0, 6), [])
  t.strictSame(idx.range(8, 9), [])
  const refused = sorted.filter((name, i) => i % 2 === 0 && !idx.remove(7, name))
  t.strictSame(refused, [], 'every present entry is removed')
  t.strictSame(
    idx.range(-Infinity, Infinity),
    sorted.filter((_, i) => i % 2 === 1),
  )
  for (let i = 1; i < sorted.length; i += 2) idx.remove(7, sorted[i]!)
  t.equal(idx.size, 0)
  t.strictSame(idx.range(-Infinity, Infinity), [], 'empty again')
  idx.insert(1, 'again')
  t.strictSame(idx.range(-Infinity, Infinity), ['again'], 'usable after emptying')
})

t.test(
  'a frozen clock: 5,000 sites created at one instant are listed in name order, and deletes keep the listing exact',
  async (t) => {
    const frozen = new Date(Date.UTC(2025, 5, 1, 12))
    const engine = createEngine({ now: () => frozen })
    t.teardown(() => engine.close())
    await engine.addMasterAccount({ user: 'seed', password: 'pw' })
    const api = engine.as('seed')
    const names = Array.from({ length: 5000 }, (_, i) => `bulk-${i}`)
    for (const site_name of names)
      await api.createSite({ site_data: { site_name, original_site_url: 'https://www.example.com/' } })
    const listed = (await api.sitesCreated({ from: '2025-06-01', to: '2025-06-02' })).map((s) => s.site_name)
    t.strictSame(listed, [...names].sort(), 'every site, ties by name')
    for (let i = 0; i < names.length; i += 3) await api.deleteSite(names[i]!)
    const left = names.filter((_, i) => i % 3 !== 0).sort()
    t.strictSame(
      (await api.sitesModified({ from: '2025-06-01', to: '2025-06-02' })).map((s) => s.site_name),
      left,
    )
    t.strictSame(
      (await api.sitesCreated({ from: '2025-06-01', to: '2025-06-02' })).map((s) => s.site_name),
      left,
    )
  },
)

t.test(
  'Recreate restores the creation properties exactly; stored records never share objects with callers',
  async (t) => {
    let now = Date.UTC(2025, 5, 1)
    const store = new MemoryStore()
    const engine = createEngine({ store, now: () => new Date((now += 1000)) })
    t.teardown(() => engine.close())
    await engine.addMasterAccount({ user: 'owner', password: 'pw' })
    const api = engine.as('owner')
    const business = {
      business_name: 'Shop',
      phone_number: '+1 555 0100',
      address: { street: '1 Main St', city: 'Springfield', country: 'US' },
      reservation_info: [{ restaurant_id: 'r-1', location: 'Downtown', country: 'US' }],
    }
    const body: CreateSiteBody = {
      site_data: {
        site_name: 'restore1',
        original_site_url: 'https://www.example.com/',
        site_domain: 'm.example.com',
        auto_sync_cache_ttl: 'LONG',
        site_vertical: 'food',
        site_business_info: business,
        external_uid: 'ext-1',
      },
    }
    await api.createSite(body)
    const created = await api.getSite('restore1')
    // What the caller gave and what it got back are its own: changing them changes nothing stored.
    business.address.city = 'Shelbyville'
    ;(created.site_business_info as { address: { city: string } }).address.city = 'Capital City'
    const again = await api.getSite('restore1')
    t.equal(
      (again.site_business_info as { address: { city: string } }).address.city,
      'Springfield',
      'no object is shared with the caller',
    )
    t.strictSame(
      (await store.getSite('restore1'))!.initial.site_business_info,
      (await store.getSite('restore1'))!.site_business_info,
    )
    const record = (await store.getSite('restore1'))!
    ;(record.initial.site_business_info as { business_name: string }).business_name = 'Changed through a read'
    t.equal(
      (await api.getSite('restore1')).site_business_info?.business_name,
      'Shop',
      'a record read from the store is a copy',
    )

    await api.updateSite('restore1', {
      site_domain: 'other.example.com',
      original_site_url: 'https://new.example.com/',
      auto_sync_cache_ttl: 'VERY_SHORT',
      external_uid: 'ext-2',
    })
    const updated = await api.getSite('restore1')
    t.equal(updated.site_domain, 'other.example.com')
    t.equal(updated.original_site_url, 'https://new.example.com/')
    await api.recreateSite('restore1', {})
    const restored = await api.getSite('restore1')
    t.strictSame(restored, again, 'every creation property back, nested business info included')
    t.equal(
      (await api.getSiteByExternalUid('ext-1')).site_name,
      'restore1',
      'the external uid index follows the restore',
    )
    await t.rejects(api.getSiteByExternalUid('ext-2'), { name: 'ServiceError' })
  },
)
