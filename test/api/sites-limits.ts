/**
 * Create Site and Update Site input: every limit of docs/api.md at its
 * boundary, formats, the business info key variants and conflicts, the
 * reservation_info placement, unknown fields and Object-prototype keys.
 */
import t from 'tap'
import {
  chars,
  createSite,
  domainOfLength,
  isInvalid,
  isMissing,
  setup,
  siteBody,
  urlOfLength,
} from '../helpers/api.js'

t.test('site_name: 3 and 46 chars rejected, 4 and 45 accepted', async (t) => {
  const { alice } = await setup(t)
  t.match(isInvalid(t, await alice.post('/sites/create', siteBody(chars(3))), '3 chars'), /site_name/)
  t.match(isInvalid(t, await alice.post('/sites/create', siteBody(chars(46))), '46 chars'), /site_name/)
  t.equal(await createSite(t, alice, chars(4)), chars(4))
  t.equal(await createSite(t, alice, chars(45, 'b')), chars(45, 'b'))
  t.equal((await alice.get(`/sites/${chars(45, 'b')}`)).status, 200)
})

t.test('site_name: letters, digits, - and _ only', async (t) => {
  const { alice } = await setup(t)
  await createSite(t, alice, 'Ok_Name-09')
  for (const bad of ['has space', 'dot.name', 'slash/name', 'ünïcode', 'semi;colon', '']) {
    isInvalid(t, await alice.post('/sites/create', siteBody(bad)), JSON.stringify(bad))
  }
  isInvalid(
    t,
    await alice.post('/sites/create', { site_data: { original_site_url: 'https://a.example.com', site_name: 1234 } }),
    'number',
  )
  isInvalid(
    t,
    await alice.post('/sites/create', { site_data: { original_site_url: 'https://a.example.com', site_name: null } }),
    'null',
  )
})

t.test('original_site_url and preview_site_url: 2048 accepted, 2049 rejected', async (t) => {
  const { alice } = await setup(t)
  const name = await createSite(t, alice, 'longurls', {
    original_site_url: urlOfLength(2048),
    preview_site_url: urlOfLength(2048),
  })
  const got = await alice.get(`/sites/${name}`)
  t.equal(got.body.original_site_url.length, 2048)
  t.equal(got.body.preview_site_url.length, 2048)
  const m1 = isInvalid(
    t,
    await alice.post('/sites/create', siteBody('toolong1', { original_site_url: urlOfLength(2049) })),
    'original 2049',
  )
  t.match(m1, /original_site_url/)
  const m2 = isInvalid(
    t,
    await alice.post('/sites/create', siteBody('toolong2', { preview_site_url: urlOfLength(2049) })),
    'preview 2049',
  )
  t.match(m2, /preview_site_url/)
  t.equal(
    (await alice.post('/sites/update/longurls', { original_site_url: urlOfLength(2048) })).status,
    204,
    'update 2048',
  )
  isInvalid(t, await alice.post('/sites/update/longurls', { original_site_url: urlOfLength(2049) }), 'update 2049')
})

t.test('URLs must be absolute http(s)', async (t) => {
  const { alice } = await setup(t)
  for (const bad of [
    'not a url',
    'ftp://example.com/',
    'example.com',
    '/relative/path',
    'javascript:alert(1)',
    'http://',
    '',
  ]) {
    isInvalid(
      t,
      await alice.post('/sites/create', siteBody('badurl', { original_site_url: bad })),
      `original ${JSON.stringify(bad)}`,
    )
    isInvalid(
      t,
      await alice.post('/sites/create', siteBody('badurl', { preview_site_url: bad })),
      `preview ${JSON.stringify(bad)}`,
    )
  }
  const missing = isInvalid(
    t,
    await alice.post('/sites/create', { site_data: { site_name: 'nourl' } }),
    'missing original',
  )
  t.match(missing, /original_site_url/)
  isMissing(t, await alice.get('/sites/badurl'), 'nothing was created')
})

t.test('preview_site_url null means "use original": accepted, then absent', async (t) => {
  const { alice } = await setup(t)
  await createSite(t, alice, 'nullprev', { preview_site_url: null })
  const got = await alice.get('/sites/nullprev')
  t.notOk('preview_site_url' in got.body)
  t.notMatch(got.text, /:null\b/, 'no null value')
})

t.test('site_domain: 253 accepted, 254 rejected, must be a FQDN', async (t) => {
  const { alice } = await setup(t)
  await createSite(t, alice, 'dom253', { site_domain: domainOfLength(253) })
  t.equal((await alice.get('/sites/dom253')).body.site_domain.length, 253)
  t.match(
    isInvalid(t, await alice.post('/sites/create', siteBody('dom254', { site_domain: domainOfLength(254) })), '254'),
    /site_domain/,
  )
  for (const bad of [
    'localhost',
    'not a domain',
    '-bad.example.com',
    'a..b.com',
    `${'x'.repeat(64)}.com`,
    'http://m.example.com',
  ]) {
    isInvalid(t, await alice.post('/sites/create', siteBody('baddom', { site_domain: bad })), JSON.stringify(bad))
  }
  t.equal((await alice.post('/sites/update/dom253', { site_domain: domainOfLength(253) })).status, 204, 'update 253')
  isInvalid(t, await alice.post('/sites/update/dom253', { site_domain: domainOfLength(254) }), 'update 254')
})

