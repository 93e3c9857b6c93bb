/**
 * Today's Duda API for accounts, driven by the unmodified `@dudadev/partner-api`
 * 3.3.1 client over HTTPS on port 443 (no path or agent overrides): accounts
 * (get, create, update, delete), permissions (list, get, grantSiteAccess,
 * removeSiteAccess, listAccessibleSites), authentication (getSSOLink with
 * site_name and target, getResetPasswordLink, getWelcomeLink) and
 * reporting.analytics.get with its date granularity. Each call's effect is
 * read back through the client, through the spec's paths and in process, on
 * MemoryStore, RedisStore (REDIS_URL) and PostgresStore (DATABASE_URL); every
 * answer under /api is checked against the OpenAPI document.
 */
import { Duda } from '@dudadev/partner-api'
import { DUDA_HOST, PortRefused, startDudaServer, trustedProcess } from '../helpers/duda/accounts-server.js'

const tls = await trustedProcess()
const { default: t } = await import('tap')
const { createEngine } = await import('../../lib/index.js')
const { PERMISSION_NAMES } = await import('../../lib/schema/duda/accounts.js')
const { FakeClock, siteBody } = await import('../helpers/api.js')
const { checkedFetch } = await import('../helpers/openapi-check.js')
const { STORES, basic } = await import('../helpers/testing.js')
const { createControls } = await import('../../lib/testing/index.js')

const ALICE = { user: 'alice', password: 'alice-pw', partner: true }
const BOB = { user: 'bob', password: 'bob-pw', partner: false }
const ALL = [...PERMISSION_NAMES]

/** What the client rejects with on an HTTP error: `[{ status, error }, body]`. */
async function failure(work: Promise<unknown>): Promise<{ status: number; error_code: string; message: string }> {
  try {
    await work
  } catch (thrown) {
    const [error] = thrown as [{ status: number; error: { error_code: string; message: string } }]
    return { status: error.status, error_code: error.error.error_code, message: error.error.message }
  }
  throw new Error('the call succeeded')
}

if (!process.env.REDIS_URL) t.comment('RedisStore skipped: REDIS_URL is not set')
if (!process.env.DATABASE_URL) t.comment('PostgresStore skipped: DATABASE_URL is not set')

