/**
 * The state file at start (issue 34, part 3): only a regular file, or a
 * missing one, in a folder the process can write to is taken, and anything
 * else is refused at once (CLI: exit 2, one line), without blocking on a
 * FIFO; a file holding JSON that is not an object is refused like any
 * invalid file; one process owns the file, and a second one is refused
 * until the first is gone (a killed owner's successor takes over); the
 * temporary files a killed write-back left are removed, and nothing else.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createEngine, startServer } from '../../lib/index.js'
import { createSite, folder, runCli, serveCli, TESTER, testerAuth, until } from '../helpers/state-file.js'

/** The one line the CLI prints for a refused state file, and its exit code. */
async function refusal(
  t: Parameters<typeof folder>[0],
  args: string[],
): Promise<{ code: number | null; line: string }> {
  const cli = runCli(t, args)
  const timer = setTimeout(() => cli.child.kill('SIGKILL'), 20_000)
  const code = await cli.exited
  clearTimeout(timer)
  t.equal(cli.stdout(), '', 'nothing on stdout: the server never started')
  return { code, line: cli.stderr().trim().split('\n')[0] ?? '' }
}

t.test('stale temporary files of the state file are removed at start, and nothing else', async (t) => {
  const dir = folder(t)
  const file = join(dir, 'state.json')
  const stale = ['state.json.4242.0123456789ab.tmp', 'state.json.7.abcdefabcdef.tmp']
  const others = [
    'other.json.4242.0123456789ab.tmp',
    'state.json.notes.tmp',
    'state.json.4242.0123456789ab.tmp.bak',
    'state.json.x.0123456789ab.tmp',
    'state.json.4242.0123456789AB.tmp',
    'notes.txt',
  ]
  for (const name of [...stale, ...others]) writeFileSync(join(dir, name), '{"half": "written')
  const engine = createEngine()
  await engine.addMasterAccount({ ...TESTER, partner: true })
  const server = await startServer({ engine, stateFile: file })
  t.teardown(() => server.close())
  for (const name of stale) t.notOk(existsSync(join(dir, name)), `${name}: removed`)
  for (const name of others) t.ok(existsSync(join(dir, name)), `${name}: not the state file's, kept`)
})

t.test('a file holding JSON that is not an object is refused, and left untouched', async (t) => {
  const dir = folder(t)
  for (const [text, what] of [
    ['null', 'null'],
    ['"state"', 'a string'],
    ['42', 'a number'],
    ['true', 'a boolean'],
  ] as const) {
    const file = join(dir, 'state.json')
    writeFileSync(file, text)
    await t.rejects(
      startServer({ engine: createEngine(), stateFile: file }),
      new RegExp(
        `state file \\S+state\\.json is not a valid mobisite snapshot; it was left untouched: it holds ${what}`,
      ),
      `${text}: refused`,
    )
    t.equal(readFileSync(file, 'utf8'), text, `${text}: untouched`)
  }
})

t.test('the CLI refuses a FIFO, a folder or a device at once: one line, exit 2', async (t) => {
  const dir = folder(t)
  const fifo = join(dir, 'fifo.json')
  try {
    execFileSync('mkfifo', [fifo])
  } catch {
    t.pass('no FIFO case', { skip: 'mkfifo is not available here' })
  }
  const cases: [string, string][] = [
    [join(dir, 'a-folder.json'), 'a folder'],
    ['/dev/null', 'a device'],
  ]
  if (existsSync(fifo)) cases.unshift([fifo, 'a FIFO'])
  mkdirSync(join(dir, 'a-folder.json'))
  for (const [path, what] of cases) {
    const started = Date.now()
    const { code, line } = await refusal(t, ['--state', path])
    t.equal(code, 2, `${what}: exit 2`)
    t.match(line, `mobisite: state file ${path} is ${what}, not a regular file`, `${what}: one line saying so`)
    t.ok(Date.now() - started < 15_000, `${what}: refused without blocking (${Date.now() - started} ms)`)
  }
})

