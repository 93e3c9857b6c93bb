/**
 * What the CLI's defaults (an access line per request, metrics) add to one
 * request's CPU, measured in one process: the same request objects and
 * store call with and without them, rounds interleaved. Over HTTP this
 * machine cannot show a few µs on one Node process: identical processes
 * spread by ±15 % (cli-server.ts), more than the whole cost. In one process
 * both variants share every JIT draw, so the difference is the cost.
 *
 * A request here: a Node IncomingMessage and ServerResponse on an unconnected
 * socket (never sent), one MemoryStore.getSite, the two headers every API
 * answer sets (lib/http/reply.ts), and 'close'. The defaults
 * add what the CLI adds: the observer (request id and X-Request-Id, timer,
 * close listener, histogram, the access line through the CLI's own logger
 * and batch, written to /dev/null) and the timed store. The response is
 * never finished, so each line carries `"aborted":true` (16 characters more
 * than a served request's).
 *
 *   npx tsx benchmark/defaults-inprocess.ts     BENCH_ROUNDS
 */
import { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import { collectDefaultMetrics, Registry } from 'prom-client'
import { cliLogger } from '../lib/cli/log-batch.js'
import { instrumentsFor } from '../lib/http/metrics.js'
import { observeRequests, routeNoteOf } from '../lib/http/observe.js'
import { mountLabel, QUIET_ROUTES, timedStore } from '../lib/server/observability.js'
import { MemoryStore } from '../lib/store/memory/store.js'
import { figure } from './lib/report.js'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15)
const REQUESTS = 50_000
const ROUTE = '/api/sites/{site_name}'

// The CLI's logger and registry, made as lib/cli/index.ts makes them.
const { logger, flush } = await cliLogger('info', '/dev/null')
const registry = new Registry()
collectDefaultMetrics({ register: registry })
const instruments = instrumentsFor(registry)
await instruments.ready
const observe = observeRequests({ logger, registry, routeOf: mountLabel, quiet: QUIET_ROUTES })
const plainStore = new MemoryStore()
const timed = timedStore(new MemoryStore(), instruments)
const socket = new Socket()

/** CPU ns per request of `REQUESTS` requests, with or without the defaults. */
async function round(defaults: boolean): Promise<number> {
  const store = defaults ? timed : plainStore
  const start = process.cpuUsage()
  for (let i = 0; i < REQUESTS; i++) {
    const req = new IncomingMessage(socket)
    req.method = 'GET'
    req.url = '/api/sites/benchsite'
    req.headers = { authorization: 'Basic YmVuY2g6YmVuY2gtcGFzc3dvcmQ=', host: '127.0.0.1' }
    const res = new ServerResponse(req)
    if (defaults) observe(req, res)
    await store.getSite('benchsite')
    const note = routeNoteOf(req)
    if (note !== undefined) note.route = ROUTE
    res.statusCode = 200
    // The headers lib/http/reply.ts sets on every answer: X-Request-Id joins them, not starts them.
    res.setHeader('Content-Type', 'application/json; charset=utf-8')
    res.setHeader('Content-Length', 102)
    res.emit('close')
  }
  const used = process.cpuUsage(start)
  return ((used.user + used.system) * 1000) / REQUESTS
}

await round(false)
await round(true)
const best = { plain: Infinity, defaults: Infinity }
for (let r = 0; r < ROUNDS; r++) {
  best.plain = Math.min(best.plain, await round(false))
  best.defaults = Math.min(best.defaults, await round(true))
}
flush()
const addedUs = (best.defaults - best.plain) / 1000
console.log(`\n## The CLI's defaults in one process, best of ${ROUNDS} interleaved rounds of ${REQUESTS} requests\n`)
console.log('| variant | CPU ns per request |')
console.log('|---|---:|')
console.log(`| request objects and a store call | ${best.plain.toFixed(0)} |`)
console.log(`| the same with the CLI's access line and metrics | ${best.defaults.toFixed(0)} |`)
console.log(`| added by the defaults | ${(best.defaults - best.plain).toFixed(0)} |`)
figure({
  group: 'operations',
  name: 'CLI defaults (access line, metrics), CPU they add to a request, in process',
  value: Number(addedUs.toFixed(2)),
  unit: 'µs',
  anchor: 'the same request without them',
  anchorValue: Number((best.plain / 1000).toFixed(2)),
  note: `best of ${ROUNDS} interleaved rounds of ${REQUESTS}: Node request objects never sent, one MemoryStore.getSite, an API answer's two headers; the observer, access line (CLI logger and batch, to /dev/null) and timed store added; see the CLI rows for a whole request's CPU`,
})