for (const kind of STORES) {
  t.test(`${kind.name}: the client's account calls`, async (t) => {
    const clock = new FakeClock('2025-03-10T12:00:00')
    const engine = createEngine({ store: kind.make(t), now: clock.now })
    await engine.addMasterAccount(ALICE)
    await engine.addMasterAccount(BOB)
    const server = await startDudaServer(engine, tls).catch((error: unknown) => {
      if (error instanceof PortRefused) return undefined
      throw error
    })
    t.teardown(async () => {
      await server?.close()
      await engine.close()
    })
    if (server === undefined) {
      t.pass('skipped', { skip: `the client only speaks HTTPS on port 443, and ${new PortRefused().message}` })
      return
    }
    const duda = new Duda({ user: ALICE.user, pass: ALICE.password, env: DUDA_HOST })
    const alice = engine.as(ALICE.user)
    /** A call on the spec's paths, its answer checked against the document. */
    const spec = async (method: string, path: string, body?: unknown) => {
      const res = await checkedFetch(`${server.origin}/api${path}`, {
        method,
        headers: {
          authorization: basic(ALICE.user, ALICE.password),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      const text = await res.text()
      return { status: res.status, body: text ? JSON.parse(text) : undefined }
    }
    const sites: string[] = []
    for (const name of ['dudaone', 'dudatwo', 'dudathree']) {
      sites.push((await alice.createSite(siteBody(name))).site_name)
    }
    const [s1, s2, s3] = sites as [string, string, string]

    await t.test('accounts.create, with account_type and lang', async (t) => {
      await duda.accounts.create({
        account_name: 'ada',
        first_name: 'Ada',
        email: 'ada@example.com',
        lang: 'en',
        account_type: 'CUSTOMER',
      })
      const shown = { account_name: 'ada', first_name: 'Ada', email: 'ada@example.com' }
      t.strictSame(await duda.accounts.get({ account_name: 'ada' }), shown, 'client: the spec fields, never lang')
      t.strictSame((await spec('GET', '/accounts/ada')).body, shown, "the spec's Retrieve Account")
      t.strictSame(await alice.getAccount('ada'), shown, 'in process')
      const again = await failure(duda.accounts.create({ account_name: 'ADA' }))
      t.strictSame([again.status, again.error_code], [400, 'ResourceAlreadyExist'], 'names are unique')
      const bad = await failure(duda.accounts.create({ account_name: 'eve', account_type: 'ADMIN' as 'STAFF' }))
      t.strictSame([bad.status, bad.error_code], [400, 'InvalidInput'], 'account_type is CUSTOMER or STAFF')
      t.match(bad.message, /account_type/)
      const unknown = await spec('POST', '/accounts/create', { account_name: 'eve', company_name: 'X' })
      t.strictSame([unknown.status, unknown.body.error_code], [400, 'InvalidInput'], 'other fields: still refused')
      t.equal((await spec('GET', '/accounts/eve')).status, 400, 'no account was made by a refused create')
    })

    await t.test('accounts.update', async (t) => {
      await duda.accounts.update({ account_name: 'ada', last_name: 'Lovelace', lang: 'es' })
      const shown = { account_name: 'ada', first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' }
      t.strictSame(await duda.accounts.get({ account_name: 'ada' }), shown, 'client')
      t.strictSame((await spec('GET', '/accounts/ada')).body, shown, 'spec path')
      t.strictSame(await alice.getAccount('ada'), shown, 'in process')
      const missing = await failure(duda.accounts.update({ account_name: 'nobody', first_name: 'No' }))
      t.strictSame([missing.status, missing.error_code], [400, 'ResourceNotExist'])
    })

    await t.test('permissions.list', async (t) => {
      t.strictSame(await duda.accounts.permissions.list(), ALL, "every permission name, in Duda's order")
      const bob = new Duda({ user: BOB.user, pass: BOB.password, env: DUDA_HOST })
      const refused = await failure(bob.accounts.permissions.list())
      t.strictSame([refused.status, refused.error_code], [403, 'AccessForbidden'], 'partner-only')
    })

    await t.test('permissions.grantSiteAccess, get and listAccessibleSites, on both paths', async (t) => {
      const perms = (site_name: string) => duda.accounts.permissions.get({ account_name: 'ada', site_name })
      t.strictSame(await perms(s1), { permissions: [] }, 'nothing granted yet')
      await duda.accounts.permissions.grantSiteAccess({
        account_name: 'ada',
        site_name: s1,
        permissions: ['EDIT', 'STATS_TAB'],
      })
      t.strictSame(await perms(s1), { permissions: ['STATS_TAB', 'EDIT'] }, "client: the permissions, in Duda's order")
      t.strictSame(await alice.accountSites('ada'), [s1], 'in process: a grant like the spec’s')
      const sso = await spec('GET', `/accounts/sso/ada/link?target=STATS&site_name=${s1}`)
      t.equal(sso.status, 200, "the spec's SSO link sees the grant")

      t.equal((await spec('POST', `/accounts/grant-access/ada/sites/${s2}`)).status, 204, 'a grant on the old path')
      t.strictSame(await perms(s2), { permissions: ALL }, 'holds every permission')
      t.strictSame(await alice.getSitePermissions('ada', s2), { permissions: ALL }, 'in process too')
      t.strictSame(
        await duda.accounts.permissions.listAccessibleSites({ account_name: 'ada' }),
        [{ site_name: s1 }, { site_name: s2 }],
        'both grants are listed',
      )

      await duda.accounts.permissions.grantSiteAccess({ account_name: 'ada', site_name: s2, permissions: ['SEO'] })
      t.strictSame(await perms(s2), { permissions: ['SEO'] }, 'granting again replaces the permissions')
      t.equal((await spec('POST', `/accounts/grant-access/ada/sites/${s2}`)).status, 204)
      t.strictSame(await perms(s2), { permissions: ALL }, 'and the old path gives every one back')

      const bad = await failure(
        duda.accounts.permissions.grantSiteAccess({ account_name: 'ada', site_name: s3, permissions: ['FLY'] }),
      )
      t.strictSame([bad.status, bad.error_code], [400, 'InvalidInput'], 'an unknown permission')
      const none = await failure(
        duda.accounts.permissions.grantSiteAccess({ account_name: 'ada', site_name: s3, permissions: [] }),
      )
      t.strictSame([none.status, none.error_code], [400, 'InvalidInput'], 'no permission at all')
      t.strictSame(await perms(s3), { permissions: [] }, 'refused grants change nothing')
      const noSite = await failure(
        duda.accounts.permissions.grantSiteAccess({
          account_name: 'ada',
          site_name: 'nosuchsite',
          permissions: ['EDIT'],
        }),
      )
      t.strictSame([noSite.status, noSite.error_code], [400, 'ResourceNotExist'], 'a site that does not exist')
      const noAccount = await failure(duda.accounts.permissions.get({ account_name: 'nobody', site_name: s1 }))
      t.strictSame(
        [noAccount.status, noAccount.error_code],
        [400, 'ResourceNotExist'],
        'an account that does not exist',
      )
    })

    await t.test('permissions.removeSiteAccess, and Revoke Access on a new grant', async (t) => {
      await duda.accounts.permissions.removeSiteAccess({ account_name: 'ada', site_name: s1 })
      t.strictSame(await duda.accounts.permissions.get({ account_name: 'ada', site_name: s1 }), { permissions: [] })
      t.strictSame(await alice.accountSites('ada'), [s2], 'in process')
      t.strictSame(await duda.accounts.permissions.listAccessibleSites({ account_name: 'ada' }), [{ site_name: s2 }])
      const sso = await spec('GET', `/accounts/sso/ada/link?target=STATS&site_name=${s1}`)
      t.strictSame([sso.status, sso.body.error_code], [400, 'InvalidInput'], 'the spec’s SSO link: not granted')
      await duda.accounts.permissions.removeSiteAccess({ account_name: 'ada', site_name: s1 })
      t.pass('removing a grant that does not exist succeeds')

      await duda.accounts.permissions.grantSiteAccess({ account_name: 'ada', site_name: s3, permissions: ['EDIT'] })
      t.equal((await spec('POST', `/accounts/revoke-access/ada/sites/${s3}`)).status, 204)
      t.strictSame(await duda.accounts.permissions.get({ account_name: 'ada', site_name: s3 }), { permissions: [] })
    })

    await t.test("a snapshot keeps a grant's permissions, and seeding it gives them back", async (t) => {
      await duda.accounts.permissions.grantSiteAccess({ account_name: 'ada', site_name: s3, permissions: ['BLOG'] })
      const controls = createControls(engine)
      const snap = await controls.snapshot()
      const grants = (snap.grants ?? []).filter((g) => g.account_name === 'ada')
      t.strictSame(
        grants.map((g) => [g.site_name, g.permissions]),
        [
          [s3, ['BLOG']],
          [s2, undefined],
        ],
        'sorted by site; every permission: no list, else the list',
      )
      await controls.reset()
      t.equal((await spec('GET', '/accounts/ada')).body.error_code, 'ResourceNotExist', 'reset')
      await controls.seed(snap)
      t.strictSame(await duda.accounts.permissions.get({ account_name: 'ada', site_name: s3 }), {
        permissions: ['BLOG'],
      })
      t.strictSame(await duda.accounts.permissions.get({ account_name: 'ada', site_name: s2 }), { permissions: ALL })
      await duda.accounts.permissions.removeSiteAccess({ account_name: 'ada', site_name: s3 })
    })

    await t.test('authentication.getSSOLink with site_name and target', async (t) => {
      const { url } = await duda.accounts.authentication.getSSOLink({
        account_name: 'ada',
        site_name: s2,
        target: 'EDITOR',
      })
      t.match(url, new RegExp(`^${server.origin}/dashboard/sso\\?token=`), 'a link to the dashboard')
      const landing = await fetch(url, { redirect: 'manual' })
      t.equal(landing.status, 303, 'it signs in')
      t.match(landing.headers.get('location'), new RegExp(`/sites/${s2}`), "EDITOR lands on the site's page")
      t.match(landing.headers.get('set-cookie'), /Secure/, 'a Secure cookie over TLS')
      t.equal((await fetch(url, { redirect: 'manual' })).status, 401, 'once')

      const dash = await duda.accounts.authentication.getSSOLink({ account_name: 'ada' })
      const home = await fetch(dash.url, { redirect: 'manual' })
      t.equal(home.status, 303)
      t.notMatch(home.headers.get('location'), /\/sites\//, 'no target: the dashboard')
      const noSite = await failure(duda.accounts.authentication.getSSOLink({ account_name: 'ada', target: 'STATS' }))
      t.strictSame([noSite.status, noSite.error_code], [400, 'InvalidInput'], 'a site target needs site_name')
      const notGranted = await failure(
        duda.accounts.authentication.getSSOLink({ account_name: 'ada', site_name: s1, target: 'SITE_OVERVIEW' }),
      )
      t.strictSame([notGranted.status, notGranted.error_code], [400, 'InvalidInput'], 'the site must be granted')
    })

    await t.test('getWelcomeLink and getResetPasswordLink: 7-day single-use sign-in links', async (t) => {
      for (const [label, call] of [
        ['welcome', () => duda.accounts.authentication.getWelcomeLink({ account_name: 'ada' })],
        ['reset', () => duda.accounts.authentication.getResetPasswordLink({ account_name: 'ada' })],
      ] as const) {
        const { reset_url } = await call()
        t.match(reset_url, new RegExp(`^${server.origin}/dashboard/sso\\?token=`), `${label}: a sign-in link`)
        clock.advance(7 * 86_400 - 1)
        const landing = await fetch(reset_url, { redirect: 'manual' })
        t.equal(landing.status, 303, `${label}: still valid a second before 7 days`)
        t.equal((await fetch(reset_url, { redirect: 'manual' })).status, 401, `${label}: used once`)
        const late = (await call()).reset_url
        clock.advance(7 * 86_400)
        t.equal((await fetch(late, { redirect: 'manual' })).status, 401, `${label}: dead after 7 days`)
        const stranger = await failure(
          label === 'welcome'
            ? duda.accounts.authentication.getWelcomeLink({ account_name: 'nobody' })
            : duda.accounts.authentication.getResetPasswordLink({ account_name: 'nobody' }),
        )
        t.strictSame([stranger.status, stranger.error_code], [400, 'ResourceNotExist'], `${label}: unknown account`)
      }
      const inProcess = await alice.welcomeLink('ada', 'https://dash.example/d')
      t.match(inProcess.reset_url, /^https:\/\/dash\.example\/d\/sso\?token=/, 'in process, at the dashboard given')
    })

    await t.test('reporting.analytics.get with date_granularity', async (t) => {
      clock.set('2025-04-20T12:00:00')
      const visits: [string, string][] = [
        ['2025-03-31', 'v1'],
        ['2025-04-01', 'v1'],
        ['2025-04-06', 'v2'],
        ['2025-04-07', 'v1'],
        ['2025-04-07', 'v3'],
      ]
      for (const [day, visitor_id] of visits) {
        await engine.recordVisit({ site_name: s2, at: new Date(`${day}T10:00:00Z`), visitor_id })
      }
      const weeks = await duda.reporting.analytics.get({
        site_name: s2,
        from: '2025-04-01',
        to: '2025-04-10',
        date_granularity: 'WEEKS',
      })
      const bucket = (date: string, visits: number, visitors: number) => ({
        date,
        data: { UNIQUE_VISITORS: visitors, VISITS: visits, PAGE_VIEWS: visits },
      })
      t.strictSame(
        weeks,
        [bucket('2025-04-01', 2, 2), bucket('2025-04-07', 2, 2)],
        'ISO weeks clipped to the period; visitors distinct per bucket',
      )
      for (const { date, data } of weeks as unknown as { date: string; data: unknown }[]) {
        const to = date === '2025-04-01' ? '2025-04-06' : '2025-04-10'
        const res = await spec('GET', `/analytics/site/${s2}?from=${date}&to=${to}`)
        t.strictSame(res.body, data, `bucket ${date} = the spec's Get Site Analytics for its days`)
      }
      t.strictSame(
        await alice.siteAnalytics(s2, { from: '2025-04-01', to: '2025-04-10', dateGranularity: 'WEEKS' }),
        weeks,
        'in process',
      )
      const days = (await duda.reporting.analytics.get({
        site_name: s2,
        from: '2025-03-31',
        to: '2025-04-02',
        date_granularity: 'DAYS',
      })) as unknown as { date: string }[]
      t.strictSame(
        days.map((b) => b.date),
        ['2025-03-31', '2025-04-01', '2025-04-02'],
        'DAYS',
      )
      const months = (await duda.reporting.analytics.get({
        site_name: s2,
        from: '2025-03-15',
        to: '2025-04-20',
        result: 'activities',
        date_granularity: 'MONTHS',
      })) as unknown as { date: string; data: Record<string, number> }[]
      t.strictSame(
        months.map((b) => [b.date, b.data.CLICK_TO_CALLS]),
        [
          ['2025-03-15', 0],
          ['2025-04-01', 0],
        ],
        'MONTHS, activities',
      )
      const geo = (await duda.reporting.analytics.get({
        site_name: s2,
        from: '2025-01-01',
        to: '2025-04-20',
        dimension: 'geo',
        date_granularity: 'YEARS',
      })) as unknown as { date: string; data: unknown[] }[]
      t.equal(geo.length, 1, 'YEARS: one bucket')
      t.ok(Array.isArray(geo[0]!.data), 'with a dimension, each bucket holds the rows')
      const bad = await failure(duda.reporting.analytics.get({ site_name: s2, date_granularity: 'HOURS' as 'DAYS' }))
      t.strictSame([bad.status, bad.error_code], [400, 'InvalidInput'], 'an unknown granularity')
      const long = { from: '2022-01-01', to: '2024-09-26', dateGranularity: 'DAYS' as const }
      t.equal(((await alice.siteAnalytics(s2, long)) as unknown[]).length, 1000, '1000 day buckets is the most')
      await t.rejects(
        alice.siteAnalytics(s2, { ...long, to: '2024-09-27' }),
        { error_code: 'InvalidInput' } as unknown as Error,
        'one more is InvalidInput',
      )
    })

    await t.test('a granularity call counts once toward the daily limit', async (t) => {
      clock.set('2025-04-21T08:00:00')
      for (let i = 0; i < 299; i++) await alice.siteAnalytics(s2, {})
      await duda.reporting.analytics.get({ site_name: s2, date_granularity: 'DAYS' })
      const refused = await failure(duda.reporting.analytics.get({ site_name: s2, date_granularity: 'DAYS' }))
      t.strictSame([refused.status, refused.error_code], [429, 'DailyLimitExceeded'], 'the 301st call of the day')
    })

    await t.test('accounts.delete on DELETE /accounts/{name}', async (t) => {
      await duda.accounts.delete({ account_name: 'ada' })
      const gone = await failure(duda.accounts.get({ account_name: 'ada' }))
      t.strictSame([gone.status, gone.error_code], [400, 'ResourceNotExist'], 'client')
      t.equal((await spec('GET', '/accounts/ada')).body.error_code, 'ResourceNotExist', 'spec path')
      await t.rejects(alice.getAccount('ada'), { error_code: 'ResourceNotExist' } as unknown as Error, 'in process')
      await alice.createAccount({ account_name: 'ada' })
      t.strictSame(await duda.accounts.permissions.listAccessibleSites({ account_name: 'ada' }), [], 'grants went too')
      const again = await failure(duda.accounts.delete({ account_name: 'nobody' }))
      t.strictSame([again.status, again.error_code], [400, 'ResourceNotExist'])
      t.equal((await spec('DELETE', '/account/ada')).status, 204, "the spec's Delete Account still works")
    })

    t.test('every answer conformed to the OpenAPI document', async (t) => {
      t.ok(server.checked() > 40, `${server.checked()} answers checked`)
      t.strictSame(server.problems, [])
    })
  })
}
