/**
 * Sub-user accounts over HTTP (docs/api.md, Accounts): create,
 * retrieve, update, delete, the limits at their boundaries, ASCII names,
 * lang, and partner-only access. Grants are in grants.ts.
 */
import t from 'tap'
import { chars, domainOfLength, isEmpty, isError, isInvalid, isMissing, rejectsWith, setup } from '../helpers/api.js'

const emailOfLength = (n: number): string => `${'e'.repeat(64)}@${domainOfLength(n - 65)}`

t.test('create then retrieve: the fields given, never lang, never null', async (t) => {
  const { alice } = await setup(t)
  isEmpty(
    t,
    await alice.post('/accounts/create', {
      account_name: 'jane@example.com',
      first_name: 'Jane',
      last_name: 'Doe',
      email: 'jane@example.com',
      lang: 'es',
    }),
    'create',
  )
  const res = await alice.get('/accounts/jane@example.com')
  t.equal(res.status, 200)
  t.strictSame(res.body, {
    account_name: 'jane@example.com',
    first_name: 'Jane',
    last_name: 'Doe',
    email: 'jane@example.com',
  })

  isEmpty(t, await alice.post('/accounts/create', { account_name: 'bare' }), 'only the name')
  const bare = await alice.get('/accounts/bare')
  t.strictSame(bare.body, { account_name: 'bare' })
  t.notMatch(bare.text, /null/)
})

t.test('account_name: 45 accepted, 46 rejected; letters, digits and @ . _ + - only', async (t) => {
  const { alice } = await setup(t)
  isEmpty(t, await alice.post('/accounts/create', { account_name: chars(45, 'n') }), '45 chars')
  t.equal((await alice.get(`/accounts/${chars(45, 'n')}`)).status, 200)
  t.match(
    isInvalid(t, await alice.post('/accounts/create', { account_name: chars(46, 'n') }), '46 chars'),
    /account_name/,
  )
  for (const ok of ['a', 'x.y_z+tag-1@mail.example.org', 'UPPER', '__proto__', 'constructor']) {
    isEmpty(t, await alice.post('/accounts/create', { account_name: ok }), JSON.stringify(ok))
    t.equal((await alice.get(`/accounts/${encodeURIComponent(ok)}`)).body.account_name, ok, `${ok} retrieved`)
  }
  for (const bad of ['', 'has space', 'slash/name', 'ünï', 'semi;colon', 'quote"d']) {
    isInvalid(t, await alice.post('/accounts/create', { account_name: bad }), JSON.stringify(bad))
  }
  t.match(isInvalid(t, await alice.post('/accounts/create', { first_name: 'Nameless' }), 'missing'), /account_name/)
  isInvalid(t, await alice.post('/accounts/create', { account_name: 42 }), 'number')
  isMissing(t, await alice.get('/accounts/valueOf'), 'valueOf was never created')
})

t.test('first_name and last_name: ASCII letters, 45 accepted, 46 rejected', async (t) => {
  const { alice } = await setup(t)
  isEmpty(
    t,
    await alice.post('/accounts/create', {
      account_name: 'long',
      first_name: chars(45, 'F'),
      last_name: chars(45, 'l'),
    }),
  )
  t.same((await alice.get('/accounts/long')).body, {
    account_name: 'long',
    first_name: chars(45, 'F'),
    last_name: chars(45, 'l'),
  })
  for (const field of ['first_name', 'last_name']) {
    t.match(
      isInvalid(t, await alice.post('/accounts/create', { account_name: 'x46', [field]: chars(46) }), `${field} 46`),
      new RegExp(field),
    )
    for (const bad of ['José', 'Anne-Marie', "O'Brien", 'Jo Ann', 'R2D2', '', 'Ｊａｎｅ']) {
      isInvalid(
        t,
        await alice.post('/accounts/create', { account_name: 'xbad', [field]: bad }),
        `${field} ${JSON.stringify(bad)}`,
      )
    }
    isEmpty(t, await alice.post('/accounts/update/long', { [field]: chars(45, 'Z') }), `update ${field} 45`)
    isInvalid(t, await alice.post('/accounts/update/long', { [field]: chars(46, 'Z') }), `update ${field} 46`)
    isInvalid(t, await alice.post('/accounts/update/long', { [field]: 'Zoë' }), `update ${field} non-ASCII`)
  }
  isMissing(t, await alice.get('/accounts/xbad'), 'no invalid account was created')
})

