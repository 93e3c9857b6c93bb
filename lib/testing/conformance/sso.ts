/**
 * Conformance groups for single sign-on tokens and dashboard sessions:
 * issue, single-use redemption (also under parallel calls), expiry on the
 * engine clock, sessions, and the account incarnation sessions depend on.
 */
import type { SsoRecord } from '../../store/contract/index.js'
import { T0, TRICKY_NAMES, accountRecord, at, open } from './fixtures.js'
import type { StoreFactory, Tap } from './fixtures.js'

/** A token record expiring `ttl` seconds after {@link T0}. */
function tokenRecord(over: Partial<SsoRecord> = {}, ttl = 120): SsoRecord {
  return {
    account_name: 'acc',
    owner: 'alice',
    incarnation: 'inc-1',
    target: 'DASHBOARD',
    expires_at: at(ttl),
    ...over,
  }
}

const HOURS_12 = 12 * 3600

/** Registers the SSO groups on `t`. */
export function ssoGroups(t: Tap, factory: StoreFactory): void {
  t.test('issue, then redeem once: the grant moves into a session', async (t) => {
    const store = await open(t, factory)
    await store.issueSsoToken('tok', tokenRecord({ target: 'STATS', site_name: 'site1' }), T0)
    const grant = await store.redeemSsoToken('tok', at(1), 'sess', at(1 + HOURS_12))
    t.strictSame(grant, {
      account_name: 'acc',
      owner: 'alice',
      incarnation: 'inc-1',
      target: 'STATS',
      site_name: 'site1',
    })
    t.strictSame(
      await store.getSession('sess', at(2)),
      { ...grant, expires_at: at(1 + HOURS_12) },
      'the session holds the grant',
    )
    t.equal(await store.redeemSsoToken('tok', at(2), 'sess2', at(2 + HOURS_12)), undefined, 'a second redemption fails')
    t.equal(await store.getSession('sess2', at(3)), undefined, 'and opens no session')
    t.equal(await store.redeemSsoToken('never', at(2), 'sess3', at(2 + HOURS_12)), undefined, 'an unknown token fails')
    t.equal(await store.getSession('sess3', at(3)), undefined)
  })

  t.test('a DASHBOARD grant has no site_name key', async (t) => {
    const store = await open(t, factory)
    await store.issueSsoToken('tok', tokenRecord(), T0)
    const grant = await store.redeemSsoToken('tok', T0, 'sess', at(HOURS_12))
    t.strictSame(grant, { account_name: 'acc', owner: 'alice', incarnation: 'inc-1', target: 'DASHBOARD' })
    t.notOk(Object.hasOwn((await store.getSession('sess', T0)) ?? {}, 'site_name'))
  })

  t.test('token expiry is decided by the `now` given, at the boundary', async (t) => {
    const store = await open(t, factory)
    await store.issueSsoToken('alive', tokenRecord({}, 120), T0)
    await store.issueSsoToken('dead', tokenRecord({}, 120), T0)
    t.ok(await store.redeemSsoToken('alive', at(120) - 1, 's1', at(HOURS_12)), '1 ms before expires_at: redeemed')
    t.equal(await store.redeemSsoToken('dead', at(120), 's2', at(HOURS_12)), undefined, 'at expires_at: refused')
    t.equal(await store.getSession('s2', at(121)), undefined, 'no session for an expired token')
    t.equal(
      await store.redeemSsoToken('dead', at(0), 's3', at(HOURS_12)),
      undefined,
      'an expired token is gone even for an earlier clock',
    )
  })

  t.test('a token issued with the clock far in the past still works on that clock', async (t) => {
    const store = await open(t, factory)
    const past = Date.UTC(2001, 0, 1)
    await store.issueSsoToken('old', tokenRecord({ expires_at: past + 120_000 }), past)
    t.ok(await store.redeemSsoToken('old', past + 1000, 'sess', past + 1000 + HOURS_12 * 1000))
    t.ok(await store.getSession('sess', past + 2000), 'and so does its session')
  })

  t.test('session expiry, at the boundary, and deleteSession', async (t) => {
    const store = await open(t, factory)
    await store.issueSsoToken('tok', tokenRecord(), T0)
    await store.redeemSsoToken('tok', T0, 'sess', at(HOURS_12))
    t.ok(await store.getSession('sess', at(HOURS_12) - 1), 'alive 1 ms before it expires')
    t.equal(await store.getSession('sess', at(HOURS_12)), undefined, 'dead when it expires')
    await store.issueSsoToken('tok2', tokenRecord(), T0)
    await store.redeemSsoToken('tok2', T0, 'sess2', at(HOURS_12))
    t.equal(await store.deleteSession('sess2'), true)
    t.equal(await store.getSession('sess2', T0), undefined, 'deleted')
    t.equal(await store.deleteSession('sess2'), false, 'a second delete finds nothing')
    t.equal(await store.deleteSession('never'), false)
  })

  t.test('answers are copies; tricky digests are ordinary keys', async (t) => {
    const store = await open(t, factory)
    for (const name of TRICKY_NAMES) {
      t.equal(await store.getSession(name, T0), undefined, `getSession(${name}) when empty`)
      t.equal(await store.redeemSsoToken(name, T0, name, at(HOURS_12)), undefined, `redeem(${name}) when empty`)
      await store.issueSsoToken(name, tokenRecord({ account_name: name }), T0)
      t.equal((await store.redeemSsoToken(name, T0, name, at(HOURS_12)))?.account_name, name)
      const session = await store.getSession(name, T0)
      t.equal(session?.account_name, name, `session ${name}`)
      if (session) session.owner = 'mallory'
      t.equal((await store.getSession(name, T0))?.owner, 'alice', 'mutating an answer changes nothing')
    }
  })

  t.test('50 parallel redemptions of one token: exactly one session', async (t) => {
    const store = await open(t, factory)
    await store.issueSsoToken('contested', tokenRecord(), T0)
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.redeemSsoToken('contested', at(1), `s-${i}`, at(HOURS_12))),
    )
    const winners = outcomes.flatMap((o, i) => (o === undefined ? [] : [i]))
    t.equal(winners.length, 1, 'exactly one redemption succeeds')
    const sessions = await Promise.all(outcomes.map((_, i) => store.getSession(`s-${i}`, at(2))))
    t.equal(sessions.filter(Boolean).length, 1, 'exactly one session exists')
    t.ok(sessions[winners[0]!], "and it is the winner's")
  })

  t.test('many tokens redeemed in parallel are independent', async (t) => {
    const store = await open(t, factory)
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => store.issueSsoToken(`t-${i}`, tokenRecord({ account_name: `a-${i}` }), T0)),
    )
    const grants = await Promise.all(
      Array.from({ length: 40 }, (_, i) => store.redeemSsoToken(`t-${i}`, at(1), `s-${i}`, at(HOURS_12))),
    )
    t.strictSame(
      grants.map((g) => g?.account_name),
      Array.from({ length: 40 }, (_, i) => `a-${i}`),
    )
  })

  t.test('an account keeps its incarnation', async (t) => {
    const store = await open(t, factory)
    await store.createAccount(accountRecord('acc', 'alice', { incarnation: 'first' }))
    t.equal((await store.getAccount('acc'))?.incarnation, 'first')
    await store.updateAccount('alice', 'acc', { first_name: 'Grace' })
    t.equal((await store.getAccount('acc'))?.incarnation, 'first', 'an update keeps it')
    await store.deleteAccount('alice', 'acc')
    await store.createAccount(accountRecord('acc', 'alice', { incarnation: 'second' }))
    t.equal((await store.getAccount('acc'))?.incarnation, 'second', 'a re-created account has its own')
  })
}