t.test('external_uid: 45 accepted, 46 rejected, on create and update', async (t) => {
  const { alice } = await setup(t)
  await createSite(t, alice, 'uidsite', { external_uid: chars(45, 'u') })
  t.equal((await alice.get(`/sites/byexternal/${chars(45, 'u')}`)).body.site_name, 'uidsite')
  t.match(
    isInvalid(t, await alice.post('/sites/create', siteBody('uidsite2', { external_uid: chars(46) })), 'create 46'),
    /external_uid/,
  )
  t.equal((await alice.post('/sites/update/uidsite', { external_uid: chars(45, 'v') })).status, 204)
  isInvalid(t, await alice.post('/sites/update/uidsite', { external_uid: chars(46) }), 'update 46')
  t.equal((await alice.get('/sites/uidsite')).body.external_uid, chars(45, 'v'), 'the rejected update changed nothing')
})

t.test('auto_sync_cache_ttl: the four values, nothing else', async (t) => {
  const { alice } = await setup(t)
  for (const ttl of ['VERY_SHORT', 'SHORT', 'LONG', 'VERY_LONG']) {
    const name = await createSite(t, alice, `ttl-${ttl.toLowerCase()}`, { auto_sync_cache_ttl: ttl })
    t.equal((await alice.get(`/sites/${name}`)).body.auto_sync_cache_ttl, ttl)
  }
  for (const bad of ['short', 'MEDIUM', '', 7200]) {
    isInvalid(
      t,
      await alice.post('/sites/create', siteBody('ttlbad', { auto_sync_cache_ttl: bad })),
      JSON.stringify(bad),
    )
  }
})

t.test('publish_now and create_now accept booleans and their text forms only', async (t) => {
  const { alice } = await setup(t)
  let i = 0
  for (const publish_now of [true, false, 'true', 'false']) {
    await createSite(t, alice, `pub-${i++}`, {}, { publish_now })
  }
  for (const create_now of [true, false, 'true', 'false', 'async']) {
    await createSite(t, alice, `cre-${i++}`, {}, { create_now })
  }
  for (const bad of ['yes', 1, 'TRUE', null]) {
    isInvalid(
      t,
      await alice.post('/sites/create', siteBody('flagbad', {}, { publish_now: bad })),
      `publish_now ${JSON.stringify(bad)}`,
    )
    isInvalid(
      t,
      await alice.post('/sites/create', siteBody('flagbad', {}, { create_now: bad })),
      `create_now ${JSON.stringify(bad)}`,
    )
  }
  isInvalid(
    t,
    await alice.post('/sites/create', siteBody('flagbad', {}, { publish_now: 'async' })),
    'publish_now async',
  )
})

t.test('business info: either key in, site_business_info out; both keys InvalidInput', async (t) => {
  const { alice } = await setup(t)
  const info = { business_name: 'Cafe', phone_number: '555-0101', address: { city: 'Lyon', zip_code: '69001' } }
  await createSite(t, alice, 'viabsi', { business_site_info: info })
  await createSite(t, alice, 'viasbi', { site_business_info: info })
  for (const name of ['viabsi', 'viasbi']) {
    const got = await alice.get(`/sites/${name}`)
    t.same(got.body.site_business_info, info, `${name}: site_business_info`)
    t.notOk('business_site_info' in got.body, `${name}: no business_site_info key out`)
    t.same(
      (await alice.post('/sites/get-many', [{ site_name: name }])).body[0].site_business_info,
      info,
      `${name}: get-many`,
    )
  }
  const both = isInvalid(
    t,
    await alice.post('/sites/create', siteBody('bothkeys', { business_site_info: info, site_business_info: info })),
    'both keys',
  )
  t.match(both, /business/)
  isMissing(t, await alice.get('/sites/bothkeys'), 'not created')
})