t.test('email: 150 accepted, 151 rejected, must be an address', async (t) => {
  const { alice } = await setup(t)
  t.equal(emailOfLength(150).length, 150)
  isEmpty(t, await alice.post('/accounts/create', { account_name: 'mail150', email: emailOfLength(150) }))
  t.equal((await alice.get('/accounts/mail150')).body.email, emailOfLength(150))
  t.match(
    isInvalid(t, await alice.post('/accounts/create', { account_name: 'mail151', email: emailOfLength(151) }), '151'),
    /email/,
  )
  for (const bad of [
    'plain',
    '@example.com',
    'a@',
    'a@localhost',
    'a b@example.com',
    'a@@example.com',
    'a@example.com.',
    '',
  ]) {
    isInvalid(t, await alice.post('/accounts/create', { account_name: 'mailbad', email: bad }), JSON.stringify(bad))
  }
  isEmpty(t, await alice.post('/accounts/update/mail150', { email: 'new@example.org' }))
  isInvalid(t, await alice.post('/accounts/update/mail150', { email: emailOfLength(151) }), 'update 151')
  t.equal((await alice.get('/accounts/mail150')).body.email, 'new@example.org')
})

t.test('lang: en, es, ja on create and update; never returned', async (t) => {
  const { alice } = await setup(t)
  for (const lang of ['en', 'es', 'ja']) {
    isEmpty(t, await alice.post('/accounts/create', { account_name: `lang-${lang}`, lang }), `create ${lang}`)
    isEmpty(t, await alice.post('/accounts/update/lang-en', { lang }), `update ${lang}`)
    t.notOk('lang' in (await alice.get(`/accounts/lang-${lang}`)).body, `${lang} not returned`)
  }
  for (const bad of ['fr', 'EN', 'en-US', '', 1]) {
    isInvalid(
      t,
      await alice.post('/accounts/create', { account_name: 'langbad', lang: bad }),
      `create ${JSON.stringify(bad)}`,
    )
    isInvalid(t, await alice.post('/accounts/update/lang-en', { lang: bad }), `update ${JSON.stringify(bad)}`)
  }
})

t.test('update: changes fields, keeps the others; name is fixed; empty and unknown rejected', async (t) => {
  const { alice } = await setup(t)
  await alice.post('/accounts/create', {
    account_name: 'upd',
    first_name: 'Ann',
    last_name: 'Lee',
    email: 'ann@example.com',
  })
  isEmpty(t, await alice.post('/accounts/update/upd', { first_name: 'Anna' }))
  isEmpty(t, await alice.post('/accounts/update/upd', { last_name: 'Leigh', email: 'anna@example.com', lang: 'ja' }))
  t.strictSame((await alice.get('/accounts/upd')).body, {
    account_name: 'upd',
    first_name: 'Anna',
    last_name: 'Leigh',
    email: 'anna@example.com',
  })
  t.match(isInvalid(t, await alice.post('/accounts/update/upd', { account_name: 'renamed' }), 'rename'), /account_name/)
  isInvalid(t, await alice.post('/accounts/update/upd', {}), 'empty body')
  isInvalid(t, await alice.post('/accounts/update/upd'), 'no body')
  t.match(isInvalid(t, await alice.post('/accounts/update/upd', { nickname: 'A' }), 'unknown'), /nickname/)
  isInvalid(t, await alice.post('/accounts/update/upd', { first_name: null }), 'null')
  isMissing(t, await alice.post('/accounts/update/nobody', { first_name: 'X' }), 'missing account')
  t.equal((await alice.get('/accounts/renamed')).status, 400, 'no account renamed')
})

