/**
 * `npm start` as README.md documents it: SIGTERM sent to npm's own process
 * drains the server and ends it (npm forwards the signal; the start script
 * execs node, so no shell sits between them and swallows it), and with
 * `--silent` stdout carries nothing but JSON lines. Runs the built CLI
 * (dist/, which `npm test` builds first).
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import t from 'tap'
import { freePort } from '../helpers/redis.js'

const root = new URL('../..', import.meta.url).pathname
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

/** `npm start [extra]` on a free port; resolves once /healthz answers. */
async function npmStart(extra: string[] = []) {
  const port = await freePort()
  const child = spawn(npm, ['start', ...extra, '--', '--quiet'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), REDIS_URL: '', DATABASE_URL: '', MOBISITE_STORE: '', LOG_LEVEL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so a teardown can stop whatever npm started, even a server npm left behind.
    detached: true,
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  // 'close', not 'exit': 'exit' can come before the last of stdout has been read.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)))
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}: ${stderr}`)
    if (i > 300) throw new Error(`not serving after 30 s: ${stderr}`)
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break
    await new Promise((r) => setTimeout(r, 100))
  }
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
  return { child, url, exited, stdout: () => stdout, killGroup }
}

const served = (url: string) =>
  fetch(`${url}/healthz`).then(
    () => true,
    () => false,
  )

if (!existsSync(`${root}dist/esm/lib/cli/index.js`)) {
  t.plan(0, 'dist/ is not built (npm test builds it first): npm start tests skipped')
} else {
  t.test('SIGTERM to npm start itself drains the server and ends it', async (t) => {
    const started = await npmStart()
    t.teardown(started.killGroup)
    started.child.kill('SIGTERM')
    t.equal(await started.exited, 0, 'npm exits 0 once the server has drained')
    t.notOk(await served(started.url), 'nothing serves on the port any more: no server left behind')
    const lines = started.stdout().split('\n')
    t.ok(
      lines.some((line) => line.includes('"msg":"store closed; bye"')),
      'the server logged its drain to the end',
    )
  })

  t.test('npm start --silent: stdout carries JSON lines only', async (t) => {
    const started = await npmStart(['--silent'])
    t.teardown(started.killGroup)
    started.child.kill('SIGTERM')
    await started.exited
    const lines = started.stdout().split('\n').filter(Boolean)
    t.ok(lines.length >= 3, `${lines.length} lines`)
    for (const line of lines) t.doesNotThrow(() => JSON.parse(line), `a JSON line: ${line.slice(0, 60)}`)
  })
}