t.test('the CLI refuses a folder it cannot write to: one line, exit 2', async (t) => {
  // Root ignores file modes: a sysfs folder refuses new files even to root.
  const dir = process.getuid?.() === 0 ? '/sys' : folder(t)
  if (dir !== '/sys') chmodSync(dir, 0o555)
  t.teardown(() => dir !== '/sys' && chmodSync(dir, 0o755))
  try {
    writeFileSync(join(dir, 'probe.json'), '')
    t.pass('skipped', { skip: `${dir} is writable here after all` })
    return
  } catch {
    // Unwritable, as the test needs.
  }
  const file = join(dir, 'state.json')
  const { code, line } = await refusal(t, ['--state', file])
  t.equal(code, 2, 'exit 2')
  t.match(
    line,
    new RegExp(`^mobisite: state file ${file}: (this process cannot write in the folder|cannot create its lock file)`),
  )
})

t.test('one process owns a state file: a second is refused until the first is gone', async (t) => {
  const file = join(folder(t), 'state.json')
  const first = await serveCli(t, ['--state', file, '--state-interval', '0.2'])
  t.equal(await createSite(first.url, 'owned-site'), 200)
  await until('the site written back', () => existsSync(file) && readFileSync(file, 'utf8').includes('owned-site'))

  const { code, line } = await refusal(t, ['--state', file])
  t.equal(code, 2, 'a second process: exit 2')
  t.match(line, `mobisite: state file ${file} is in use by process ${first.child.pid} (lock file ${file}.lock)`)
  t.equal((await fetch(`${first.url}/healthz`)).status, 200, 'the first one still serves')

  // A killed owner leaves its lock behind: the next process takes it over.
  first.child.kill('SIGKILL')
  await first.exited
  t.ok(existsSync(`${file}.lock`), 'the dead owner left its lock file')
  const second = await serveCli(t, ['--state', file])
  const res = await fetch(`${second.url}/api/sites/owned-site`, { headers: { authorization: testerAuth } })
  t.equal(res.status, 200, "the successor serves the dead owner's state")
  second.child.kill('SIGTERM')
  t.equal(await second.exited, 0)
  t.notOk(existsSync(`${file}.lock`), 'a clean exit removes the lock file')
  t.same(
    readdirSync(join(file, '..')).filter((name) => name !== 'state.json'),
    [],
    'nothing else is left in the folder',
  )
})

t.test('in one process, a second server on the same file is refused too', async (t) => {
  const file = join(folder(t), 'state.json')
  const first = await startServer({ stateFile: file })
  await t.rejects(
    startServer({ stateFile: file }),
    /state file \S+ is in use by another server in this process \(lock file \S+state\.json\.lock\)/,
  )
  await first.close()
  const again = await startServer({ stateFile: file })
  t.ok(again.url, 'once the first is closed, the file is free')
  await again.close()
})

t.test('whose lock a new process takes over, and whose it leaves alone', async (t) => {
  const dir = folder(t)
  const file = join(dir, 'state.json')
  const lock = (holder: object | string) =>
    writeFileSync(`${file}.lock`, typeof holder === 'string' ? holder : JSON.stringify(holder))
  const host = hostname()
  for (const [what, holder] of [
    ['a dead process on this host', { pid: 4_194_304, host, token: 'gone' }],
    ['an earlier process with this pid (a restarted container)', { pid: process.pid, host, token: 'earlier' }],
  ] as const) {
    lock(holder)
    const server = await startServer({ stateFile: file })
    t.match(JSON.parse(readFileSync(`${file}.lock`, 'utf8')), { pid: process.pid, host }, `${what}: taken over`)
    await server.close()
  }
  lock({ pid: 4_194_304, host: 'another-host', token: 'theirs' })
  await t.rejects(
    startServer({ stateFile: file }),
    /is in use by process 4194304 on another-host \(lock file \S+\): stop it or give this server another file/,
    "another host's lock: its pid cannot be checked here, so it is left alone",
  )
  lock('not a lock')
  await t.rejects(startServer({ stateFile: file }), /has a lock file that mobisite did not write/)
  t.equal(readFileSync(`${file}.lock`, 'utf8'), 'not a lock', 'and it is left as it is')
})
