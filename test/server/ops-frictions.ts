/**
 * Frictions found while operating the server (issue 25): PUT /__admin/clock
 * takes RFC 3339 times, and docs/api.md lists each enum value once and gives
 * the analytics daily limit in its 429 row.
 */
import { readFileSync } from 'node:fs'
import t from 'tap'
import { DAILY_LIMIT } from '../../lib/engine/recording/analytics.js'
import { startServer } from '../../lib/server/index.js'

/** Sends `body` as JSON; resolves with the status and the JSON answer. */
async function sendJson<T>(method: string, url: string, body: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: res.status, body: (await res.json()) as T }
}

t.test('PUT /__admin/clock accepts RFC 3339: Z, offsets, fractional seconds', async (t) => {
  const server = await startServer({ admin: true })
  t.teardown(() => server.close())
  const put = (now: string) =>
    sendJson<{ now?: string; error_code?: string }>('PUT', `${server.url}/__admin/clock`, { now })
  for (const [given, now] of [
    ['2025-03-01T08:30:00Z', '2025-03-01T08:30:00'],
    ['2025-03-01T08:30:00+00:00', '2025-03-01T08:30:00'],
    ['2025-03-01T09:30:00+01:00', '2025-03-01T08:30:00'],
    ['2025-02-28T23:30:00-09:00', '2025-03-01T08:30:00'],
    ['2025-03-01T08:30:00.5Z', '2025-03-01T08:30:00'],
    ['2025-03-01t08:30:00.123456789z', '2025-03-01T08:30:00'],
    ['2025-03-01T08:30:00', '2025-03-01T08:30:00'],
    ['2025-03-01', '2025-03-01T00:00:00'],
  ]) {
    const res = await put(given!)
    t.equal(res.status, 200, String(given))
    t.equal(res.body.now, now, `${given} is ${now} UTC`)
  }
  const state = await server.controls.setClock({ now: '2025-03-01T08:30:00.250Z' })
  t.equal(server.engine.now().getTime() % 1000, 250, 'the fraction is kept to the millisecond')
  t.ok(state.frozen)
  for (const bad of [
    '2025-02-30T08:30:00Z',
    '2025-03-01T24:00:00+00:00',
    '2025-03-01T08:30:00+24:00',
    '2025-03-01T08:30Z',
  ]) {
    const res = await put(bad)
    t.equal(res.status, 400, `${bad} is refused`)
    t.equal(res.body.error_code, 'InvalidInput')
  }
})

const api = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8')

t.test('docs/api.md lists each enum value once', async (t) => {
  for (const line of api.split('\n').filter((l) => l.startsWith('| `'))) {
    const values = [...(line.split(' | ')[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1])
    t.equal(new Set(values).size, values.length, `no value twice: ${line.slice(0, 60)}`)
  }
  t.match(api, /\| `publish_now` \| `true`, `false` \|/)
})

t.test("the analytics daily limit is in api.md's 429 rows", async (t) => {
  const rows = api.split('\n').filter((l) => l.startsWith('| 429 | [`DailyLimitExceeded`]'))
  t.ok(rows.length > 0)
  for (const row of rows) t.match(row, `${DAILY_LIMIT} calls`)
})

t.test('a seed with 3 problems reports all 3 at once', async (t) => {
  const server = await startServer({ admin: true })
  t.teardown(() => server.close())
  const seed = (body: unknown) =>
    sendJson<{ error_code: string; message: string }>('POST', `${server.url}/__admin/seed`, body)
  const inOneEntry = await seed({
    masters: [{ user: 'seeder', password: 'seeder-pw' }],
    sites: [
      { owner: 'seeder', site_name: 'fine-site', original_site_url: 'not a url', created_at: 'yesterday', bogus: 1 },
    ],
  })
  t.equal(inOneEntry.status, 400)
  t.match(inOneEntry.body.message, /\(3 problems\)/)
  t.match(inOneEntry.body.message, /sites\[0\]: original_site_url must be/)
  t.match(inOneEntry.body.message, /sites\[0\]: created_at must be/)
  t.match(inOneEntry.body.message, /sites\[0\]: unknown field bogus/)
  const inTheShape = await seed({ masters: [], nonsense: [], more: 1, sites: 'x' })
  t.equal(inTheShape.status, 400)
  t.match(inTheShape.body.message, /\(3 problems\)/)
  t.match(
    inTheShape.body.message,
    /unknown field nonsense.*unknown field more|unknown field more.*unknown field nonsense/,
  )
  t.match(inTheShape.body.message, /sites must be an array/)
  t.same(await server.controls.snapshot().then((s) => s.sites), [], 'nothing applied')
})
