/**
 * The runnable examples of docs/testing.md, as part of the suite: a tap, a
 * node:test, a vitest and a jest suite, and a shell script with curl, each
 * run by its own runner against one started admin server (reset between
 * them by the suites themselves).
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import { startServer } from '../../lib/index.js'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../..', import.meta.url))
const bin = (name: string) => `${root}node_modules/.bin/${name}`

const server = await startServer({ admin: true })
t.teardown(() => server.close())
const env = { ...process.env, MOBISITE_URL: server.url, NODE_OPTIONS: '' }

const consumers: [string, string, string[]][] = [
  ['tap', process.execPath, ['examples/testing/tap-suite.mjs']],
  ['node:test', process.execPath, ['--test', '--test-reporter=spec', 'examples/testing/node-test-suite.mjs']],
  ['vitest', bin('vitest'), ['run', '--config', 'examples/testing/vitest.config.mjs']],
  ['jest', bin('jest'), ['--rootDir', 'examples/testing', '--testMatch', '**/jest-suite.cjs', '--ci']],
  ['shell + curl', 'sh', ['examples/testing/curl-suite.sh']],
]

for (const [name, command, args] of consumers) {
  t.test(`${name} consumer`, async (t) => {
    const { stdout, stderr } = await run(command, args, { cwd: root, env, timeout: 120_000 }).catch(
      (error: { stdout?: string; stderr?: string; message: string }) => {
        t.fail(`${name} failed: ${error.message}\n${error.stdout ?? ''}\n${error.stderr ?? ''}`)
        return { stdout: '', stderr: '' }
      },
    )
    t.ok(
      stdout.length + stderr.length > 0,
      `${name} reported: ${(stdout + stderr).trim().split('\n').slice(-3).join(' | ')}`,
    )
    const requests = (await (await fetch(`${server.url}/__admin/requests`)).json()) as { requests: unknown[] }
    t.ok(requests.requests.length > 0, 'its calls reached the server (journal not empty)')
  })
}
