/**
 * What a client can do to `/metrics` and the access log of the standalone
 * server: nothing it spells multiplies the series. Route labels and the log's
 * `route` are templates as registered whatever the letter case of the
 * request (Express matches `/API` to the `/api` mount), and methods beyond the
 * usual seven are `OTHER`. A chaos probe made 837 label sets (13,586 series,
 * 1.5 MB a scrape) from 16,830 unauthenticated requests in 8 casings × 34
 * methods; here a smaller flood of the same shape shows the bound.
 */
import { request as httpRequest } from 'node:http'
import express from 'express'
import { Registry } from 'prom-client'
import t from 'tap'
import { apiRouter, createEngine, startServer } from '../../lib/index.js'
import { capturedLogger } from '../helpers/log-lines.js'

const CASINGS = ['/api', '/API', '/Api', '/aPi', '/apI', '/APi']
const METHODS = ['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'PROPFIND', 'MKCOL', 'LOCK', 'UNLOCK', 'SEARCH', 'PURGE']
const PATHS = ['/sites/abcd', '/sites/created', '/accounts/ann', '/agents', '/no/such/path']

/** One raw request: fetch refuses the WebDAV methods that Node's server accepts. */
function send(base: URL, method: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: base.hostname, port: base.port, method, path }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', reject)
    req.end()
  })
}

t.test('a casing-and-method flood adds no series beyond the registered routes', async (t) => {
  const { logger, lines } = capturedLogger()
  const engine = createEngine()
  await engine.addMasterAccount({ user: 'u', password: 'p' })
  const server = await startServer({ engine, metrics: true, logger })
  t.teardown(() => server.close())
  const base = new URL(server.url)

  const series = async (): Promise<string[]> =>
    (await (await fetch(`${server.url}/metrics`)).text())
      .split('\n')
      .filter((line) => line.startsWith('http_request_duration_seconds_count{'))
  // The canonical spelling with the usual methods: the series a well-behaved client makes.
  for (const method of METHODS.slice(0, 5)) for (const path of PATHS) await send(base, method, `/api${path}`)
  await series()
  const canonical = await series()

  const statuses = new Set<number>()
  for (const casing of CASINGS)
    for (const method of METHODS) for (const path of PATHS) statuses.add(await send(base, method, `${casing}${path}`))
  const flooded = await series()
  t.ok(statuses.size > 1, `answered ${[...statuses].join(', ')}`)
  const methodsSeen = new Set(flooded.map((line) => /method="([^"]+)"/.exec(line)![1]))
  t.same([...methodsSeen].sort(), ['DELETE', 'GET', 'OTHER', 'PATCH', 'POST', 'PUT'], 'unusual methods are OTHER')
  const routes = new Set(flooded.map((line) => /route="([^"]+)"/.exec(line)![1]))
  for (const route of routes) t.notMatch(route, /\/A[Pp]|\/aP|\/apI/, `${route}: never the request's casing`)
  // Every flooded series is a canonical one, or the same route and status with method OTHER.
  const shape = (line: string) => line.replace(/method="[^"]+"/, '').replace(/\} \d+$/, '}')
  const known = new Set(canonical.map(shape))
  t.same(
    flooded.filter((line) => !known.has(shape(line))),
    [],
    `${flooded.length} series after ${CASINGS.length * METHODS.length * PATHS.length} more requests (${canonical.length} before)`,
  )
  t.ok(flooded.length <= canonical.length * 2, 'at most one OTHER series per canonical route and status')

  const logged = new Set(lines.map((line) => line.route).filter((route) => typeof route === 'string'))
  for (const route of logged) t.notMatch(route as string, /\/A[Pp]|\/aP|\/apI/, `log route ${route}: as registered`)
  t.ok(logged.has('/api/sites/{site_name}'), 'the access log names the template')
})

t.test('a mount spelled every way names one route, past the spellings a router keeps', async (t) => {
  const engine = createEngine()
  await engine.addMasterAccount({ user: 'u', password: 'p' })
  const registry = new Registry()
  const server = express().use('/mobile-sites', apiRouter(engine, { registry })).listen(0, '127.0.0.1')
  t.teardown(() => server.close())
  await new Promise((resolve) => server.once('listening', resolve))
  const base = new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}`)
  // 40 spellings of the mount, more than the 16 a router keeps labels for.
  const spellings = Array.from({ length: 40 }, (_, n) =>
    [...'/mobile-sites'].map((c, i) => ((n >> (i % 12)) & 1 ? c.toUpperCase() : c)).join(''),
  )
  t.equal(new Set(spellings).size, 40)
  for (const spelling of [...spellings, ...spellings]) t.equal(await send(base, 'GET', `${spelling}/sites/abcd`), 401)
  const counts = (await registry.metrics())
    .split('\n')
    .filter((line) => line.startsWith('http_request_duration_seconds_count{'))
  t.same(counts, [
    'http_request_duration_seconds_count{method="GET",route="/mobile-sites/sites/{site_name}",status_code="401"} 80',
  ])
})
