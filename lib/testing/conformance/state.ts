/**
 * Conformance groups for the state operations behind the test-double
 * controls: clearState empties the store, exportState → clearState →
 * importState gives back the same state and the same answer to every read,
 * and importState is all or nothing.
 */
import type { StateDump, Store } from '../../store/contract/index.js'
import { StateConflictError } from '../../store/contract/index.js'
import {
  type Settings,
  type StoreFactory,
  type Tap,
  TRICKY_NAMES,
  accountRecord,
  activityEvent,
  at,
  fullSiteRecord,
  masterRecord,
  open,
  siteRecord,
  visitEvent,
} from './fixtures.js'

const ALL: [number, number] = [0, Number.MAX_SAFE_INTEGER]
const FAR = Date.UTC(2999, 0, 1)
const DAYS: [string, string] = ['2024-01-01', '2024-01-31']

/** A store with a bit of everything: masters, sites, accounts, grants, billing, analytics, a counter. */
async function populate(store: Store): Promise<void> {
  await store.putMaster(masterRecord('alice', true))
  await store.putMaster(masterRecord('__proto__'))
  await store.createSite(fullSiteRecord('full', 'alice'))
  await store.createSite(siteRecord('plain', 'alice', { created_at: at(10), modified_at: at(20), external_uid: 'uid' }))
  await store.createSite(siteRecord('constructor', '__proto__'))
  await store.publishSite('alice', 'plain', at(30), true)
  await store.createSite(siteRecord('gone', 'alice'))
  await store.publishSite('alice', 'gone', at(31), true)
  await store.deleteSite('alice', 'gone')
  await store.createAccount(accountRecord('ada', 'alice'))
  await store.createAccount(accountRecord('toString', '__proto__', { lang: 'ja' }))
  await store.grantAccess('alice', 'ada', 'plain')
  await store.grantAccess('alice', 'ada', 'full', ['STATS_TAB', 'EDIT'])
  await store.grantAccess('__proto__', 'toString', 'constructor')
  for (const [i, day] of ['2024-01-02', '2024-01-02', '2024-01-03', '2024-01-05'].entries()) {
    await store.recordVisit(visitEvent('plain', day, `v${i % 3}`, { page_views: i + 1, country: i % 2 ? 'JP' : 'US' }))
  }
  await store.recordVisit(visitEvent('full', '2024-01-03', 'v0', { browser: 'Safari 17', os: 'iOS' }))
  await store.recordVisit(visitEvent('constructor', '2024-01-04', 'x'))
  await store.recordActivity(activityEvent('plain', '2024-01-03', 'click_to_call'))
  await store.recordActivity(activityEvent('full', '2024-01-06', 'form_submit', { country: 'FR', region: 'IDF' }))
  await store.incrementWithinLimit('daily:alice', 300, FAR)
}

/** The answer to every read of the contract, for the state `populate` builds. */
async function reads(store: Store): Promise<unknown> {
  const out: Record<string, unknown> = {}
  for (const user of ['alice', '__proto__', 'nobody']) {
    out[`master ${user}`] = await store.getMaster(user)
    out[`billing ${user}`] = await store.getBilling(user)
    out[`created ${user}`] = await store.listSites(user, 'created', ...ALL)
    out[`modified ${user}`] = await store.listSites(user, 'modified', ...ALL)
    out[`most ${user}`] = await store.mostTraffic(user, ...DAYS, 10)
  }
  out.sites = await store.getSites(['full', 'plain', 'constructor', 'gone'])
  out.uid = await store.findSiteByExternalUid('alice', 'uid')
  out.ada = await store.getAccount('ada')
  out.grantsAda = await store.listGrants('alice', 'ada')
  out.grantsTo = await store.listGrants('__proto__', 'toString')
  out.permsFull = await store.getGrant('alice', 'ada', 'full')
  out.permsPlain = await store.getGrant('alice', 'ada', 'plain')
  for (const site of ['full', 'plain', 'constructor']) {
    for (const dimension of [undefined, 'system', 'geo'] as const) {
      out[`traffic ${site} ${dimension}`] = await store.siteTraffic(site, ...DAYS, dimension)
      out[`traffic ${site} ${dimension} one day`] = await store.siteTraffic(site, '2024-01-02', '2024-01-03', dimension)
      out[`activities ${site} ${dimension}`] = await store.siteActivities(site, ...DAYS, dimension)
    }
  }
  return out
}

function empty(): StateDump {
  return { masters: [], sites: [], accounts: [], grants: [], billing: [], analytics: [] }
}

