/**
 * `npm start` as README.md documents it: SIGTERM sent to npm's own process
 * drains the server and ends it (npm forwards the signal; the start script
 * execs node, so no shell sits between them and swallows it), and with
 * `--silent` stdout carries nothing but JSON lines. Runs the built CLI
 * (dist/, which `npm test` builds first).
 */
import { existsSync } from 'node:fs'
import t, { type Test } from 'tap'
import { freePort, healthy, root, startChild, stop, waitFor } from '../helpers/cli.js'

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

/**
 * `npm start [extra]` on a free port, in a process group of its own (so the
 * teardown stops whatever npm started, even a server npm left behind);
 * resolves once /healthz answers.
 */
async function npmStart(t: Test, extra: string[] = []) {
  const port = await freePort()
  const started = startChild(t, npm, ['start', ...extra, '--', '--quiet'], {
    env: { ...process.env, PORT: String(port), REDIS_URL: '', DATABASE_URL: '', MOBISITE_STORE: '', LOG_LEVEL: '' },
    group: true,
  })
  const url = `http://127.0.0.1:${port}`
  await waitFor(started, 'serving', () => healthy(url), 30_000)
  return { ...started, url }
}

/** Whether anything still answers HTTP at `url`. */
const reachable = (url: string) =>
  fetch(`${url}/healthz`).then(
    () => true,
    () => false,
  )

if (!existsSync(`${root}dist/esm/lib/cli/index.js`)) {
  t.plan(0, 'dist/ is not built (npm test builds it first): npm start tests skipped')
} else {
  t.test('SIGTERM to npm start itself drains the server and ends it', async (t) => {
    const started = await npmStart(t)
    t.equal(await stop(started), 0, 'npm exits 0 once the server has drained')
    t.notOk(await reachable(started.url), 'nothing serves on the port any more: no server left behind')
    const lines = started.stdout().split('\n')
    t.ok(
      lines.some((line) => line.includes('"msg":"store closed; bye"')),
      'the server logged its drain to the end',
    )
  })

  t.test('npm start --silent: stdout carries JSON lines only', async (t) => {
    const started = await npmStart(t, ['--silent'])
    await stop(started)
    const lines = started.stdout().split('\n').filter(Boolean)
    t.ok(lines.length >= 3, `${lines.length} lines`)
    for (const line of lines) t.doesNotThrow(() => JSON.parse(line), `a JSON line: ${line.slice(0, 60)}`)
  })
}
