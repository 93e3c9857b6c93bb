/**
 * Get SSO Link and the tokens and sessions behind it: partner-only, tenancy
 * and grant checks with their errors, the link's shape and where it points
 * (dashboardUrl, trust proxy), tokens single-use and dead after 120 s on the
 * engine clock, sessions dead after 12 h or with their account (also when it
 * is re-created under the same name), and secrets kept out of every message.
 */
import express from 'express'
import { checkedRequest } from '../helpers/openapi-check.js'
import t from 'tap'
import { apiRouter, createEngine } from '../../lib/index.js'
import { isError, isInvalid, isMissing, rejectsWith } from '../helpers/api.js'
import { PASSWORDS, dashboardFixture, grantedSites } from '../helpers/dashboard.js'

const TOKEN = /^[A-Za-z0-9_-]{43}$/

t.test('a partner gets a single-use link to its sub-account dashboard', async (t) => {
  const f = await dashboardFixture(t)
  await grantedSites(f, { siteone: 'One' })
  const res = await f.api('alice', '/accounts/sso/acc/link')
  t.equal(res.status, 200)
  t.match(res.headers['content-type'], /^application\/json/)
  t.same(Object.keys(res.body), ['url'], 'the answer is { url } only')
  const url = new URL(res.body.url)
  t.equal(`${url.origin}${url.pathname}`, `${f.origin}/dashboard/sso`, 'default: the request origin + /dashboard')
  t.same([...url.searchParams.keys()], ['token'])
  t.match(url.searchParams.get('token'), TOKEN, '32 random bytes in base64url (256 bits)')

  const tokens = new Set<string>()
  for (let i = 0; i < 50; i++) tokens.add(f.tokenOf(await f.link('acc')))
  t.equal(tokens.size, 50, 'every link has its own token')
  t.equal(new Set([...tokens].map((tok) => tok.slice(0, 8))).size, 50, 'with no shared prefix')
})

t.test('only partners; only their own sub-accounts', async (t) => {
  const f = await dashboardFixture(t)
  await grantedSites(f, { siteone: undefined })
  await f.engine.as('bob').createAccount({ account_name: 'bobs' })
  isError(t, await f.api('carol', '/accounts/sso/acc/link'), 403, 'AccessForbidden', 'not a partner')
  isError(t, await f.http.get('/api/accounts/sso/acc/link'), 401, 'Unauthorized', 'no credentials')
  isError(
    t,
    await f.http.get('/api/accounts/sso/acc/link').auth('alice', 'wrong'),
    401,
    'Unauthorized',
    'wrong password',
  )
  const foreign = isMissing(t, await f.api('alice', '/accounts/sso/bobs/link'), "bob's account")
  const missing = isMissing(t, await f.api('alice', '/accounts/sso/nobody/link'), 'no such account')
  t.equal(
    foreign.replace('bobs', 'X'),
    missing.replace('nobody', 'X'),
    "another partner's account answers exactly as a missing one",
  )
  isMissing(t, await f.api('bob', '/accounts/sso/acc/link'), "alice's account, asked by bob")
  await rejectsWith(t, f.engine.as('carol').ssoLink('acc'), 'AccessForbidden', 'in-process, not a partner')
})

t.test('target and site_name: STATS needs a granted site of the caller', async (t) => {
  const f = await dashboardFixture(t)
  await grantedSites(f, { siteone: undefined })
  await f.engine
    .as('alice')
    .createSite({ site_data: { site_name: 'notgranted', original_site_url: 'https://www.example.com/' } })
  await f.engine
    .as('bob')
    .createSite({ site_data: { site_name: 'bobsite', original_site_url: 'https://www.example.com/' } })

  for (const query of ['?target=DASHBOARD', '?target=STATS&site_name=siteone', '?site_name=siteone', '']) {
    const res = await f.api('alice', `/accounts/sso/acc/link${query}`)
    t.equal(res.status, 200, `${query || '(no query)'}: 200`)
  }
  t.match(
    isInvalid(t, await f.api('alice', '/accounts/sso/acc/link?target=STATS')),
    /site_name/,
    'STATS without site_name',
  )
  t.match(
    isInvalid(t, await f.api('alice', '/accounts/sso/acc/link?target=stats&site_name=siteone')),
    /target/,
    'target is case-sensitive',
  )
  t.match(isInvalid(t, await f.api('alice', '/accounts/sso/acc/link?target=ADMIN')), /target/)
  t.match(
    isInvalid(t, await f.api('alice', '/accounts/sso/acc/link?target=STATS&target=STATS&site_name=siteone')),
    /target/,
    'repeated',
  )
  t.match(isInvalid(t, await f.api('alice', '/accounts/sso/acc/link?token=abc')), /unknown query parameter token/)
  t.match(isInvalid(t, await f.api('alice', '/accounts/sso/acc/link?site_name=ab')), /site_name/, 'malformed site name')
  t.match(
    isInvalid(t, await f.api('alice', '/accounts/sso/acc/link?target=STATS&site_name=notgranted')),
    /not granted/,
    "the caller's site, not granted to the account",
  )
  isMissing(t, await f.api('alice', '/accounts/sso/acc/link?site_name=bobsite'), "another partner's site")
  isMissing(t, await f.api('alice', '/accounts/sso/acc/link?site_name=nosuchsite'), 'a missing site')
  await f.engine.as('alice').revokeAccess('acc', 'siteone')
  t.match(isInvalid(t, await f.api('alice', '/accounts/sso/acc/link?site_name=siteone')), /not granted/, 'after revoke')
  t.same(f.errors, [], 'nothing unexpected')
})