/** Registers the state groups on `t`. */
export function stateGroups(t: Tap, factory: StoreFactory, settings: Settings): void {
  t.test('clearState empties everything, limit counters, tokens and sessions included', async (t) => {
    const store = await open(t, factory)
    await populate(store)
    const sso = {
      account_name: 'ada',
      owner: 'alice',
      incarnation: 'i1',
      target: 'DASHBOARD' as const,
      expires_at: FAR,
    }
    await store.issueSsoToken('token-1', sso, at(0))
    await store.issueSsoToken('token-2', sso, at(0))
    t.ok(await store.redeemSsoToken('token-2', at(1), 'session-1', FAR), 'a session before the clear')
    await store.clearState()
    t.strictSame(await store.exportState(), empty(), 'nothing to export')
    t.equal(await store.redeemSsoToken('token-1', at(2), 'session-2', FAR), undefined, 'tokens are gone')
    t.equal(await store.getSession('session-1', at(2)), undefined, 'sessions are gone')
    t.equal(await store.getMaster('alice'), undefined)
    t.equal(await store.getSite('plain'), undefined)
    t.equal(await store.getAccount('ada'), undefined)
    t.strictSame(await store.getBilling('alice'), { charges: [], subscriptions: [] })
    t.strictSame(await store.listSites('alice', 'created', ...ALL), [])
    t.strictSame(await store.mostTraffic('alice', ...DAYS, 10), [])
    t.strictSame(
      await store.incrementWithinLimit('daily:alice', 300, FAR),
      { allowed: true, count: 1 },
      'the counter restarts',
    )
    t.equal(await store.createSite(siteRecord('plain', 'bob')), true, 'names are free again')
    t.strictSame(
      await store.siteTraffic('plain', ...DAYS),
      [{ key: [], data: { visits: 0, page_views: 0, unique_visitors: 0 } }],
      'no analytics inherited',
    )
  })

  t.test('export, clear, import: the same state and the same answer to every read', async (t) => {
    const store = await open(t, factory)
    await populate(store)
    const before = await reads(store)
    const dump = await store.exportState()
    t.strictSame(await store.exportState(), dump, 'two exports of one state are equal')
    t.strictSame(
      dump.sites.map((s) => s.site_name),
      ['constructor', 'full', 'plain'],
      'sites, sorted',
    )
    t.equal(
      dump.billing.find((l) => l.owner === 'alice')?.charges.length,
      2,
      'the ledger keeps the deleted site’s charge',
    )
    await store.clearState()
    await store.importState(JSON.parse(JSON.stringify(dump)) as StateDump)
    t.strictSame(await reads(store), before, 'every read answers as before')
    t.strictSame(await store.exportState(), dump, 'the export is unchanged')
    t.equal(await store.deleteSite('alice', 'plain'), true)
    t.strictSame(
      (await store.getBilling('alice')).subscriptions,
      [
        { site_name: 'plain', status: 'cancelled' },
        { site_name: 'gone', status: 'cancelled' },
      ],
      'deleting an imported site cancels its imported subscription',
    )
    t.strictSame(
      await store.publishSite('alice', 'full', at(40), true),
      { charged: false },
      'an imported first publish is remembered',
    )
  })

  t.test('importState is all or nothing and lists every problem', async (t) => {
    const store = await open(t, factory)
    await populate(store)
    const before = await store.exportState()
    const dump: StateDump = {
      masters: [masterRecord('carol')],
      sites: [siteRecord('plain', 'carol'), siteRecord('fresh', 'carol'), siteRecord('fresh', 'carol')],
      accounts: [accountRecord('ada', 'carol')],
      grants: [
        { account_name: 'nobody', site_name: 'fresh' },
        { account_name: 'ada', site_name: 'nosite' },
      ],
      billing: [{ owner: 'carol', charges: [{ site_name: 'fresh', at: at(1) }], subscriptions: [] }],
      analytics: [
        {
          site_name: 'nowhere',
          day: '2024-01-02',
          visits: 1,
          page_views: 1,
          activities: { click_to_call: 0, click_to_map: 0, click_to_email: 0, form_submit: 0 },
          visitors: ['a'],
          system: [],
          geo: [],
        },
      ],
    }
    dump.sites.push(siteRecord('PLAIN', 'carol'))
    dump.accounts.push(accountRecord('ADA', 'carol'))
    const error2 = await store
      .importState({ ...dump, sites: [siteRecord('Fresh2', 'carol'), siteRecord('fresh2', 'carol')] })
      .then(
        () => undefined,
        (e: unknown) => e,
      )
    t.ok(
      /fresh2 already exists as Fresh2/.test((error2 as StateConflictError).problems.join(';')),
      'names differing in case only collide within a dump',
    )
    const error = await store.importState(dump).then(
      () => undefined,
      (e: unknown) => e,
    )
    for (const needle of [
      'site plain',
      'site PLAIN already exists as plain',
      'account ADA already exists as ada',
      'site fresh',
      'account ada',
      'no account nobody',
      'no site nosite',
      'nowhere',
    ]) {
      t.ok(
        (error as StateConflictError).problems.some((p) => p.includes(needle)),
        `lists: ${needle}`,
      )
    }
    t.ok(error instanceof StateConflictError, 'rejects with StateConflictError')
    t.strictSame(await store.exportState(), before, 'nothing was applied, not even the valid master')
    t.equal(
      await store.createSite(siteRecord('FULL', 'carol')),
      false,
      'imported names keep their case-insensitive claim',
    )
  })

  t.test('importState adds to the state; masters replace, exact visitor ids are counted', async (t) => {
    const store = await open(t, factory)
    await store.putMaster(masterRecord('alice', false))
    await store.createSite(siteRecord('old', 'alice'))
    const cell = (key: [string, string], visitors: string[]) => ({
      key,
      visits: visitors.length,
      page_views: visitors.length * 2,
      activities: { click_to_call: 1, click_to_map: 0, click_to_email: 0, form_submit: 0 },
      visitors,
    })
    await store.importState({
      ...empty(),
      masters: [masterRecord('alice', true)],
      sites: [siteRecord('new', 'alice', { external_uid: 'e' })],
      accounts: [accountRecord('acc', 'alice')],
      grants: [{ account_name: 'acc', site_name: 'old' }],
      analytics: ['2024-01-02', '2024-01-03'].map((day, i) => ({
        site_name: 'old',
        day,
        visits: 3,
        page_views: 6,
        activities: { click_to_call: 1, click_to_map: 0, click_to_email: 0, form_submit: 0 },
        system: [cell(['Chrome 120', 'Android'], ['a', 'b', `c${i}`])],
        geo: [cell(['US', 'CA'], ['a', 'b']), cell(['JP', 'Tokyo'], [`c${i}`])],
      })),
    })
    t.equal((await store.getMaster('alice'))?.partner, true, 'the master was replaced')
    t.strictSame(await store.listSites('alice', 'created', ...ALL), ['new', 'old'])
    t.equal((await store.findSiteByExternalUid('alice', 'e'))?.site_name, 'new')
    t.strictSame(await store.listGrants('alice', 'acc'), ['old'])
    t.strictSame(await store.siteTraffic('old', ...DAYS), [
      { key: [], data: { visits: 6, page_views: 12, unique_visitors: 4 } },
    ])
    t.strictSame(await store.siteTraffic('old', ...DAYS, 'geo'), [
      { key: ['JP', 'Tokyo'], data: { visits: 2, page_views: 4, unique_visitors: 2 } },
      { key: ['US', 'CA'], data: { visits: 4, page_views: 8, unique_visitors: 2 } },
    ])
    t.strictSame((await store.siteActivities('old', ...DAYS))[0]?.data.click_to_call, 2)
    t.strictSame(await store.mostTraffic('alice', ...DAYS, 10), [
      { site_name: 'old', data: { visits: 6, page_views: 12, unique_visitors: 4 } },
    ])
    t.equal(await store.createSite(siteRecord('new', 'bob')), false, 'an imported name is taken')
    for (const name of TRICKY_NAMES) {
      await store.importState({ ...empty(), sites: [siteRecord(name, 'alice')] })
      t.equal((await store.getSite(name))?.site_name, name, `a site named ${name}`)
    }
  })
  t.test(
    settings.visitorSketches
      ? 'an export gives visitors as sketches'
      : 'an export gives exact visitor ids; a dump holding sketches is refused',
    async (t) => {
      const store = await open(t, factory)
      await populate(store)
      const dump = await store.exportState()
      const day = dump.analytics.find((d) => d.site_name === 'plain' && d.day === '2024-01-02')
      const us = day?.geo.find((cell) => cell.key[0] === 'US')
      if (settings.visitorSketches) {
        t.equal(typeof day?.visitors_sketch, 'string', 'the day has a sketch')
        t.equal(typeof us?.visitors_sketch, 'string', 'so has a cell with visits')
      } else {
        t.strictSame(day?.visitors, ['v0', 'v1'], 'the day lists its visitors, sorted')
        t.strictSame(us?.visitors, ['v0'], 'so does each cell')
        t.notOk(JSON.stringify(dump).includes('visitors_sketch'), 'and nothing is a sketch')
      }
      const unreadable = 'bm90IGEgc2tldGNo' // base64 of "not a sketch"
      const error = await store
        .importState({
          ...empty(),
          analytics: [{ ...day!, day: '2024-02-01', visitors: undefined, visitors_sketch: unreadable }],
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        )
      t.ok(error instanceof StateConflictError, 'a sketch this store cannot read is refused')
      t.ok(
        (error as StateConflictError).problems.some((p) => p.includes('analytics of plain on 2024-02-01')),
        'naming the day',
      )
      t.strictSame(await store.exportState(), dump, 'and nothing was applied')
    },
  )
}
