/**
 * Sites over HTTP: create (named and generated), retrieve, retrieve by
 * external id, update, delete and get-many (docs/api.md, Sites).
 * Limits and input validation are in sites-limits.ts.
 */
import t from 'tap'
import { createSite, isEmpty, isError, isInvalid, isMissing, setup, siteBody } from '../helpers/api.js'

const FULL = {
  original_site_url: 'https://www.example.com/',
  preview_site_url: 'https://preview.example.com/draft',
  site_domain: 'm.example.com',
  auto_sync_cache_ttl: 'LONG',
  site_vertical: 'restaurant',
  site_vertical_category: 'pizza',
  site_business_info: {
    business_name: 'Pizza Place',
    phone_number: '+1 555 0100',
    address: { street: '1 Main St', city: 'Springfield', state: 'IL', country: 'US', zip_code: '62701' },
    reservation_info: [{ restaurant_id: 'r1', location: 'Downtown', country: 'US' }],
  },
  external_uid: 'ext-1',
}

t.test('create then retrieve: the site as given, defaults filled, absent keys absent', async (t) => {
  const { alice } = await setup(t)
  const res = await alice.post('/sites/create', siteBody('myshop'))
  t.equal(res.status, 200)
  t.match(res.headers['content-type'], /^application\/json/)
  t.same(res.body, { site_name: 'myshop' })

  const got = await alice.get('/sites/myshop')
  t.equal(got.status, 200)
  t.strictSame(got.body, {
    site_name: 'myshop',
    original_site_url: 'https://www.example.com/',
    auto_sync_cache_ttl: 'SHORT',
  })
  t.notMatch(got.text, /:null\b/, 'no null value anywhere')
})

t.test('create with every field: retrieve returns them all, business info as site_business_info', async (t) => {
  const { alice } = await setup(t)
  await createSite(t, alice, 'fullsite', FULL)
  const got = await alice.get('/sites/fullsite')
  t.equal(got.status, 200)
  t.strictSame(got.body, { site_name: 'fullsite', ...FULL })
})

t.test('retrieve by external id: the summary fields, no preview_site_url', async (t) => {
  const { alice } = await setup(t)
  await createSite(t, alice, 'fullsite', FULL)
  const res = await alice.get('/sites/byexternal/ext-1')
  t.equal(res.status, 200)
  const { preview_site_url: _omitted, ...summary } = FULL
  t.strictSame(res.body, { site_name: 'fullsite', ...summary })
  isMissing(t, await alice.get('/sites/byexternal/nope'), 'unknown external_uid')
})

t.test('retrieve by external id follows updates of external_uid', async (t) => {
  const { alice } = await setup(t)
  await createSite(t, alice, 'movable', { external_uid: 'old-uid' })
  isEmpty(t, await alice.post('/sites/update/movable', { external_uid: 'new-uid' }))
  isMissing(t, await alice.get('/sites/byexternal/old-uid'), 'old uid gone')
  const res = await alice.get('/sites/byexternal/new-uid')
  t.equal(res.body.site_name, 'movable')
  isEmpty(t, await alice.del('/sites/movable'))
  isMissing(t, await alice.get('/sites/byexternal/new-uid'), 'deleted site not found by uid')
})

t.test('retrieve of a missing site is 400 ResourceNotExist naming it', async (t) => {
  const { alice } = await setup(t)
  const message = isMissing(t, await alice.get('/sites/ghostsite'))
  t.match(message, /ghostsite/)
})

t.test('generated names derive from the desktop host and stay unique', async (t) => {
  const { alice } = await setup(t)
  const first = await createSite(t, alice, undefined, { original_site_url: 'https://www.example.com/shop?x=1' })
  t.equal(first, 'examplecom')
  const second = await createSite(t, alice, undefined, { original_site_url: 'http://example.com' })
  t.match(second, /^examplecom-[a-z0-9]{4}$/, 'a short suffix when taken')
  t.not(second, first)
  t.equal((await alice.get(`/sites/${second}`)).body.original_site_url, 'http://example.com')

  const longHost = `https://${'x'.repeat(60)}.example.org/`
  const long = await createSite(t, alice, undefined, { original_site_url: longHost })
  t.ok(long.length >= 4 && long.length <= 45, `generated ${long} has 4..45 chars`)
  const longAgain = await createSite(t, alice, undefined, { original_site_url: longHost })
  t.ok(longAgain.length <= 45 && longAgain !== long, 'suffixed long name still within 45')

  const tiny = await createSite(t, alice, undefined, { original_site_url: 'http://a.io' })
  t.match(tiny, /^[A-Za-z0-9_-]{4,45}$/, 'a short host still gives a valid name')
  for (const name of [first, second, long, longAgain, tiny]) {
    t.equal((await alice.get(`/sites/${name}`)).status, 200, `${name} retrievable`)
  }
})

