/**
 * The CLI's drain on SIGTERM as a client sees it, over raw sockets: a request
 * on a kept-alive socket after the signal is answered with
 * `Connection: close`, never reset; the answer in flight at the signal
 * closes its connection too; the listener stays open until that answer is
 * out, then refuses new connections; the exit code is 0.
 */
import t from 'tap'
import { serveCli, sleep } from '../helpers/cli.js'
import { closedBy, exchange, openSocket, refused, send } from '../helpers/raw-http.js'
import { basic } from '../helpers/testing.js'
const AUTH = { authorization: basic('ops', 'ops-pw') }

t.test(
  'SIGTERM: kept-alive sockets are answered and closed, the listener waits for the answer in flight',
  async (t) => {
    const cli = await serveCli(t, ['--quiet', '--admin'], {
      MOBISITE_USER: 'ops',
      MOBISITE_PASSWORD: 'ops-pw',
      LOG_LEVEL: 'warn',
    })
    const url = cli.url

    const kept = await openSocket(url)
    const fault = { route: '/sites/{site_name}', latency_ms: 1_500 }
    t.match(await send(kept, 'POST', '/__admin/faults', {}, fault), {
      status: 201,
      headers: { connection: 'keep-alive' },
    })
    const inFlight = await openSocket(url)
    const slow = exchange(inFlight, '/api/sites/none', AUTH)
    await sleep(200)
    cli.child.kill('SIGTERM')
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
    t.equal(await cli.exited, 0, 'exit 0 after a clean drain')
  },
)
