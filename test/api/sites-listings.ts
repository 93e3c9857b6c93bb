/**
 * GET /sites/created and /sites/modified: default periods on the fake clock,
 * both date formats, inclusive ends, from after to, impossible dates and
 * repeated or unknown parameters (docs/api.md, Sites).
 */
import t from 'tap'
import { type Fixture, isInvalid, setup, siteBody } from '../helpers/api.js'

/** Creates a site at a given clock time. */
async function createAt(f: Fixture, name: string, at: string): Promise<void> {
  f.clock.set(at)
  await f.alice.api.createSite(siteBody(name))
}

/** The names a listing returns, sorted (the order is not part of the contract). */
async function names(f: Fixture, path: string, query: Record<string, string> = {}): Promise<string[]> {
  const res = await f.alice.get(path).query(query)
  if (res.status !== 200) throw new Error(`${path} ${JSON.stringify(query)}: ${res.status} ${res.text}`)
  for (const entry of res.body)
    if (Object.keys(entry).join() !== 'site_name') throw new Error(`unexpected entry ${JSON.stringify(entry)}`)
  return (res.body as { site_name: string }[]).map((s) => s.site_name).sort()
}

/** Sites created around the default window of "now = 2025-03-10T12:00:00". */
async function seed(f: Fixture): Promise<void> {
  await createAt(f, 'before-window', '2025-03-03T11:59:59')
  await createAt(f, 'window-start', '2025-03-03T12:00:00')
  await createAt(f, 'mid-window', '2025-03-06T00:00:00')
  await createAt(f, 'window-end', '2025-03-10T12:00:00')
  await createAt(f, 'after-window', '2025-03-10T12:00:01')
  f.clock.set('2025-03-10T12:00:00')
}

