/**
 * The same rules in-process through `engine.as(user)` ("Every
 * engine operation of the API is also callable in-process, with the same
 * validation and errors"): ServiceError with error_code, the same messages as
 * over HTTP, copies in and out, master accounts, confirmRedirect and close.
 */
import t from 'tap'
import {
  type CreateAccountBody,
  type CreateSiteBody,
  type PeriodQuery,
  type SiteAnalyticsQuery,
  type SsoLinkQuery,
  type UpdateSiteBody,
  type ServiceError,
  createEngine,
} from '../../lib/index.js'
import { eventually, rejectsWith, setup, siteBody } from '../helpers/api.js'

t.test('sites in-process: create, read, update, publish, delete, with ServiceErrors', async (t) => {
  const f = await setup(t)
  const api = f.alice.api
  t.same(await api.createSite(siteBody('inproc', { external_uid: 'u1' })), { site_name: 'inproc' })
  t.strictSame(await api.getSite('inproc'), {
    site_name: 'inproc',
    original_site_url: 'https://www.example.com/',
    auto_sync_cache_ttl: 'SHORT',
    external_uid: 'u1',
  })
  t.equal((await api.getSiteByExternalUid('u1')).site_name, 'inproc')
  await api.updateSite('inproc', { site_domain: 'm.example.com' })
  await api.publishSite('inproc', { test: true })
  t.equal((await api.getSite('inproc')).last_published_date, f.clock.iso())
  t.same((await f.engine.billing('alice')).charges, [], 'test: true (a boolean) skips the charge')
  await api.unpublishSite('inproc')
  await api.resetCache('inproc')
  await api.recreateSite('inproc')
  t.equal((await api.getSite('inproc')).site_domain, undefined, 'recreate undid the update')
  t.same(await api.sitesCreated(), [{ site_name: 'inproc' }])
  t.same(await api.sitesModified({ from: '2025-03-10' }), [{ site_name: 'inproc' }])
  t.same(
    (await api.getManySites([{ site_name: 'inproc' }])).map((s) => s.site_name),
    ['inproc'],
  )
  await api.deleteSite('inproc')

  await rejectsWith(t, api.getSite('inproc'), 'ResourceNotExist', 'get deleted')
  await rejectsWith(t, api.deleteSite('inproc'), 'ResourceNotExist', 'delete twice')
  await rejectsWith(t, api.publishSite('inproc'), 'ResourceNotExist', 'publish missing')
  await rejectsWith(t, api.getSiteByExternalUid('u1'), 'ResourceNotExist', 'by uid')
  await api.createSite(siteBody('taken'))
  await rejectsWith(t, f.bob.api.createSite(siteBody('taken')), 'ResourceAlreadyExist', 'taken by alice')
  await rejectsWith(t, f.bob.api.getSite('taken'), 'ResourceNotExist', 'alice’s site for bob')
})

t.test('in-process inputs are unknown values, validated exactly as over HTTP', async (t) => {
  const f = await setup(t)
  const api = f.alice.api
  for (const body of [undefined, null, 'site', 42, [], {}, { site_data: null }]) {
    await rejectsWith(t, api.createSite(body as never), 'InvalidInput', `createSite(${JSON.stringify(body)})`)
  }
  await api.createSite(siteBody('valid'))
  for (const body of [undefined, null, {}, { site_name: 'x' }]) {
    await rejectsWith(t, api.updateSite('valid', body as never), 'InvalidInput', `updateSite(${JSON.stringify(body)})`)
  }
  await rejectsWith(t, api.getManySites('valid' as never), 'InvalidInput', 'getManySites(string)')
  await rejectsWith(t, api.recreateSite('valid', { republish: 'true' } as never), 'InvalidInput', 'republish as text')
  await rejectsWith(t, api.publishSite('valid', { test: 'maybe' } as never), 'InvalidInput', 'test=maybe')
  await rejectsWith(
    t,
    api.sitesCreated({ from: ['2025-03-01', '2025-03-02'] } as never),
    'InvalidInput',
    'repeated from',
  )
  await rejectsWith(t, api.sitesCreated({ to: '2025-02-30' }), 'InvalidInput', 'impossible date')
  await rejectsWith(t, api.createAccount({ account_name: 'a b' }), 'InvalidInput', 'bad account name')
  await rejectsWith(t, api.grantAccess('ann', 'abc'), 'InvalidInput', 'short site name in grant')
})