t.test('apiRouter dashboardUrl: an absolute URL, a path, or the default; trust proxy decides the origin', async (t) => {
  const engine = createEngine()
  t.teardown(() => engine.close())
  await engine.addMasterAccount({ user: 'alice', password: PASSWORDS.alice, partner: true })
  await engine.as('alice').createAccount({ account_name: 'acc' })
  const linkVia = async (options: object, trustProxy = false, headers: Record<string, string> = {}) => {
    const app = express()
    if (trustProxy) app.set('trust proxy', true)
    app.use('/api', apiRouter(engine, options))
    const res = await checkedRequest(app).get('/api/accounts/sso/acc/link').auth('alice', PASSWORDS.alice).set(headers)
    t.equal(res.status, 200)
    const url = String(res.body.url)
    t.match(url.slice(url.indexOf('token=') + 6), TOKEN)
    return url.slice(0, url.indexOf('?'))
  }
  t.equal(
    await linkVia({ dashboardUrl: 'https://dash.example.com/portal/' }),
    'https://dash.example.com/portal/sso',
    'absolute; trailing slash dropped',
  )
  t.equal(await linkVia({ dashboardUrl: 'http://localhost:8080' }), 'http://localhost:8080/sso')
  t.equal(
    await linkVia({ dashboardUrl: '/customers/stats', allowedHosts: ['api.example.com'] }, false, {
      Host: 'api.example.com',
    }),
    'http://api.example.com/customers/stats/sso',
    'a path: on the request origin, when its host is allowed',
  )
  t.equal(
    await linkVia({ allowedHosts: ['API.example.com'] }, false, { Host: 'api.example.com:8443' }),
    'http://api.example.com:8443/dashboard/sso',
    'default path; an allowed host name matches any port',
  )
  t.equal(
    await linkVia({ allowedHosts: ['partner.example.com'] }, true, {
      'X-Forwarded-Proto': 'https',
      'X-Forwarded-Host': 'partner.example.com',
    }),
    'https://partner.example.com/dashboard/sso',
    'behind a trusted proxy',
  )
  t.equal(
    await linkVia({ allowedHosts: ['api.example.com', 'evil.example.com'] }, false, {
      'X-Forwarded-Proto': 'https',
      'X-Forwarded-Host': 'evil.example.com',
      Host: 'api.example.com',
    }),
    'http://api.example.com/dashboard/sso',
    'forwarded headers are ignored unless the proxy is trusted',
  )
  for (const bad of [
    'dashboard',
    '//evil.example.com/x',
    'javascript:alert(1)',
    'ftp://example.com/',
    'https://example.com/?a=1',
    'https://example.com/#x',
    '',
    ' /x',
  ]) {
    t.throws(() => apiRouter(engine, { dashboardUrl: bad }), TypeError, `refused at start-up: ${JSON.stringify(bad)}`)
  }
})

t.test('in-process: the same operation, the same checks', async (t) => {
  const f = await dashboardFixture(t)
  await grantedSites(f, { siteone: undefined })
  const api = f.engine.as('alice')
  t.match((await api.ssoLink('acc')).url, /^\/dashboard\/sso\?token=[A-Za-z0-9_-]{43}$/, 'default: the /dashboard path')
  t.match(
    (await api.ssoLink('acc', { target: 'STATS', site_name: 'siteone' }, 'https://x.example.com/d')).url,
    /^https:\/\/x\.example\.com\/d\/sso\?token=/,
  )
  await rejectsWith(t, api.ssoLink('acc', {}, 'not a url'), 'InvalidInput', 'a bad dashboardUrl')
  await rejectsWith(t, api.ssoLink('acc', { target: 'STATS' }), 'InvalidInput')
  await rejectsWith(t, api.ssoLink('nobody'), 'ResourceNotExist')
  await rejectsWith(t, api.ssoLink(42 as unknown as string), 'ResourceNotExist', 'a non-string name names no account')
})

