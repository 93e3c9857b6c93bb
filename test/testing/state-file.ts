/**
 * State kept between runs: startServer({ stateFile }) in process, and a
 * spawned CLI (`mobisite --state FILE`) that is killed (SIGKILL: loses at
 * most the interval; SIGTERM: loses nothing) and started again finds its
 * state. A bad file stops the start with a clear error and is left as it
 * was; write-back is atomic and happens only while the state changes.
 */
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { createEngine, startServer } from '../../lib/index.js'
import { PostgresStore } from '../../lib/store/postgres/store.js'
import { root, stop } from '../helpers/cli.js'
import { checkedFetch } from '../helpers/openapi-check.js'
import { folder, runCli, serveCli, sleep, until } from '../helpers/state-file.js'
import { ALICE, basic } from '../helpers/testing.js'

const fileHas = (path: string, text: string) => () => {
  try {
    return readFileSync(path, 'utf8').includes(text)
  } catch {
    return false
  }
}

const createSite = (url: string, auth: string, site_name: string) =>
  checkedFetch(`${url}/api/sites/create`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({
      site_data: { site_name, original_site_url: `https://${site_name}.example` },
      publish_now: true,
    }),
  })

t.test('in process: closed, started again on the same file, the state is there', async (t) => {
  const file = join(folder(t), 'state.json')
  const auth = basic(ALICE.user, ALICE.password)
  const first = createEngine()
  await first.addMasterAccount(ALICE)
  const one = await startServer({ engine: first, stateFile: file })
  t.equal((await createSite(one.url, auth, 'kept-site')).status, 200)
  await first.as('alice').createAccount({ account_name: 'clerk' })
  // Duda's paths: a template, a publish and an unpublish (so an unpublish time and an activity log).
  const duda = (path: string, body?: object) =>
    checkedFetch(`${one.url}/api/sites/multiscreen/${path}`, {
      method: 'POST',
      headers: { authorization: auth, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    })
  t.equal((await duda('create', { template_id: 1_000_042, default_domain_prefix: 'duda-kept' })).status, 200)
  t.equal((await duda('publish/duda-kept')).status, 204)
  t.equal((await duda('unpublish/duda-kept')).status, 204)
  await one.close()
  t.equal(statSync(file).mode & 0o777, 0o600, 'readable by its owner only: it holds password hashes')
  const saved = JSON.parse(readFileSync(file, 'utf8'))
  t.match(saved, { accounts: [{ account_name: 'clerk' }] }, 'a snapshot')
  t.same(saved.sites.map((s: { site_name: string }) => s.site_name).sort(), ['duda-kept', 'kept-site'])

  const second = createEngine()
  await second.addMasterAccount({ ...ALICE, password: 'a-new-password' })
  const two = await startServer({ engine: second, stateFile: file })
  t.teardown(() => two.close())
  const site = await checkedFetch(`${two.url}/api/sites/kept-site`, {
    headers: { authorization: basic('alice', 'a-new-password') },
  })
  t.equal(site.status, 200, 'the site is back, for the master given at start')
  t.match(await site.json(), { site_name: 'kept-site', last_published_date: /^\d{4}-/ })
  t.same((await second.billing('alice')).charges.length, 2, 'billing too')
  const read = async (path: string) =>
    (
      await checkedFetch(`${two.url}/api/sites/multiscreen/${path}`, {
        headers: { authorization: basic('alice', 'a-new-password') },
      })
    ).json()
  t.match(await read('duda-kept'), { template_id: 1_000_042 }, "Duda's template_id is back")
  t.same(await read('unpublished'), ['duda-kept'], 'so is the unpublish')
  t.same(
    ((await read('duda-kept/activities')) as { results: { activity: string }[] }).results.map((r) => r.activity),
    ['site_unpublished', 'site_published', 'site_created'],
    'and the activity log',
  )
  t.equal(
    (await checkedFetch(`${two.url}/api/sites/kept-site`, { headers: { authorization: auth } })).status,
    401,
    "the master's credentials are this start's, not the file's",
  )
  t.same(
    readdirSync(join(file, '..')).sort(),
    ['state.json', 'state.json.lock'],
    'no temporary file left behind; the lock file while it serves',
  )
})

t.test('written while it changes, at most every interval, and not while it does not', async (t) => {
  const file = join(folder(t), 'state.json')
  const engine = createEngine()
  await engine.addMasterAccount(ALICE)
  const server = await startServer({ engine, stateFile: file, stateInterval: 0.05 })
  t.teardown(() => server.close())
  await until('the first write', () => statSync(file, { throwIfNoEntry: false }) !== undefined)
  await engine
    .as('alice')
    .createSite({ site_data: { site_name: 'while-running', original_site_url: 'https://w.example' } })
  await until('the change written back', fileHas(file, 'while-running'))
  const written = statSync(file).mtimeMs
  const text = readFileSync(file, 'utf8')
  await engine.as('alice').getSite('while-running')
  await sleep(300)
  t.equal(statSync(file).mtimeMs, written, 'reads change nothing, and nothing is written')
  t.equal(readFileSync(file, 'utf8'), text)
})

t.test('a bad file stops the start with a clear error, and is left untouched', async (t) => {
  const dir = folder(t)
  const cases: [string, string, RegExp][] = [
    ['not JSON', '{"sites": [', /state file .*bad\.json is not valid JSON .*left untouched/],
    [
      'not a snapshot',
      JSON.stringify({ sites: [{ owner: 'nobody', site_name: 'orphan', original_site_url: 'https://o.example' }] }),
      /state file .*bad\.json is not a valid mobisite snapshot; it was left untouched: .*owner nobody/,
    ],
    ['not an object', '[1, 2]', /not a valid mobisite snapshot/],
  ]
  for (const [label, text, message] of cases) {
    const file = join(dir, 'bad.json')
    writeFileSync(file, text)
    const engine = createEngine()
    await t.rejects(startServer({ engine, stateFile: file }), message, label)
    t.equal(readFileSync(file, 'utf8'), text, `${label}: untouched`)
  }
  await t.rejects(startServer({ stateFile: join(dir, 'no', 'such', 'folder.json') }), /the folder .* does not exist/)
  await t.rejects(startServer({ stateFile: join(dir, 'x.json'), stateInterval: 0 }), /stateInterval/)
  const shared = createEngine({ store: new PostgresStore({ connectionString: 'postgres://nobody@127.0.0.1:1/none' }) })
  t.teardown(() => shared.close())
  await t.rejects(startServer({ engine: shared, stateFile: join(dir, 'x.json') }), /MemoryStore/)
})

t.test('a killed and restarted CLI finds its state', async (t) => {
  const file = join(folder(t), 'cli-state.json')
  const auth = basic('tester', 'tester-pw')
  const args = ['--admin', '--state', file, '--state-interval', '0.2']

  const first = await serveCli(t, args)
  t.match(first.output(), /state: +\S+cli-state\.json \(new; a change is in it within 0\.2 s/)
  t.equal((await createSite(first.url, auth, 'survivor')).status, 200)
  await until('the interval wrote the site', fileHas(file, 'survivor'))
  await stop(first, 'SIGKILL')

  const second = await serveCli(t, args)
  t.match(second.output(), /state: +\S+cli-state\.json \(loaded/)
  const found = await checkedFetch(`${second.url}/api/sites/survivor`, { headers: { authorization: auth } })
  t.equal(found.status, 200, 'killed with SIGKILL: the site written within the interval is back')
  // Shut down with SIGTERM right after a change: the last state is written on the way out.
  t.equal((await createSite(second.url, auth, 'last-call')).status, 200)
  t.equal(await stop(second), 0)

  const third = await serveCli(t, [...args, '--seed', join(root, 'examples/testing/fixtures.json')])
  t.match(third.output(), /not seeded from \S+fixtures\.json: the state file holds the state/)
  for (const name of ['survivor', 'last-call']) {
    const res = await checkedFetch(`${third.url}/api/sites/${name}`, { headers: { authorization: auth } })
    t.equal(res.status, 200, `${name} is back`)
  }
  await stop(third)
})

t.test('the CLI refuses a bad state file, naming it, and leaves it untouched', async (t) => {
  const file = join(folder(t), 'broken.json')
  writeFileSync(file, 'not json at all')
  const cli = runCli(t, ['--state', file])
  t.equal(await cli.exited, 1)
  t.match(cli.stderr(), /could not start: state file \S+broken\.json is not valid JSON/)
  t.equal(readFileSync(file, 'utf8'), 'not json at all')
  const bad = runCli(t, ['--rate-limit', 'fast'])
  t.equal(await bad.exited, 2, 'a command-line mistake: exit code 2')
  t.match(bad.stderr(), /--rate-limit must be a whole number/)
})