t.test('site lookups are exact and case-sensitive; names are unique regardless of case', async (t) => {
  const { alice } = await setup(t)
  await createSite(t, alice, 'CaseName')
  isMissing(t, await alice.get('/sites/casename'), 'other case is another name')
  isError(
    t,
    await alice.post('/sites/create', siteBody('casename')),
    400,
    'ResourceAlreadyExist',
    'but cannot be created beside it',
  )
  t.equal((await alice.get('/sites/CaseName')).body.site_name, 'CaseName')
})

t.test('__proto__, constructor and other Object names are ordinary site names and uids', async (t) => {
  const { alice } = await setup(t)
  const names = ['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'prototype']
  for (const name of names) await createSite(t, alice, name, { external_uid: name })
  for (const name of names) {
    const res = await alice.get(`/sites/${name}`)
    t.equal(res.status, 200, `${name} retrieved`)
    t.equal(res.body.site_name, name)
    t.equal((await alice.get(`/sites/byexternal/${name}`)).body.site_name, name, `${name} found by uid`)
  }
  const many = await alice.post(
    '/sites/get-many',
    names.map((site_name) => ({ site_name })),
  )
  t.equal(many.status, 200)
  t.same(
    many.body.map((s: { site_name: string }) => s.site_name),
    names,
  )
  isMissing(t, await alice.get('/sites/valueOf'), 'valueOf was never created')
  isEmpty(t, await alice.del('/sites/__proto__'))
  isMissing(t, await alice.get('/sites/__proto__'), 'deleted __proto__')
  t.equal((await alice.get('/sites/constructor')).status, 200, 'others untouched')
})

t.test('update: each field changes, others stay, modified listing aside', async (t) => {
  const { alice } = await setup(t)
  await createSite(t, alice, 'editme', FULL)
  isEmpty(t, await alice.post('/sites/update/editme', { site_domain: 'mobile.example.org' }))
  isEmpty(
    t,
    await alice.post('/sites/update/editme', {
      original_site_url: 'https://new.example.org/',
      auto_sync_cache_ttl: 'VERY_SHORT',
    }),
  )
  isEmpty(t, await alice.post('/sites/update/editme', { external_uid: 'ext-2' }))
  const got = await alice.get('/sites/editme')
  t.strictSame(got.body, {
    ...FULL,
    site_name: 'editme',
    site_domain: 'mobile.example.org',
    original_site_url: 'https://new.example.org/',
    auto_sync_cache_ttl: 'VERY_SHORT',
    external_uid: 'ext-2',
  })
})

t.test('update: missing site, empty body, fields it does not take', async (t) => {
  const { alice } = await setup(t)
  await createSite(t, alice, 'editme')
  isMissing(t, await alice.post('/sites/update/nosuchsite', { site_domain: 'a.example.com' }))
  isInvalid(t, await alice.post('/sites/update/editme', {}), 'no field')
  isInvalid(t, await alice.post('/sites/update/editme'), 'no body')
  for (const field of ['site_name', 'preview_site_url', 'site_vertical', 'site_business_info', 'color']) {
    const message = isInvalid(t, await alice.post('/sites/update/editme', { [field]: 'x' }), `update ${field}`)
    t.match(message, new RegExp(field), `message names ${field}`)
  }
  isInvalid(t, await alice.post('/sites/update/editme', { auto_sync_cache_ttl: 'FOREVER' }), 'bad ttl')
  isInvalid(t, await alice.post('/sites/update/editme', { site_domain: 'not a domain' }), 'bad domain')
  isInvalid(t, await alice.post('/sites/update/editme', { original_site_url: 'ftp://example.com/' }), 'ftp url')
  isInvalid(t, await alice.post('/sites/update/editme', [{ site_domain: 'a.example.com' }]), 'array body')
  const got = await alice.get('/sites/editme')
  t.strictSame(
    got.body,
    { site_name: 'editme', original_site_url: 'https://www.example.com/', auto_sync_cache_ttl: 'SHORT' },
    'nothing changed',
  )
})

t.test('delete: 204, then gone everywhere, then the name is free again', async (t) => {
  const { alice } = await setup(t)
  await createSite(t, alice, 'doomed', { external_uid: 'd-1', site_domain: 'old.example.com' })
  isEmpty(t, await alice.del('/sites/doomed'))
  isMissing(t, await alice.get('/sites/doomed'), 'retrieve after delete')
  isMissing(t, await alice.del('/sites/doomed'), 'delete twice')
  isMissing(t, await alice.post('/sites/update/doomed', { external_uid: 'x' }), 'update after delete')
  isMissing(t, await alice.post('/sites/get-many', [{ site_name: 'doomed' }]), 'get-many after delete')
  await createSite(t, alice, 'doomed')
  t.strictSame(
    (await alice.get('/sites/doomed')).body,
    {
      site_name: 'doomed',
      original_site_url: 'https://www.example.com/',
      auto_sync_cache_ttl: 'SHORT',
    },
    'the new site has nothing of the old one',
  )
})

t.test('get-many: records in request order, summary fields only', async (t) => {
  const { alice } = await setup(t)
  await createSite(t, alice, 'fullsite', FULL)
  await createSite(t, alice, 'plainsite')
  const res = await alice.post('/sites/get-many', [
    { site_name: 'plainsite' },
    { site_name: 'fullsite' },
    { site_name: 'plainsite' },
  ])
  t.equal(res.status, 200)
  t.ok(Array.isArray(res.body), 'a JSON array')
  const { preview_site_url: _omitted, ...summary } = FULL
  t.strictSame(res.body, [
    { site_name: 'plainsite', original_site_url: 'https://www.example.com/', auto_sync_cache_ttl: 'SHORT' },
    { site_name: 'fullsite', ...summary },
    { site_name: 'plainsite', original_site_url: 'https://www.example.com/', auto_sync_cache_ttl: 'SHORT' },
  ])
})

t.test('get-many: 1 and 50 names pass, 0 and 51 are InvalidInput', async (t) => {
  const { alice } = await setup(t)
  const names = Array.from({ length: 51 }, (_, i) => `bulk-${String(i).padStart(2, '0')}`)
  for (const name of names) await alice.api.createSite(siteBody(name))
  const ask = (n: number) =>
    alice.post(
      '/sites/get-many',
      names.slice(0, n).map((site_name) => ({ site_name })),
    )
  t.equal((await ask(1)).body.length, 1, '1 name')
  const fifty = await ask(50)
  t.equal(fifty.status, 200)
  t.same(
    fifty.body.map((s: { site_name: string }) => s.site_name),
    names.slice(0, 50),
    '50 names, in order',
  )
  t.match(isInvalid(t, await ask(51), '51 names'), /50/)
  isInvalid(t, await ask(0), 'empty array')
})

t.test('get-many: malformed bodies and missing names', async (t) => {
  const { alice } = await setup(t)
  await createSite(t, alice, 'present')
  const missing = isMissing(
    t,
    await alice.post('/sites/get-many', [{ site_name: 'present' }, { site_name: 'absent1' }, { site_name: 'absent2' }]),
  )
  t.match(missing, /absent1/)
  t.match(missing, /absent2/)
  t.notMatch(missing, /present/, 'names only the missing ones')
  isInvalid(t, await alice.post('/sites/get-many', { site_name: 'present' }), 'object, not array')
  isInvalid(t, await alice.post('/sites/get-many', [{}]), 'entry without site_name')
  isInvalid(t, await alice.post('/sites/get-many', [{ site_name: 'present', extra: 1 }]), 'entry with unknown field')
  isInvalid(t, await alice.post('/sites/get-many', ['present']), 'bare strings')
  isInvalid(t, await alice.post('/sites/get-many', [{ site_name: 42 }]), 'non-string name')
  isInvalid(t, await alice.post('/sites/get-many'), 'no body')
})

t.test('created and modified are reserved: GET /sites/{name} serves the listings there', async (t) => {
  const { alice } = await setup(t)
  for (const name of ['created', 'modified']) {
    const res = await alice.post('/sites/create', siteBody(name))
    isInvalid(t, res, `${name} is refused`)
    t.match(res.body.message, /reserved/)
  }
  // Reserved in any letter case, since names are unique regardless of case.
  isInvalid(t, await alice.post('/sites/create', siteBody('Created')), 'Created is refused')
  const generated = await alice.post('/sites/create', { site_data: { original_site_url: 'http://created/' } })
  t.equal(generated.status, 200)
  t.match(generated.body.site_name, /^created-[a-z0-9]{4}$/, 'a generated name steps around the reserved one')
})