t.test('MasterApi inputs are typed from the schemas that validate them', async (t) => {
  // `npm run typecheck` fails if a @ts-expect-error line below stops being a type error.
  const f = await setup(t)
  const api = f.alice.api
  const body: CreateSiteBody = {
    site_data: { original_site_url: 'https://www.example.com/', site_name: 'typed', auto_sync_cache_ttl: 'LONG' },
    create_now: true,
  }
  t.same(await api.createSite(body), { site_name: 'typed' })
  const update: UpdateSiteBody = { site_domain: 'm.typed.example.com' }
  await api.updateSite('typed', update)
  const period: PeriodQuery = { from: '2025-03-01' }
  t.same(await api.sitesCreated(period), [{ site_name: 'typed' }])
  const analytics: SiteAnalyticsQuery = { result: 'traffic', dimension: 'geo' }
  t.same(await api.siteAnalytics('typed', analytics), [], 'no visits yet, broken down by geo')
  const account: CreateAccountBody = { account_name: 'typed-acc', lang: 'ja' }
  await api.createAccount(account)
  const sso: SsoLinkQuery = { target: 'DASHBOARD' }
  t.match(await api.ssoLink('typed-acc', sso), { url: /^\/dashboard\/sso\?token=/ })

  // Each wrong field type is refused by the compiler and, from JavaScript, by the engine.
  // @ts-expect-error auto_sync_cache_ttl is one of VERY_SHORT, SHORT, LONG, VERY_LONG
  await rejectsWith(t, api.updateSite('typed', { auto_sync_cache_ttl: 'WEEKLY' }), 'InvalidInput', 'unknown ttl')
  // @ts-expect-error site_data is required
  await rejectsWith(t, api.createSite({ publish_now: true }), 'InvalidInput', 'no site_data')
  // @ts-expect-error lang is en, es or ja
  await rejectsWith(t, api.updateAccount('typed-acc', { lang: 'fr' }), 'InvalidInput', 'unknown lang')
  // @ts-expect-error target is DASHBOARD or STATS
  await rejectsWith(t, api.ssoLink('typed-acc', { target: 'HOME' }), 'InvalidInput', 'unknown target')
  // @ts-expect-error from is a date string
  await rejectsWith(t, api.sitesWithMostTraffic({ from: 20250301 }), 'InvalidInput', 'numeric from')
})

t.test('in-process and HTTP give the same error_code and message', async (t) => {
  const f = await setup(t)
  const bodies: unknown[] = [
    siteBody('ab'),
    siteBody('okname', { original_site_url: 'ftp://x.example.com' }),
    siteBody('okname', { colour: 'red' }),
    siteBody('okname', { site_domain: 'x'.repeat(254) }),
    { site_data: {} },
  ]
  for (const body of bodies) {
    const res = await f.alice.post('/sites/create', body)
    let thrown: ServiceError | undefined
    await f.alice.api.createSite(body as never).catch((error: ServiceError) => (thrown = error))
    t.same(thrown?.toJSON(), res.body, `same error for ${JSON.stringify(body).slice(0, 60)}`)
  }
})

t.test('results and inputs are copies: mutating them changes nothing stored', async (t) => {
  const f = await setup(t)
  const api = f.alice.api
  const body = {
    site_data: {
      original_site_url: 'https://www.example.com/',
      site_name: 'copied',
      site_business_info: { business_name: 'Orig' },
    },
  }
  await api.createSite(body)
  body.site_data.site_business_info.business_name = 'Mutated input'
  const site = await api.getSite('copied')
  t.equal(site.site_business_info?.business_name, 'Orig', 'input not kept by reference')
  site.site_business_info!.business_name = 'Mutated output'
  site.original_site_url = 'https://evil.example.com/'
  const again = await api.getSite('copied')
  t.equal(again.site_business_info?.business_name, 'Orig', 'output is a copy')
  t.equal(again.original_site_url, 'https://www.example.com/')
  await api.updateSite('copied', { auto_sync_cache_ttl: 'LONG' })
  await api.recreateSite('copied')
  t.equal(
    (await api.getSite('copied')).site_business_info?.business_name,
    'Orig',
    'the creation properties were not mutated either',
  )
})

