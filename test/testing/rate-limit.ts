/**
 * Duda's rate limit (10 calls per second per master account): 429
 * TooManyRequests with Retry-After at the 11th call in a second, over HTTP
 * with a clock the test moves (apiRouter({ rateLimit })) and on a real
 * server; per account, refused calls not counted, after authentication;
 * switched at start, at run time over /__admin and in process, and by reset.
 */
import type { AddressInfo } from 'node:net'
import express from 'express'
import t from 'tap'
import { RateLimit, apiRouter, createEngine, startServer } from '../../lib/index.js'
import { checkedRequest } from '../helpers/openapi-check.js'
import { ALICE, BOB, STORES, adminServer, basic } from '../helpers/testing.js'

const alice = basic(ALICE.user, ALICE.password)
const bob = basic(BOB.user, BOB.password)

t.test('the 11th call in a second is refused until the first leaves the window', async (t) => {
  let now = 5_000
  const limit = new RateLimit({ perSecond: 10 }, () => now)
  const engine = createEngine()
  await engine.addMasterAccount(ALICE)
  await engine.addMasterAccount(BOB)
  const app = express().use('/api', apiRouter(engine, { rateLimit: limit }))
  const server = app.listen(0, '127.0.0.1')
  t.teardown(() => server.close())
  await new Promise((resolve) => server.once('listening', resolve))
  const http = checkedRequest(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)

  for (let i = 1; i <= 10; i++) {
    await http.get('/api/sites/created').set('authorization', alice).expect(200)
    now += 50
  }
  // 10 calls at 5000, 5050, ..., 5450; this one is at 5500.
  const refused = await http.get('/api/sites/created').set('authorization', alice).expect(429)
  t.same(refused.body, {
    error_code: 'TooManyRequests',
    message: 'master account alice made more than 10 calls in one second; retry after 1 s',
  })
  t.equal(refused.headers['retry-after'], '1')
  /** The status of one listing call with `authorization`. */
  const listed = async (authorization: string) =>
    (await http.get('/api/sites/created').set('authorization', authorization)).status
  t.equal(await listed(bob), 200, 'another master account has its own limit')
  now = 5999
  t.equal(await listed(alice), 429, 'refused calls do not count')
  now = 6000
  t.equal(await listed(alice), 200, 'the first call left the window')
  t.equal(await listed(alice), 429, 'the second has not')
  t.equal(await listed(basic('alice', 'wrong')), 401, 'authentication comes first')
  limit.set(undefined)
  for (let i = 0; i < 20; i++) await http.get('/api/sites/created').set('authorization', alice).expect(200)
  t.same(limit.get(), undefined, 'off')
  t.throws(() => new RateLimit({ perSecond: 0 }), /whole number from 1 to 10000/)
  t.throws(() => limit.set({ perSecond: 2.5 }), /whole number/)
})

t.test('startServer({ rateLimit }) on a real server: 429 at the 11th call of a burst', async (t) => {
  const engine = createEngine()
  await engine.addMasterAccount(ALICE)
  const server = await startServer({ engine, rateLimit: { perSecond: 10 } })
  t.teardown(() => server.close())
  const http = checkedRequest(server.url)
  const started = performance.now()
  const statuses: number[] = []
  for (let i = 0; i < 11; i++) statuses.push((await http.get('/api/agents').set('authorization', alice)).status)
  const elapsed = performance.now() - started
  // Eleven local calls take milliseconds; on a machine so loaded that they took a second, the window moved on.
  if (elapsed < 1000) t.same(statuses, [...Array(10).fill(200), 429])
  else t.same(statuses.slice(0, 10), Array(10).fill(200), `the burst took ${Math.round(elapsed)} ms`)
})

for (const kind of STORES) {
  t.test(
    `${kind.name}: switched at run time over /__admin and in process; reset comes back to the start`,
    async (t) => {
      const { server } = await adminServer(t, kind)
      const admin = checkedRequest(server.url, '')
      const api = checkedRequest(server.url)
      t.same((await admin.get('/__admin/rate-limit').expect(200)).body, { on: false }, 'off by default')
      for (let i = 0; i < 15; i++) await api.get('/api/agents').set('authorization', alice).expect(200)
      t.same((await admin.put('/__admin/rate-limit').send({ perSecond: 2 }).expect(200)).body, {
        on: true,
        perSecond: 2,
      })
      const started = performance.now()
      const statuses: number[] = []
      for (let i = 0; i < 3; i++) statuses.push((await api.get('/api/agents').set('authorization', alice)).status)
      if (performance.now() - started < 1000) {
        t.same(statuses, [200, 200, 429], 'the third call in a second')
        const journal = server.controls.requests({ status: 429 }).requests
        t.match(journal, [{ status: 429, error_code: 'TooManyRequests', user: 'alice', route: '/agents' }])
      }
      for (const body of [{}, { perSecond: 0 }, { perSecond: 10_001 }, { perSecond: 1.5 }, { perSecond: 2, x: 1 }])
        t.equal((await admin.put('/__admin/rate-limit').send(body).expect(400)).body.error_code, 'InvalidInput')
      t.same((await admin.delete('/__admin/rate-limit').expect(200)).body, { on: false })
      for (let i = 0; i < 5; i++) await api.get('/api/agents').set('authorization', alice).expect(200)

      const c = server.controls
      t.same(c.setRateLimit({ perSecond: 1 }), { on: true, perSecond: 1 }, 'in process')
      t.same((await admin.get('/__admin/rate-limit').expect(200)).body, { on: true, perSecond: 1 }, 'seen over HTTP')
      await api.get('/api/agents').set('authorization', bob).expect(200)
      t.throws(() => c.setRateLimit({ perSecond: -1 }), { error_code: 'InvalidInput' } as never)
      await c.reset()
      t.same(c.rateLimit(), { on: false }, 'reset: back to the start-up setting (off)')
    },
  )
}

t.test('reset comes back to a rate limit given at start', async (t) => {
  const engine = createEngine()
  await engine.addMasterAccount(ALICE)
  const server = await startServer({ engine, admin: true, rateLimit: { perSecond: 10 } })
  t.teardown(() => server.close())
  t.same(server.controls.rateLimit(), { on: true, perSecond: 10 })
  server.controls.clearRateLimit()
  await server.controls.reset()
  t.same(server.controls.rateLimit(), { on: true, perSecond: 10 })
  await t.rejects(startServer({ engine, admin: true, rateLimit: { perSecond: 0 } }), /perSecond/)
})
