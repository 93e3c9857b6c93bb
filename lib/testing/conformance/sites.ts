/**
 * Conformance groups for sites: create-if-absent, reads, patches, the
 * external-uid index and the created/modified listings.
 */
import { T0, TRICKY_NAMES, at, fullSiteRecord, open, siteRecord } from './fixtures.js'
import type { StoreFactory, Tap } from './fixtures.js'

/** Registers the site groups on `t`. */
export function siteGroups(t: Tap, factory: StoreFactory): void {
  t.test('createSite / getSite / getSites', async (t) => {
    const store = await open(t, factory)
    const full = fullSiteRecord('fullsite', 'alice')
    t.equal(await store.createSite(full), true, 'a free name is created')
    t.strictSame(await store.getSite('fullsite'), full, 'every field, nested data included, round-trips')

    t.equal(await store.createSite(siteRecord('fullsite', 'alice')), false, 'the same owner cannot take it twice')
    t.equal(await store.createSite(siteRecord('fullsite', 'bob')), false, 'names are global across owners')
    t.strictSame(await store.getSite('fullsite'), full, 'a refused create changes nothing')

    const text = {
      ...fullSiteRecord('textsite', 'alice'),
      site_vertical: 'Café 東京 😀 "quoted" \\ back\u2028 {"a":1} __proto__',
      site_vertical_category: '',
      external_uid: 'ext-text',
    }
    await store.createSite(text)
    t.strictSame(await store.getSite('textsite'), text, 'any text, escapes and all, round-trips')

    t.equal(await store.getSite('missing'), undefined, 'unknown name')
    t.equal(await store.getSite('FULLSITE'), undefined, 'names are case-sensitive')

    const sparse = { ...siteRecord('sparse', 'alice'), preview_site_url: undefined, external_uid: undefined }
    t.equal(await store.createSite(sparse), true)
    const got = await store.getSite('sparse')
    t.notOk(got && 'preview_site_url' in got, 'a key holding undefined is stored as absent')
    t.notOk(got && 'external_uid' in got)

    t.strictSame(
      (await store.getSites(['sparse', 'missing', 'fullsite', 'sparse'])).map((s) => s?.site_name),
      ['sparse', undefined, 'fullsite', 'sparse'],
      'getSites answers in request order, undefined for a missing name, duplicates repeated',
    )
    t.strictSame(await store.getSites([]), [])
    const [a, b] = await store.getSites(['fullsite', 'fullsite'])
    t.not(a, b, 'duplicates are separate copies')
  })

  t.test('tricky names are ordinary data', async (t) => {
    const store = await open(t, factory)
    for (const name of TRICKY_NAMES) {
      t.equal(await store.getSite(name), undefined, `getSite(${name}) on an empty store`)
      t.strictSame(await store.listSites(name, 'created', 0, Number.MAX_SAFE_INTEGER), [])
      t.equal(await store.findSiteByExternalUid(name, name), undefined)
      t.equal(await store.updateSite(name, name, { site_domain: 'x.example' }), undefined)
      t.equal(await store.publishSite(name, name, T0, true), undefined)
      t.equal(await store.deleteSite(name, name), false)
    }
    for (const name of TRICKY_NAMES) {
      t.equal(await store.createSite(siteRecord(name, name, { external_uid: name })), true, `create ${name}`)
    }
    for (const name of TRICKY_NAMES) {
      t.equal((await store.getSite(name))?.owner, name)
      t.equal((await store.findSiteByExternalUid(name, name))?.site_name, name)
      t.strictSame(await store.listSites(name, 'created', T0, T0), [name], 'each owner sees only its site')
      t.same(await store.publishSite(name, name, at(1), true), { charged: true })
    }
    for (const name of TRICKY_NAMES) {
      t.equal(await store.deleteSite(name, name), true)
      t.equal(await store.getSite(name), undefined)
    }
  })

  t.test('returned records are copies', async (t) => {
    const store = await open(t, factory)
    const input = fullSiteRecord('copies', 'alice')
    const snapshot = structuredClone(input)
    await store.createSite(input)
    input.original_site_url = 'https://mutated.example/'
    input.site_business_info!.address!.city = 'Mutated'
    input.initial.site_vertical = 'mutated'
    t.strictSame(await store.getSite('copies'), snapshot, 'mutating the input after createSite changes nothing')

    const mutateAll = (s: typeof input | undefined): void => {
      if (!s) return
      s.site_domain = 'mutated.example'
      s.site_business_info!.reservation_info!.push({ location: 'Mutated' })
      s.initial.original_site_url = 'https://mutated.example/'
    }
    mutateAll(await store.getSite('copies'))
    for (const s of await store.getSites(['copies'])) mutateAll(s)
    mutateAll(await store.findSiteByExternalUid('alice', 'ext-full'))
    mutateAll(await store.updateSite('alice', 'copies', { cache_reset_at: snapshot.cache_reset_at }))
    t.strictSame(await store.getSite('copies'), snapshot, 'mutating any returned record changes nothing')

    const listed = await store.listSites('alice', 'created', 0, Number.MAX_SAFE_INTEGER)
    listed.push('intruder')
    t.strictSame(await store.listSites('alice', 'created', 0, Number.MAX_SAFE_INTEGER), ['copies'])
  })

  t.test('updateSite', async (t) => {
    const store = await open(t, factory)
    const base = fullSiteRecord('upd', 'alice')
    await store.createSite(base)

    const updated = await store.updateSite('alice', 'upd', {
      site_domain: 'new.example',
      auto_sync_cache_ttl: 'VERY_LONG',
      preview_site_url: null,
      published_at: null,
      site_vertical: undefined,
      site_business_info: { business_name: 'Only name' },
    })
    const expected = { ...structuredClone(base), site_domain: 'new.example', auto_sync_cache_ttl: 'VERY_LONG' as const }
    delete expected.preview_site_url
    delete expected.published_at
    expected.site_business_info = { business_name: 'Only name' }
    t.strictSame(
      updated,
      expected,
      'set, removed by null, left alone when absent or undefined; nested values replaced whole',
    )
    t.strictSame(await store.getSite('upd'), expected, 'the update is stored')
    t.notOk('preview_site_url' in (updated ?? {}), 'a removed key is absent, not null')
    t.equal(updated?.first_published_at, base.first_published_at, 'unpublishing keeps first_published_at')

    const initial = { original_site_url: 'https://other.example/', auto_sync_cache_ttl: 'SHORT' as const }
    const restored = await store.updateSite('alice', 'upd', { initial, build: 'built', publish_when_built: null })
    t.strictSame(restored?.initial, initial, 'initial can be replaced')
    t.equal(restored?.build, 'built')
    t.notOk('publish_when_built' in (restored ?? {}))

    const before = await store.getSite('upd')
    const foreign = await store.updateSite('bob', 'upd', { site_domain: 'stolen.example' })
    t.equal(foreign, undefined, "another owner's site is not found")
    t.equal(await store.updateSite('alice', 'nope', { site_domain: 'x.example' }), undefined, 'missing site')
    t.strictSame(await store.getSite('upd'), before, 'refused updates change nothing')
    t.strictSame(await store.getSite('nope'), undefined, 'updating a missing site does not create it')
    t.strictSame(await store.updateSite('alice', 'upd', {}), before, 'an empty patch returns the record unchanged')
  })

  t.test('findSiteByExternalUid', async (t) => {
    const store = await open(t, factory)
    /** The name of the site found, or undefined. */
    const found = async (owner: string, uid: string) => (await store.findSiteByExternalUid(owner, uid))?.site_name
    // Created in call order newest-first, so "most recently created" must come from created_at.
    await store.createSite(siteRecord('newer', 'alice', { external_uid: 'shared', created_at: at(20) }))
    await store.createSite(siteRecord('older', 'alice', { external_uid: 'shared', created_at: at(10) }))
    await store.createSite(siteRecord('bobsite', 'bob', { external_uid: 'shared', created_at: at(30) }))
    await store.createSite(siteRecord('plain', 'alice', { created_at: at(40) }))

    t.equal(await found('alice', 'shared'), 'newer', 'the most recently created')
    t.equal(await found('bob', 'shared'), 'bobsite', 'only the owner’s sites')
    t.equal(await store.findSiteByExternalUid('carol', 'shared'), undefined, 'another owner sees nothing')
    t.equal(await store.findSiteByExternalUid('alice', 'missing'), undefined)
    t.strictSame(await store.findSiteByExternalUid('alice', 'shared'), await store.getSite('newer'), 'the full record')

    await store.updateSite('alice', 'newer', { site_domain: 'm.example' })
    t.equal(await found('alice', 'shared'), 'newer', 'other updates keep the entry')

    await store.updateSite('alice', 'newer', { external_uid: 'moved' })
    t.equal(await found('alice', 'shared'), 'older', 'a changed uid leaves the old entry')
    t.equal(await found('alice', 'moved'), 'newer', 'and is found under the new one')

    await store.updateSite('alice', 'plain', { external_uid: 'shared' })
    t.equal(await found('alice', 'shared'), 'plain', 'a uid added by update is indexed')

    await store.updateSite('alice', 'plain', { external_uid: null })
    t.equal(await found('alice', 'shared'), 'older', 'a uid removed by null leaves the index')

    await store.updateSite('bob', 'older', { external_uid: 'hijack' })
    t.equal(await found('bob', 'hijack'), undefined, "a refused update does not index another owner's site")

    t.equal(await store.deleteSite('alice', 'older'), true)
    t.equal(await store.findSiteByExternalUid('alice', 'shared'), undefined, 'a deleted site leaves the index')
    t.equal(await found('alice', 'moved'), 'newer')
  })

  t.test('listSites: ordered index, inclusive ranges', async (t) => {
    const store = await open(t, factory)
    // 40 sites whose times repeat, so ties by name are exercised; created out of order.
    const fixtures = Array.from({ length: 40 }, (_, i) => {
      const n = (i * 17) % 40
      return {
        name: `site-${String(n).padStart(2, '0')}`,
        created: at((n * 7) % 11),
        modified: at(100 + ((n * 3) % 13)),
      }
    })
    for (const f of fixtures) {
      await store.createSite(siteRecord(f.name, 'alice', { created_at: f.created, modified_at: f.modified }))
    }
    await store.createSite(siteRecord('bob-site', 'bob', { created_at: at(5), modified_at: at(105) }))

    const expected = (by: 'created' | 'modified', from: number, to: number): string[] =>
      fixtures
        .filter((f) => f[by] >= from && f[by] <= to)
        .sort((a, b) => a[by] - b[by] || (a.name < b.name ? -1 : 1))
        .map((f) => f.name)
    const ranges: [number, number][] = [
      [at(0), at(10)],
      [at(3), at(3)],
      [at(3), at(7)],
      [at(3) + 1, at(7) - 1],
      [at(-50), at(500)],
      [at(11), at(99)],
      [at(100), at(112)],
      [at(104), at(104)],
    ]
    for (const [from, to] of ranges) {
      for (const by of ['created', 'modified'] as const) {
        const got = await store.listSites('alice', by, from, to)
        t.strictSame(got, expected(by, from, to), `${by} in [${(from - T0) / 1000}s, ${(to - T0) / 1000}s]`)
      }
    }
    t.ok((await store.listSites('alice', 'created', at(3), at(3))).length > 1, 'the fixture has ties')
    t.strictSame(await store.listSites('alice', 'created', at(7), at(3)), [], 'from after to: nothing')
    t.strictSame(await store.listSites('bob', 'created', 0, Number.MAX_SAFE_INTEGER), ['bob-site'])
    t.strictSame(await store.listSites('carol', 'modified', 0, Number.MAX_SAFE_INTEGER), [], 'unknown owner')
  })

  t.test('listSites: the modification index follows modified_at', async (t) => {
    const store = await open(t, factory)
    await store.createSite(siteRecord('m1', 'alice', { created_at: at(1), modified_at: at(1) }))
    await store.createSite(siteRecord('m2', 'alice', { created_at: at(2), modified_at: at(2) }))
    const modified = (from: number, to: number) => store.listSites('alice', 'modified', from, to)

    await store.updateSite('alice', 'm1', { modified_at: at(50) })
    t.strictSame(await modified(at(0), at(10)), ['m2'], 'moved away from its old time')
    t.strictSame(await modified(at(0), at(100)), ['m2', 'm1'], 'and ordered by its new time')
    t.strictSame(
      await store.listSites('alice', 'created', at(0), at(10)),
      ['m1', 'm2'],
      'the created index does not move',
    )

    await store.publishSite('alice', 'm2', at(60), false)
    t.strictSame(await modified(at(55), at(65)), ['m2'], 'publishSite sets modified_at')
    t.equal((await store.getSite('m2'))?.modified_at, at(60))
    t.strictSame(await modified(at(0), at(10)), [])

    await store.updateSite('alice', 'm2', { site_domain: 'x.example' })
    t.strictSame(await modified(at(60), at(60)), ['m2'], 'a patch without modified_at does not move it')

    await store.updateSite('alice', 'm1', { modified_at: at(60) })
    t.strictSame(await modified(at(60), at(60)), ['m1', 'm2'], 'ties by name')

    await store.updateSite('bob', 'm1', { modified_at: at(90) })
    t.strictSame(await modified(at(90), at(90)), [], "another owner's update does not move it")

    await store.deleteSite('alice', 'm1')
    t.strictSame(await modified(0, Number.MAX_SAFE_INTEGER), ['m2'], 'a deleted site leaves the modification index')
    t.strictSame(
      await store.listSites('alice', 'created', 0, Number.MAX_SAFE_INTEGER),
      ['m2'],
      'and the creation index',
    )
  })

  t.test('createSite: 50 parallel creates of one name, exactly one wins', async (t) => {
    const store = await open(t, factory)
    const owners = Array.from({ length: 50 }, (_, i) => `owner-${i}`)
    const results = await Promise.all(owners.map((o) => store.createSite(siteRecord('contested', o))))
    t.equal(results.filter(Boolean).length, 1, 'exactly one true')
    const winner = owners[results.indexOf(true)] as string
    t.equal((await store.getSite('contested'))?.owner, winner, 'the stored site is the winner’s')
    for (const o of owners) {
      const listed = await store.listSites(o, 'created', 0, Number.MAX_SAFE_INTEGER)
      t.strictSame(listed, o === winner ? ['contested'] : [], `only the winner's index holds it (${o})`)
    }
  })
}
