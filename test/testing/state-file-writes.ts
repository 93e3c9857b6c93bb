/**
 * Write-backs of the state file (issue 34, part 3): each one is the state at
 * one instant even though it is written a slice at a time while calls go on,
 * and holds what `GET /__admin/snapshot` holds; a failed one is an error log
 * line and a metric, is retried, and makes the CLI's final exit non-zero.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { createEngine, startServer } from '../../lib/index.js'
import { createSite, folder, serveCli, sleep, until } from '../helpers/state-file.js'
import { ALICE } from '../helpers/testing.js'

const TEMPORARY = /^state\.json\.\d+\.[0-9a-f]{12}\.tmp$/
const temporaryIn = (dir: string) => readdirSync(dir).find((name) => TEMPORARY.test(name))

/** A snapshot with each section in name order (the file keeps the store's order). */
function sorted(body: Record<string, unknown[]>): Record<string, unknown[]> {
  const key = (entry: unknown) => JSON.stringify(entry)
  return Object.fromEntries(
    Object.entries(body).map(([name, list]) => [name, [...list].sort((a, b) => (key(a) < key(b) ? -1 : 1))]),
  )
}

t.test('a write-back is the state at one instant, while calls go on during it', async (t) => {
  const dir = folder(t)
  const file = join(dir, 'state.json')
  const engine = createEngine()
  await engine.addMasterAccount(ALICE)
  const server = await startServer({ engine, stateFile: file, stateInterval: 0.3 })
  t.teardown(() => server.close())
  const alice = engine.as('alice')
  const sites = Array.from({ length: 20_000 }, (_, i) => ({
    owner: 'alice',
    site_name: `site-${i}`,
    original_site_url: `https://s${i}.example`,
  }))
  await server.controls.seed({ sites })
  await alice.publishSite('site-3')
  await engine.recordVisit({ site_name: 'site-4', visitor_id: 'v1' })
  await alice.createAccount({ account_name: 'clerk' })
  await alice.grantAccess('clerk', 'site-5')
  const read = () => JSON.parse(readFileSync(file, 'utf8'))
  await until('the seeded state written', () => existsSync(file) && readFileSync(file, 'utf8').includes('"clerk"'))
  await until('no write-back running', () => temporaryIn(dir) === undefined)

  // The next write-back: once its temporary file exists the state is captured; change it meanwhile.
  await alice.createSite({ site_data: { site_name: 'trigger', original_site_url: 'https://t.example' } })
  let temporary: string | undefined
  await until('a write-back under way', () => (temporary = temporaryIn(dir)) !== undefined)
  await alice.deleteSite('site-0')
  await alice.updateSite('site-1', { original_site_url: 'https://changed.example' })
  await alice.publishSite('site-2')
  await alice.deleteSite('site-3')
  await engine.recordVisit({ site_name: 'site-4', visitor_id: 'v2' })
  await alice.revokeAccess('clerk', 'site-5')
  t.ok(existsSync(join(dir, temporary!)), 'the changes were made while that write-back ran')
  await until('that write-back done', () => !existsSync(join(dir, temporary!)))

  const captured = read()
  const site = (name: string) => captured.sites.find((s: { site_name: string }) => s.site_name === name)
  t.ok(site('trigger'), 'the change before the capture is in')
  t.ok(site('site-0'), 'a site deleted during the write-back is still there')
  t.equal(site('site-1').original_site_url, 'https://s1.example', 'an update during it is not')
  t.equal(site('site-2').published, false, 'nor a publish')
  t.same(
    captured.billing[0].subscriptions.map((s: { site_name: string; status: string }) => [s.site_name, s.status]),
    [['site-3', 'active']],
    'billing as it was: no charge for site-2, site-3 still active (Delete Site cancels in place)',
  )
  t.match(captured.analytics, [{ site_name: 'site-4', visits: 1 }], 'analytics as they were')
  t.match(captured.grants, [{ account_name: 'clerk', site_name: 'site-5' }], 'the grant as it was')

  await until('the changes written by the next write-back', () =>
    readFileSync(file, 'utf8').includes('changed.example'),
  )
  await until('no write-back running', () => temporaryIn(dir) === undefined)
  await sleep(100)
  t.same(
    sorted(read()),
    sorted((await server.controls.snapshot()) as Record<string, unknown[]>),
    'the file holds what the snapshot holds',
  )
})

/** The JSON log lines of a CLI's stdout. */
const logLines = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>)

t.test('a failed write-back: an error log line and a metric, retried, and the final exit is 1', async (t) => {
  const dir = folder(t)
  const file = join(dir, 'state.json')
  const cli = await serveCli(t, ['--state', file, '--state-interval', '0.2'])
  await until('the first write-back', () => existsSync(file))
  // A folder where the file goes: every write-back fails at its rename until it is gone.
  rmSync(file)
  mkdirSync(file)
  writeFileSync(join(file, 'in-the-way'), '')
  t.equal(await createSite(cli.url, 'during-failure'), 200)
  const failures = () => logLines(cli.stdout()).filter((line) => line.msg === 'could not write the state file')
  await until('two failures logged: one, then its retry', () => failures().length >= 2)
  t.match(failures()[0], { level: 50, state_file: file, failures: 1, retry_in_ms: Number, err: { message: /EISDIR/ } })
  const metrics = await (await fetch(`${cli.url}/metrics`)).text()
  const counted = Number(/^mobisite_state_write_failures_total (\d+)/m.exec(metrics)?.[1])
  t.ok(counted >= 2, `counted in /metrics (${counted})`)
  t.notMatch(cli.stderr(), /\n\s+at /, 'no stack trace on stderr')

  rmSync(file, { recursive: true })
  await until('written by a retry once the way is clear', () => {
    try {
      return readFileSync(file, 'utf8').includes('during-failure')
    } catch {
      return false
    }
  })
  cli.child.kill('SIGTERM')
  t.equal(await cli.exited, 1, 'a run with a failed write-back does not exit 0')
  t.match(logLines(cli.stdout()).at(-1), {
    level: 50,
    msg: 'write-backs of the state file failed during this run: exiting 1',
  })
})

t.test('the failure metric is registered only on a server that keeps a state file', async (t) => {
  const plain = await startServer({ metrics: true })
  t.teardown(() => plain.close())
  t.notMatch(await plain.registry!.metrics(), 'mobisite_state_write_failures_total')
  const kept = await startServer({ metrics: true, stateFile: join(folder(t), 'state.json') })
  t.teardown(() => kept.close())
  t.match(await kept.registry!.metrics(), /^mobisite_state_write_failures_total 0$/m)
  t.equal(kept.stateWriteFailures, 0)
})