t.test('create: unknown fields, duplicates, raw __proto__ keys', async (t) => {
  const { alice } = await setup(t)
  t.match(
    isInvalid(t, await alice.post('/accounts/create', { account_name: 'unk', password: 'x' }), 'unknown'),
    /password/,
  )
  isEmpty(t, await alice.post('/accounts/create', { account_name: 'dup' }))
  t.match(
    isError(
      t,
      await alice.post('/accounts/create', { account_name: 'dup', first_name: 'Other' }),
      400,
      'ResourceAlreadyExist',
      'duplicate',
    ),
    /dup/,
  )
  t.strictSame((await alice.get('/accounts/dup')).body, { account_name: 'dup' }, 'the first one is untouched')
  const raw = await alice
    .post('/accounts/create')
    .set('content-type', 'application/json')
    .send('{"account_name":"protoacct","__proto__":{"lang":"xx"}}')
  isInvalid(t, raw, '__proto__ key')
  isInvalid(t, await alice.post('/accounts/create', [{ account_name: 'arr' }]), 'array body')
})

t.test('delete: DELETE /account/{name} is 204, then 400 ResourceNotExist', async (t) => {
  const { alice } = await setup(t)
  await alice.post('/accounts/create', { account_name: 'gone@example.com' })
  isEmpty(t, await alice.del('/account/gone@example.com'), 'delete')
  isMissing(t, await alice.get('/accounts/gone@example.com'), 'retrieve after delete')
  isMissing(t, await alice.del('/account/gone@example.com'), 'delete again')
  isMissing(t, await alice.del('/account/never'), 'never existed')
  isMissing(t, await alice.post('/accounts/update/gone@example.com', { first_name: 'X' }), 'update after delete')
  isEmpty(
    t,
    await alice.post('/accounts/create', { account_name: 'gone@example.com', first_name: 'New' }),
    'the name is free again',
  )
  t.strictSame((await alice.get('/accounts/gone@example.com')).body, {
    account_name: 'gone@example.com',
    first_name: 'New',
  })
})

t.test('non-partner masters get 403 AccessForbidden on every account endpoint', async (t) => {
  const { alice, carol } = await setup(t)
  await alice.post('/accounts/create', { account_name: 'alices' })
  await carol.post('/sites/create', {
    site_data: { original_site_url: 'https://carol.example.com', site_name: 'carolsite' },
  })
  const calls: [string, () => Promise<import('../helpers/api.js').Res>][] = [
    ['create', () => carol.post('/accounts/create', { account_name: 'carols' })],
    ['create invalid', () => carol.post('/accounts/create', { bogus: true })],
    ['retrieve', () => carol.get('/accounts/alices')],
    ['retrieve missing', () => carol.get('/accounts/nobody')],
    ['update', () => carol.post('/accounts/update/alices', { first_name: 'X' })],
    ['delete', () => carol.del('/account/alices')],
    ['grant', () => carol.post('/accounts/grant-access/carols/sites/carolsite')],
    ['revoke', () => carol.post('/accounts/revoke-access/carols/sites/carolsite')],
  ]
  for (const [label, call] of calls) isError(t, await call(), 403, 'AccessForbidden', label)
  t.equal((await alice.get('/accounts/alices')).status, 200, 'alice’s account untouched')
  t.equal((await carol.get('/sites/carolsite')).status, 200, 'carol still uses the site endpoints')
  await rejectsWith(t, carol.api.createAccount({ account_name: 'inproc' }), 'AccessForbidden', 'in-process create')
  await rejectsWith(t, carol.api.accountSites('alices'), 'AccessForbidden', 'in-process accountSites')
})