t.test('master accounts: unknown users are Unauthorized, callers are per master, bad accounts rejected', async (t) => {
  const f = await setup(t)
  await rejectsWith(t, f.engine.as('mallory').getSite('anything'), 'Unauthorized', 'unknown user')
  await rejectsWith(
    t,
    f.engine.as('mallory').createSite(siteBody('mallory')),
    'Unauthorized',
    'unknown user cannot create',
  )
  t.equal(await f.engine.authenticate('alice', 'wrong'), undefined)
  t.equal(await f.engine.authenticate('nobody', 'alice-secret'), undefined)
  const caller = await f.engine.authenticate('bob', 'b:o:b:secret')
  t.same(caller, { user: 'bob', partner: true })
  await f.engine.as(caller!).createSite(siteBody('viacaller'))
  t.equal((await f.bob.api.getSite('viacaller')).site_name, 'viacaller', 'a Caller acts as that master')
  t.same(
    await f.engine.authenticate('carol', 'carol-secret'),
    { user: 'carol', partner: false },
    'partner defaults to false',
  )

  await rejectsWith(t, f.engine.addMasterAccount({ user: 'a:b', password: 'x' }), 'InvalidInput', 'user with a colon')
  await rejectsWith(t, f.engine.addMasterAccount({ user: '', password: 'x' }), 'InvalidInput', 'empty user')
  await rejectsWith(t, f.engine.addMasterAccount({ user: 'eve', password: '' }), 'InvalidInput', 'empty password')
  await f.engine.addMasterAccount({ user: 'carol', password: 'carol-secret', partner: true })
  await f.engine.as('carol').createAccount({ account_name: 'carols' })
  t.same(await f.engine.as('carol').accountSites('carols'), [], 'carol became a partner when replaced')
  await f.engine.addMasterAccount({ user: '__proto__', password: 'pp' })
  t.same(
    await f.engine.authenticate('__proto__', 'pp'),
    { user: '__proto__', partner: false },
    '__proto__ is an ordinary user',
  )
  t.equal(await f.engine.authenticate('constructor', 'pp'), undefined)
})

t.test('confirmRedirect sets last_confirmed_redirected_date from the clock', async (t) => {
  const f = await setup(t)
  await f.alice.api.createSite(siteBody('redir', { external_uid: 'r' }))
  t.notOk('last_confirmed_redirected_date' in (await f.alice.api.getSite('redir')))
  f.clock.set('2025-04-01T10:20:30')
  await f.engine.confirmRedirect('redir')
  t.equal((await f.alice.api.getSite('redir')).last_confirmed_redirected_date, '2025-04-01T10:20:30')
  await f.engine.confirmRedirect('redir', new Date('2025-04-02T00:00:00Z'))
  t.equal((await f.alice.api.getSiteByExternalUid('r')).last_confirmed_redirected_date, '2025-04-02T00:00:00')
  t.equal(
    (await f.alice.api.getManySites([{ site_name: 'redir' }]))[0]?.last_confirmed_redirected_date,
    '2025-04-02T00:00:00',
  )
  t.same(await f.alice.api.sitesModified({ from: '2025-04-01' }), [], 'a redirect is not a modification')
  await rejectsWith(t, f.engine.confirmRedirect('nosuchsite'), 'ResourceNotExist')
})

t.test('engine.close waits for background builds', async (t) => {
  const f = await setup(t)
  f.builder.outcome = 'hold'
  await f.alice.api.createSite(siteBody('slowbuild', {}, { create_now: 'async' }))
  let closed = false
  const closing = f.engine.close().then(() => (closed = true))
  await eventually(() => false, 20)
  t.notOk(closed, 'still waiting for the build')
  f.builder.release('slowbuild')
  await closing
  t.ok(closed, 'closed once the build settled')
  await rejectsWith(t, f.alice.api.getSite('slowbuild'), 'ServiceUnavailable', 'a closed store is unavailable')
})

t.test('createEngine defaults: system clock, builder that succeeds, agents', async (t) => {
  const engine = createEngine()
  t.teardown(() => engine.close())
  await engine.addMasterAccount({ user: 'd', password: 'p' })
  const before = Date.now()
  await engine.as('d').createSite(siteBody('defaults', {}, { publish_now: true }))
  const published = Date.parse(`${(await engine.as('d').getSite('defaults')).last_published_date}Z`)
  t.ok(published >= Math.floor(before / 1000) * 1000 && published <= Date.now(), 'the system clock')
  t.type(engine.getAgents(), 'string')
  t.throws(() => engine.setAgents('(unclosed'), { name: 'ServiceError' }, 'an invalid regex is refused')
  t.throws(() => createEngine({ agents: '[' }), { name: 'ServiceError' })
})
