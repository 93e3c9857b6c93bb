// A server for benchmark/observation-cost.ts, in plain JS so no TypeScript
// loader runs in the measured process (but in mode mobisite): node:http
// alone answering the JSON of GET /api/sites/benchsite, and the same with
// the observation an operator asks of a server, done the standard way with
// the standard tools, each piece on its own. argv: mode
//   plain   node:http, no observation
//   header  + an X-Request-Id (a counter) on every answer
//   log     + one pino line per answer with the CLI's fields, to an asynchronous
//             pino destination on /dev/null (pino's fastest documented setup)
//   metric  + one prom-client histogram observation per answer, by method, route and status
//   all     header, log and metric together
//   mobisite  the CLI's own observation (lib/http/observe.ts with the CLI's logger,
//             batch and metrics), as defaults-inprocess.ts builds it; needs tsx
//             (--import tsx) to load lib/, at start only
import http from 'node:http'
import pino from 'pino'
import { Histogram, Registry } from 'prom-client'
import { serveParent } from './lib/child-server.mjs'

const mode = process.argv[2] ?? 'plain'
const SITE_JSON = JSON.stringify({
  site_name: 'benchsite',
  original_site_url: 'https://www.example.com/',
  auto_sync_cache_ttl: 'SHORT',
  creation_date: '2026-01-01T00:00:00',
})
const HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'content-length': Buffer.byteLength(SITE_JSON),
}
const header = mode === 'header' || mode === 'all'
const log = mode === 'log' || mode === 'all'
const metric = mode === 'metric' || mode === 'all'

const logger = pino({ base: { pid: process.pid } }, pino.destination({ dest: '/dev/null', sync: false }))
const histogram = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Duration of HTTP requests',
  labelNames: ['method', 'route', 'status_code'],
  registers: [new Registry()],
})
const ROUTE = '/api/sites/{site_name}'
let ids = 0

/** mobisite's observer, made as lib/cli/index.ts makes the CLI's; undefined in the other modes. */
async function mobisiteObserver() {
  const { observeRequests, routeNoteOf } = await import('../lib/http/observe.js')
  const { cliLogger } = await import('../lib/cli/log-batch.js')
  const { instrumentsFor } = await import('../lib/http/metrics.js')
  const { logger: ourLogger } = await cliLogger('info', '/dev/null')
  const registry = new Registry()
  await instrumentsFor(registry).ready
  const observe = observeRequests({ logger: ourLogger, registry, routeOf: () => ROUTE })
  return (req, res) => {
    observe(req, res)
    // What the API router notes of a request it serves.
    const note = routeNoteOf(req)
    note.route = ROUTE
    note.user = 'bench'
  }
}
const observeMobisite = mode === 'mobisite' ? await mobisiteObserver() : undefined

const server = http.createServer((req, res) => {
  observeMobisite?.(req, res)
  // Made only where something uses it, so the plain server's baseline pays for no id.
  const id = header || log ? `${++ids}` : ''
  if (header) res.setHeader('X-Request-Id', id)
  if (log || metric) {
    const start = performance.now()
    res.on('close', () => {
      const ms = performance.now() - start
      if (metric)
        histogram.observe({ method: req.method, route: ROUTE, status_code: String(res.statusCode) }, ms / 1000)
      if (log)
        logger.info(
          {
            reqId: id,
            req: { id, method: req.method, path: req.url },
            route: ROUTE,
            user: 'bench',
            res: { statusCode: res.statusCode },
            responseTime: Math.round(ms * 1000) / 1000,
          },
          `${req.method} ${ROUTE} ${res.statusCode}`,
        )
    })
  }
  res.writeHead(200, HEADERS)
  res.end(SITE_JSON)
})
serveParent(server)
