/**
 * The CLI's drain on SIGTERM as a client sees it, over raw sockets: a request
 * on a kept-alive socket after the signal is answered with
 * `Connection: close`, never reset; the answer in flight at the signal
 * closes its connection too; the listener stays open until that answer is
 * out, then refuses new connections; the exit code is 0.
 */
import { spawn } from 'node:child_process'
import t from 'tap'
import { freePort } from '../helpers/redis.js'
import { closedBy, exchange, openSocket, refused, send } from '../helpers/raw-http.js'
import { basic } from '../helpers/testing.js'
import { TSX_CHILD_ENV } from '../helpers/tsx-child.js'

const root = new URL('../..', import.meta.url).pathname
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const AUTH = { authorization: basic('ops', 'ops-pw') }

t.test(
  'SIGTERM: kept-alive sockets are answered and closed, the listener waits for the answer in flight',
  async (t) => {
    const port = await freePort()
    const url = `http://127.0.0.1:${port}`
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'lib/cli/index.ts', '--quiet', '--admin', '--port', String(port)],
      {
        cwd: root,
        env: {
          ...TSX_CHILD_ENV,
          HOST: '127.0.0.1',
          REDIS_URL: '',
          DATABASE_URL: '',
          MOBISITE_STORE: '',
          MOBISITE_USER: 'ops',
          MOBISITE_PASSWORD: 'ops-pw',
          LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'ignore', 'ignore'],
      },
    )
    t.teardown(() => {
      if (child.exitCode === null) child.kill('SIGKILL')
    })
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    for (let waited = 0; (await refused(url)) && waited < 30_000; waited += 100) await sleep(100)

    const kept = await openSocket(url)
    const fault = { route: '/sites/{site_name}', latency_ms: 1_500 }
    t.match(await send(kept, 'POST', '/__admin/faults', {}, fault), {
      status: 201,
      headers: { connection: 'keep-alive' },
    })
    const inFlight = await openSocket(url)
    const slow = exchange(inFlight, '/api/sites/none', AUTH)
    await sleep(200)
    child.kill('SIGTERM')
    await sleep(150)
    t.match(
      await exchange(kept, '/healthz'),
      { status: 200, headers: { connection: 'close' } },
      'a request on the kept-alive socket after SIGTERM is answered, with Connection: close',
    )
    t.equal(await closedBy(kept), 'closed', 'then the server closes that socket in order')
    t.notOk(await refused(url), 'while an answer is in flight, new connections are still accepted')
    t.match(
      await slow,
      { status: 400, headers: { connection: 'close' } },
      'the answer in flight at SIGTERM carries Connection: close',
    )
    let waited = 0
    for (; !(await refused(url)) && waited < 10_000; waited += 50) await sleep(50)
    t.ok(await refused(url), 'then new connections are refused')
    t.equal(await exited, 0, 'exit 0 after a clean drain')
  },
)