t.test('reservation_info: top-level goes into the business info; both places InvalidInput', async (t) => {
  const { alice } = await setup(t)
  const spots = [
    { restaurant_id: 'r1', location: 'North', country: 'FR' },
    { restaurant_id: 'r2', location: 'South', country: 'FR' },
  ]
  await createSite(t, alice, 'toponly', { reservation_info: spots })
  t.strictSame((await alice.get('/sites/toponly')).body.site_business_info, { reservation_info: spots })
  t.notOk('reservation_info' in (await alice.get('/sites/toponly')).body, 'no top-level reservation_info out')

  await createSite(t, alice, 'merged', { business_site_info: { business_name: 'Bistro' }, reservation_info: spots })
  t.strictSame((await alice.get('/sites/merged')).body.site_business_info, {
    business_name: 'Bistro',
    reservation_info: spots,
  })

  await createSite(t, alice, 'nested', { site_business_info: { reservation_info: spots } })
  t.strictSame((await alice.get('/sites/nested')).body.site_business_info, { reservation_info: spots })

  isInvalid(
    t,
    await alice.post(
      '/sites/create',
      siteBody('twice', { site_business_info: { reservation_info: spots }, reservation_info: spots }),
    ),
    'both places',
  )
  isInvalid(
    t,
    await alice.post('/sites/create', siteBody('emptyres', { reservation_info: [] })),
    'empty top-level list',
  )
  isInvalid(
    t,
    await alice.post('/sites/create', siteBody('emptyres', { site_business_info: { reservation_info: [] } })),
    'empty nested list',
  )
  isInvalid(
    t,
    await alice.post('/sites/create', siteBody('resobj', { reservation_info: spots[0] })),
    'an object, not a list',
  )
  isInvalid(
    t,
    await alice.post('/sites/create', siteBody('resextra', { reservation_info: [{ restaurant_id: 'r', table: 4 }] })),
    'unknown reservation field',
  )
})

t.test('address: zip_code is a numeric string; unknown keys rejected', async (t) => {
  const { alice } = await setup(t)
  await createSite(t, alice, 'zipok', { site_business_info: { address: { zip_code: '75001' } } })
  for (const zip of ['ABC12', 75001, '']) {
    isInvalid(
      t,
      await alice.post('/sites/create', siteBody('zipbad', { site_business_info: { address: { zip_code: zip } } })),
      `zip ${JSON.stringify(zip)}`,
    )
  }
  const m = isInvalid(
    t,
    await alice.post('/sites/create', siteBody('addrx', { site_business_info: { address: { planet: 'Mars' } } })),
    'unknown address key',
  )
  t.match(m, /planet/)
})

t.test('unknown fields are InvalidInput naming the field, at every level', async (t) => {
  const { alice } = await setup(t)
  const cases: [string, object, RegExp][] = [
    ['top level', { ...siteBody('unk1'), color: 'red' }, /color/],
    ['site_data', siteBody('unk2', { colour: 'blue' }), /site_data\.colour/],
    ['business info', siteBody('unk3', { site_business_info: { owner_name: 'x' } }), /owner_name/],
    ['status is output-only', siteBody('unk4', { status: 'UNDER_CONSTRUCTION' }), /status/],
    [
      'last_published_date is output-only',
      siteBody('unk5', { last_published_date: '2025-01-01T00:00:00' }),
      /last_published_date/,
    ],
  ]
  for (const [label, body, names] of cases) {
    t.match(isInvalid(t, await alice.post('/sites/create', body), label), names, `${label}: named`)
  }
  isInvalid(t, await alice.post('/sites/create', { site_data: 'https://www.example.com' }), 'site_data a string')
  isInvalid(t, await alice.post('/sites/create', {}), 'no site_data')
  isInvalid(t, await alice.post('/sites/create', [siteBody('arr')]), 'array body')
  const listed = await alice.get('/sites/created')
  t.same(listed.body, [], 'none of them was created')
})

t.test('__proto__ and constructor as body keys are unknown fields, never prototype writes', async (t) => {
  const { alice } = await setup(t)
  const raw = (json: string) => alice.post('/sites/create').set('content-type', 'application/json').send(json)
  const cases = [
    [
      'top-level __proto__',
      '{"site_data":{"original_site_url":"https://a.example.com","site_name":"proto1"},"__proto__":{"publish_now":true}}',
    ],
    [
      'site_data __proto__',
      '{"site_data":{"original_site_url":"https://a.example.com","site_name":"proto2","__proto__":{"site_domain":"x.example.com"}}}',
    ],
    [
      'business __proto__',
      '{"site_data":{"original_site_url":"https://a.example.com","site_name":"proto3","site_business_info":{"__proto__":{"business_name":"x"}}}}',
    ],
    [
      'site_data constructor',
      '{"site_data":{"original_site_url":"https://a.example.com","site_name":"proto4","constructor":{"prototype":{}}}}',
    ],
  ]
  for (const [label, json] of cases) {
    t.match(isInvalid(t, await raw(json!), label), /__proto__|constructor/, `${label}: named`)
  }
  const update = await alice
    .post('/sites/update/whatever')
    .set('content-type', 'application/json')
    .send('{"__proto__":{"site_domain":"x.example.com"}}')
  isInvalid(t, update, 'update with __proto__')
  t.equal(({} as Record<string, unknown>).site_domain, undefined, 'Object.prototype untouched')
  t.equal(({} as Record<string, unknown>).publish_now, undefined, 'Object.prototype untouched')
})