t.test('a token is redeemed once, and only within 120 s of the engine clock', async (t) => {
  const f = await dashboardFixture(t)
  await grantedSites(f, { siteone: undefined })
  const redeem = (token: string) => f.http.get(`/dashboard/sso?token=${token}`)

  const once = f.tokenOf(await f.link('acc'))
  const head = await f.http.head(`/dashboard/sso?token=${once}`)
  t.equal(head.status, 200, 'a HEAD (a link checker) answers')
  t.notOk(head.headers['set-cookie'], 'without signing in')
  t.equal((await redeem(once)).status, 303, 'first use: the HEAD did not spend the token')
  const again = await redeem(once)
  t.equal(again.status, 401, 'second use: 401')
  t.notOk(again.headers['set-cookie'], 'and no cookie')

  const late = f.tokenOf(await f.link('acc'))
  const inTime = f.tokenOf(await f.link('acc'))
  f.clock.advance(119)
  t.equal((await redeem(inTime)).status, 303, 'at 119 s: accepted')
  f.clock.advance(1)
  const expired = await redeem(late)
  t.equal(expired.status, 401, 'at 120 s: refused')
  t.notOk(expired.headers['set-cookie'])
  f.clock.set('2025-03-10T12:00:00')
  t.equal((await redeem(late)).status, 401, 'an expired token stays dead when the clock is set back')
})

t.test('parallel redemptions of one token: exactly one session', async (t) => {
  const f = await dashboardFixture(t)
  await grantedSites(f, { siteone: undefined })
  const token = f.tokenOf(await f.link('acc'))
  const answers = await Promise.all(Array.from({ length: 20 }, () => f.http.get(`/dashboard/sso?token=${token}`)))
  t.equal(answers.filter((r) => r.status === 303).length, 1, 'one 303')
  t.equal(answers.filter((r) => r.status === 401).length, 19, 'the rest 401')
  t.equal(answers.filter((r) => r.headers['set-cookie']).length, 1, 'one cookie')
})

t.test('a session lasts 12 h on the engine clock', async (t) => {
  const f = await dashboardFixture(t)
  await grantedSites(f, { siteone: undefined })
  const cookie = await f.signIn('acc')
  f.clock.advance(12 * 3600 - 1)
  t.equal((await f.page('/', cookie)).status, 200, '1 s before 12 h')
  f.clock.advance(1)
  const ended = await f.page('/', cookie)
  t.equal(ended.status, 401, 'at 12 h: 401')
  t.match(ended.text, /session has ended/)
})

t.test('a session dies with its account, also when the name is re-created at the same instant', async (t) => {
  const f = await dashboardFixture(t)
  await grantedSites(f, { siteone: undefined })
  const cookie = await f.signIn('acc')
  const pending = f.tokenOf(await f.link('acc'))
  await f.engine.as('alice').deleteAccount('acc')
  const gone = await f.page('/', cookie)
  t.equal(gone.status, 401, 'deleted account: 401')
  t.match(gone.text, /no longer exists/)
  // The fake clock has not moved: the new account has the same created_at.
  await f.engine.as('alice').createAccount({ account_name: 'acc' })
  await f.engine.as('alice').grantAccess('acc', 'siteone')
  t.equal((await f.page('/', cookie)).status, 401, 're-created account: the old session is still refused')
  const late = await f.http.get(`/dashboard/sso?token=${pending}`)
  const lateCookie = String(late.headers['set-cookie']?.[0] ?? '').split(';')[0]!
  t.equal(
    (await f.page('/', lateCookie)).status,
    401,
    'a token issued for the deleted account opens nothing the new one can see',
  )
  const fresh = await f.signIn('acc')
  t.equal((await f.page('/', fresh)).status, 200, 'a new link works for the new account')
})

t.test('no secret appears in an error message or page', async (t) => {
  const f = await dashboardFixture(t)
  await grantedSites(f, { siteone: undefined })
  const token = f.tokenOf(await f.link('acc'))
  await f.http.get(`/dashboard/sso?token=${token}`)
  const reused = await f.http.get(`/dashboard/sso?token=${token}`)
  t.notMatch(reused.text, token, 'the used token is not echoed')
  const odd = `${token}<b>`
  const bad = await f.http.get(`/dashboard/sso?token=${encodeURIComponent(odd)}`)
  t.equal(bad.status, 401)
  t.notMatch(bad.text, token, 'a malformed token is not echoed either')
  const cookie = await f.signIn('acc')
  const session = cookie.split('=')[1]!
  t.match(session, TOKEN, 'the session id is 256 random bits too')
  await f.engine.as('alice').deleteAccount('acc')
  const gone = await f.page('/', cookie)
  t.notMatch(gone.text, session, 'the session id is not echoed')
  t.same(f.errors, [])
})

t.test('dashboard reads do not count toward the daily analytics limit', async (t) => {
  const f = await dashboardFixture(t)
  await grantedSites(f, { siteone: undefined })
  const cookie = await f.signIn('acc')
  const api = f.engine.as('alice')
  for (let i = 0; i < 299; i++) await api.siteAnalytics('siteone')
  for (let i = 0; i < 3; i++) t.equal((await f.page('/sites/siteone', cookie)).status, 200, `page load ${i + 1}`)
  t.equal((await f.api('alice', '/analytics/site/siteone')).status, 200, 'the 300th API call still succeeds')
  isError(t, await f.api('alice', '/analytics/site/siteone'), 429, 'DailyLimitExceeded', 'the 301st is refused')
  t.equal((await f.page('/sites/siteone?days=90', cookie)).status, 200, 'the dashboard works with the limit reached')
})
