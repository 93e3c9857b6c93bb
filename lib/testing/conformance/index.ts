/**
 * The shared Store conformance suite, one entry for all of it: every Store
 * adapter runs it through its own test file, e.g.
 *
 * ```ts
 * storeConformance(t, 'MemoryStore', () => new MemoryStore(), { uniqueVisitors: 'exact' })
 * ```
 *
 * It uses only the Store contract, never an adapter's internals. Each group
 * opens a store from the factory, which must hand out an EMPTY store on every
 * call, and closes it when the group ends. The groups live one file per area
 * of the contract in this folder.
 */
import { accountGroups } from './accounts.js'
import { analyticsGroups } from './analytics.js'
import { expectationGroups } from './expect.js'
import { grantPermissionGroups } from './grant-permissions.js'
import { hardeningGroups } from './hardening.js'
import { type ConformanceOptions, type StoreFactory, type Tap, open, settingsOf, siteRecord } from './fixtures.js'
import { lifecycleGroups } from './lifecycle.js'
import { siteGroups } from './sites.js'
import { activityLogGroups } from './activity-log.js'
import { ssoGroups } from './sso.js'
import { stateGroups } from './state.js'

export type { ConformanceOptions, StoreFactory, Tap } from './fixtures.js'

/** A far-future expiry, so counting never meets expiry in these tests. */
const FAR = Date.UTC(2999, 0, 1)

/**
 * Runs the whole conformance suite, analytics included, against stores made
 * by `factory`, as one subtest named `${name} conformance`. `options` says
 * where the store differs as the contract allows (how it counts distinct
 * visitors, whether it exports visitor sketches); the suite holds it to that.
 */
export function storeConformance(
  t: Tap,
  name: string,
  factory: StoreFactory,
  options: ConformanceOptions = {},
): Promise<unknown> {
  const settings = settingsOf(options)
  return t.test(`${name} conformance`, async (t) => {
    t.test('sites', async (t) => siteGroups(t, factory))
    t.test('site activity log', async (t) => activityLogGroups(t, factory))
    t.test('publish, billing, delete', async (t) => lifecycleGroups(t, factory))
    t.test('site expectations (created_at, build)', async (t) => expectationGroups(t, factory))
    t.test('masters, accounts, grants', async (t) => accountGroups(t, factory))
    t.test('grant permissions', async (t) => grantPermissionGroups(t, factory))
    t.test('incrementWithinLimit', async (t) => limitGroups(t, factory))
    t.test('close', async (t) => closeGroups(t, factory))
    t.test('hardening (conditional masters, case-insensitive names)', async (t) => hardeningGroups(t, factory))
    t.test('SSO tokens and sessions', async (t) => ssoGroups(t, factory))
    t.test('state: clear, export, import', async (t) => stateGroups(t, factory, settings))
    t.test('analytics', async (t) => analyticsGroups(t, factory, settings))
  })
}

function limitGroups(t: Tap, factory: StoreFactory): void {
  t.test('counts up to the limit, then refuses', async (t) => {
    const store = await open(t, factory)
    for (let i = 1; i <= 3; i++) {
      t.strictSame(await store.incrementWithinLimit('k', 3, FAR), { allowed: true, count: i }, `call ${i}`)
    }
    t.strictSame(await store.incrementWithinLimit('k', 3, FAR), { allowed: false, count: 3 }, 'the 4th is refused')
    t.strictSame(
      await store.incrementWithinLimit('k', 3, FAR),
      { allowed: false, count: 3 },
      'a refused call is not counted',
    )
    t.strictSame(await store.incrementWithinLimit('k', 5, FAR), { allowed: true, count: 4 }, 'the limit is per call')
    t.strictSame(await store.incrementWithinLimit('other', 3, FAR), { allowed: true, count: 1 }, 'keys are independent')
    t.strictSame(
      await store.incrementWithinLimit('zero', 0, FAR),
      { allowed: false, count: 0 },
      'limit 0 refuses at once',
    )
    for (const key of ['__proto__', 'constructor', 'toString']) {
      t.strictSame(await store.incrementWithinLimit(key, 2, FAR), { allowed: true, count: 1 }, `key ${key}`)
      t.strictSame(await store.incrementWithinLimit(key, 2, FAR), { allowed: true, count: 2 })
      t.strictSame(await store.incrementWithinLimit(key, 2, FAR), { allowed: false, count: 2 })
    }
  })

  t.test('400 parallel calls against a limit of 300: exactly 300 allowed', async (t) => {
    const store = await open(t, factory)
    const outcomes = await Promise.all(Array.from({ length: 400 }, () => store.incrementWithinLimit('daily', 300, FAR)))
    const allowed = outcomes.filter((o) => o.allowed)
    t.equal(allowed.length, 300)
    t.strictSame(
      allowed.map((o) => o.count).sort((a, b) => a - b),
      Array.from({ length: 300 }, (_, i) => i + 1),
      'each allowed call got its own count, 1 to 300',
    )
    t.ok(
      outcomes.filter((o) => !o.allowed).every((o) => o.count === 300),
      'refused calls report 300',
    )
    t.strictSame(await store.incrementWithinLimit('daily', 300, FAR), { allowed: false, count: 300 })
  })

  // The engine passes expiresAt on ITS clock, which may be a test clock set in
  // the past. A counter still being called must keep counting even though
  // that moment has passed on the store's own clock, or the daily limit would
  // never trip under such a clock.
  t.test('a counter keeps counting when expiresAt is already past on the store clock', async (t) => {
    const store = await open(t, factory)
    const past = Date.UTC(2020, 0, 2)
    for (let i = 1; i <= 3; i++) {
      t.strictSame(await store.incrementWithinLimit('old-day', 3, past), { allowed: true, count: i }, `call ${i}`)
    }
    t.strictSame(await store.incrementWithinLimit('old-day', 3, past), { allowed: false, count: 3 })
  })
}

function closeGroups(t: Tap, factory: StoreFactory): void {
  t.test('a closed store is unusable', async (t) => {
    const store = await factory()
    await store.createSite(siteRecord('before', 'alice'))
    await store.close()
    await t.rejects(store.getSite('before'), 'reads reject')
    await t.rejects(store.incrementWithinLimit('k', 1, FAR), 'writes reject')
  })
}