for (const path of ['/sites/created', '/sites/modified']) {
  t.test(`${path}: default period is the 7 days before now, both ends included`, async (t) => {
    const f = await setup(t)
    await seed(f)
    t.same(await names(f, path), ['mid-window', 'window-end', 'window-start'])
    f.clock.advance(1)
    t.same(await names(f, path), ['after-window', 'mid-window', 'window-end'], 'the window moves with the clock')
  })

  t.test(`${path}: only to → the 7 days before to; only from → until now`, async (t) => {
    const f = await setup(t)
    await seed(f)
    t.same(await names(f, path, { to: '2025-03-06T00:00:00' }), ['before-window', 'mid-window', 'window-start'])
    t.same(
      await names(f, path, { to: '2025-03-06' }),
      ['before-window', 'mid-window', 'window-start'],
      'a day is its start',
    )
    t.same(await names(f, path, { to: '2025-03-05T23:59:59' }), ['before-window', 'window-start'])
    t.same(await names(f, path, { from: '2025-03-06' }), ['mid-window', 'window-end'], 'to defaults to now')
    t.same(
      await names(f, path, { from: '2025-03-01' }),
      ['before-window', 'mid-window', 'window-end', 'window-start'],
      'from may be more than 7 days back',
    )
  })

  t.test(`${path}: both formats, inclusive ends, a one-instant period`, async (t) => {
    const f = await setup(t)
    await seed(f)
    t.same(await names(f, path, { from: '2025-03-03T12:00:00', to: '2025-03-10T12:00:00' }), [
      'mid-window',
      'window-end',
      'window-start',
    ])
    t.same(await names(f, path, { from: '2025-03-03T12:00:01', to: '2025-03-10T11:59:59' }), ['mid-window'])
    t.same(await names(f, path, { from: '2025-03-06', to: '2025-03-06' }), ['mid-window'], 'from = to, date form')
    t.same(
      await names(f, path, { from: '2025-03-06T00:00:00', to: '2025-03-06T00:00:00' }),
      ['mid-window'],
      'from = to, date-time form',
    )
    t.same(
      await names(f, path, { from: '2025-03-01', to: '2025-03-31' }),
      ['after-window', 'before-window', 'mid-window', 'window-end', 'window-start'],
      'a period reaching past now',
    )
    t.same(await names(f, path, { from: '2020-01-01', to: '2020-12-31' }), [], 'an empty period')
  })

  t.test(`${path}: from after to is InvalidInput`, async (t) => {
    const f = await setup(t)
    isInvalid(
      t,
      await f.alice.get(path).query({ from: '2025-03-06T00:00:01', to: '2025-03-06T00:00:00' }),
      'one second after',
    )
    isInvalid(t, await f.alice.get(path).query({ from: '2025-03-07', to: '2025-03-06' }), 'days')
    t.equal(
      isInvalid(t, await f.alice.get(path).query({ from: '2025-03-07', to: '2025-03-06' }), 'both given'),
      'from must not be after to',
    )
    const message = isInvalid(
      t,
      await f.alice.get(path).query({ from: '2025-03-10T12:00:01' }),
      'from after the default to (now)',
    )
    t.equal(
      message,
      'from must not be after now (2025-03-10T12:00:00), where the period ends when to is not given',
      'names now, not an absent to',
    )
    t.notMatch(message, /after to\b/)
  })

  t.test(`${path}: malformed and impossible dates are InvalidInput naming the parameter`, async (t) => {
    const f = await setup(t)
    const bad = [
      '2025-02-30',
      '2025-02-29',
      '2025-13-01',
      '2025-00-10',
      '2025-04-31',
      '2025-03-10T24:00:00',
      '2025-03-10T23:60:00',
      '2025-03-10T23:59:60',
      '2025-3-5',
      '2025-03-05T10:00',
      '2025-03-05T10:00:00Z',
      '2025-03-05T10:00:00+01:00',
      '2025-03-05 10:00:00',
      '2025-03-05T10:00:00.000',
      '20250305',
      'yesterday',
      '',
      '1741600000',
      '0000-01-01',
    ]
    for (const value of bad) {
      t.match(isInvalid(t, await f.alice.get(path).query({ from: value }), `from=${value}`), /from/)
      t.match(isInvalid(t, await f.alice.get(path).query({ to: value }), `to=${value}`), /\bto\b/)
    }
    t.same(await names(f, path, { from: '2024-02-29', to: '2024-02-29T23:59:59' }), [], 'a leap day is a real date')
  })

  t.test(`${path}: years 0001 to 0099 are real dates (Date.UTC would read them as 19xx)`, async (t) => {
    const f = await setup(t)
    await createAt(f, 'ancient', '0050-06-01T10:00:00')
    f.clock.set('2025-03-10T12:00:00')
    t.same(await names(f, path, { from: '0050-06-01', to: '0050-06-01T23:59:59' }), ['ancient'], 'a day of year 50')
    t.same(await names(f, path, { from: '0001-01-01', to: '0099-12-31T23:59:59' }), ['ancient'], 'years 1 to 99')
    t.same(await names(f, path, { from: '1950-06-01', to: '1950-06-01T23:59:59' }), [], 'not 1950')
  })

  t.test(`${path}: repeated and unknown parameters are InvalidInput`, async (t) => {
    const f = await setup(t)
    isInvalid(t, await f.alice.get(`${path}?from=2025-03-01&from=2025-03-02`), 'from twice')
    isInvalid(t, await f.alice.get(`${path}?to=2025-03-01&to=2025-03-01`), 'to twice')
    isInvalid(t, await f.alice.get(`${path}?from[year]=2025`), 'bracket syntax')
    t.match(isInvalid(t, await f.alice.get(`${path}?since=2025-03-01`), 'unknown'), /since/)
  })
}

t.test('created and modified differ once a site changes; deleted sites leave both', async (t) => {
  const f = await setup(t)
  await createAt(f, 'oldsite', '2025-02-01T00:00:00')
  await createAt(f, 'newsite', '2025-03-09T00:00:00')
  f.clock.set('2025-03-10T00:00:00')
  await f.alice.post('/sites/update/oldsite', { auto_sync_cache_ttl: 'LONG' })
  t.same(await names(f, '/sites/created'), ['newsite'])
  t.same(await names(f, '/sites/modified'), ['newsite', 'oldsite'])
  t.same(await names(f, '/sites/modified', { to: '2025-02-05' }), [], 'the old modification time is gone')
  await f.alice.del('/sites/newsite')
  t.same(await names(f, '/sites/created'), [])
  t.same(await names(f, '/sites/modified'), ['oldsite'])
})
