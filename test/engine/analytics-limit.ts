/**
 * The analytics daily limit (docs/errors.md, DailyLimitExceeded): 300 calls per UTC day
 * per master account per method; the 301st gets 429 DailyLimitExceeded with
 * Retry-After (seconds to the next UTC midnight). Only valid calls count.
 */
import type request from 'supertest'
import { checkedRequest } from '../helpers/openapi-check.js'
import t, { type Test } from 'tap'
import { createEngine, startServer } from '../../lib/index.js'

const PASSWORDS: Record<string, string> = { alice: 'alice-secret', bob: 'bob-secret' }
const SITE = '/analytics/site/limited'
const MOST = '/analytics/sites/withmosttraffic'

async function setup(t: Test, start = '2025-03-10T12:00:00') {
  const clock = { now: new Date(`${start}Z`) }
  const engine = createEngine({ now: () => clock.now })
  await engine.addMasterAccount({ user: 'alice', password: PASSWORDS.alice! })
  await engine.addMasterAccount({ user: 'bob', password: PASSWORDS.bob! })
  await engine
    .as('alice')
    .createSite({ site_data: { site_name: 'limited', original_site_url: 'https://www.example.com' } })
  await engine
    .as('bob')
    .createSite({ site_data: { site_name: 'bobsite', original_site_url: 'https://www.example.com' } })
  const server = await startServer({ engine })
  t.teardown(async () => {
    await server.close()
    await engine.close()
  })
  const http = checkedRequest(server.url)
  const get = (user: string, path: string) => http.get(`/api${path}`).auth(user, PASSWORDS[user]!)
  /** Uses up `n` calls of a method in-process (they share the count with HTTP). */
  const spend = async (user: string, method: 'site' | 'most', n: number, site = 'limited') => {
    const api = engine.as(user)
    for (let i = 0; i < n; i++) await (method === 'site' ? api.siteAnalytics(site) : api.sitesWithMostTraffic())
  }
  return { engine, clock, get, spend }
}

function isLimited(t: Test, res: request.Response, retryAfter: number, label: string): void {
  t.equal(res.status, 429, `${label}: 429`)
  t.equal(res.body.error_code, 'DailyLimitExceeded', `${label}: error_code`)
  t.match(res.body.message, /300/, `${label}: the message gives the limit`)
  t.equal(res.headers['retry-after'], String(retryAfter), `${label}: Retry-After`)
}

t.test('the 301st call of a UTC day gets 429 with Retry-After', async (t) => {
  const { engine, get, spend } = await setup(t)
  await spend('alice', 'site', 299)
  t.equal((await get('alice', SITE)).status, 200, 'the 300th succeeds')
  isLimited(t, await get('alice', SITE), 43_200, 'the 301st')
  isLimited(t, await get('alice', `${SITE}?result=activities&dimension=geo`), 43_200, 'any query of the method')
  await t.rejects(
    engine.as('alice').siteAnalytics('limited'),
    { name: 'ServiceError', error_code: 'DailyLimitExceeded', retryAfter: 43_200 },
    'in-process too',
  )
  t.equal((await get('alice', MOST)).status, 200, 'the other method has its own count')
  t.equal((await get('bob', '/analytics/site/bobsite')).status, 200, 'another account has its own count')

  await spend('alice', 'most', 299)
  isLimited(t, await get('alice', MOST), 43_200, 'most traffic, 301st')
})

t.test('invalid and refused calls do not count', async (t) => {
  const { get, spend } = await setup(t)
  for (const path of [
    `${SITE}?dimension=os`,
    `${SITE}?from=2025-02-30`,
    '/analytics/site/bobsite',
    '/analytics/site/nosuchsite',
  ]) {
    t.equal((await get('alice', path)).status, 400, path)
  }
  t.equal((await get('alice', `${MOST}?to=never`)).status, 400)
  await spend('alice', 'site', 300)
  await spend('alice', 'most', 300)
  for (let i = 0; i < 3; i++) isLimited(t, await get('alice', SITE), 43_200, `refused ${i + 1}`)
  t.equal(
    (await get('alice', `${SITE}?dimension=os`)).status,
    400,
    'an invalid call is still InvalidInput once the limit is reached',
  )
})

t.test('400 concurrent calls: exactly 300 succeed', async (t) => {
  const { get } = await setup(t)
  for (const path of [SITE, MOST]) {
    const statuses = await Promise.all(Array.from({ length: 400 }, () => get('alice', path).then((res) => res.status)))
    t.equal(statuses.filter((s) => s === 200).length, 300, `${path}: 300 × 200`)
    t.equal(statuses.filter((s) => s === 429).length, 100, `${path}: 100 × 429`)
  }
})

t.test('the count resets at the next UTC midnight on the injected clock', async (t) => {
  const { clock, get, spend } = await setup(t, '2025-03-10T23:59:58')
  await spend('alice', 'site', 300)
  isLimited(t, await get('alice', SITE), 2, 'two seconds before midnight')
  clock.now = new Date('2025-03-10T23:59:59.500Z')
  isLimited(t, await get('alice', SITE), 1, 'Retry-After is never 0')
  clock.now = new Date('2025-03-11T00:00:00Z')
  t.equal((await get('alice', SITE)).status, 200, 'a new UTC day: allowed again')
  await spend('alice', 'site', 299)
  isLimited(t, await get('alice', SITE), 86_400, 'the new day has its own 300')
  clock.now = new Date('2025-03-11T23:00:00Z')
  isLimited(t, await get('alice', SITE), 3_600, 'a calendar day, not a rolling 24 hours')
})
