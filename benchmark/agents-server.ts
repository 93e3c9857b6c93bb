/**
 * The desktop sites the throughput benchmark loads, all in one process so
 * autocannon does not share their event loop and no variant gets a process
 * (JIT state, heap layout, CPU placement) of its own: per-process drift
 * was larger than the middleware's cost. Three apps on three ports: `bare`
 * (Express only), `redirect` (mobileRedirect in front) and `empty` (an
 * Express middleware that only calls next(): the cost of any middleware
 * layer, the floor under mobileRedirect's). Sends the ports to the parent.
 */
import type { AddressInfo } from 'node:net'
import express from 'express'
import { mobileRedirect } from '../lib/redirect/middleware.js'

const PAGE = `<!doctype html><html><head><title>Desktop site</title></head><body>${'<p>desktop content</p>'.repeat(40)}</body></html>`

function site(mode: string): express.Express {
  const app = express()
  if (mode === 'redirect') app.use(mobileRedirect({ mobileUrl: 'https://m.example.com' }))
  if (mode === 'empty') app.use((_req, _res, next) => next())
  app.get('/{*path}', (_req, res) => {
    res.type('html').send(PAGE)
  })
  return app
}

// CPU time per request is steadier than req/s on a shared machine: the
// parent asks for this process's CPU usage and request count around each
// run, and loads one app at a time.
let requests = 0
const ports: Record<string, number> = {}
const servers = await Promise.all(
  ['bare', 'redirect', 'empty'].map(
    (mode) =>
      new Promise<ReturnType<express.Express['listen']>>((resolve) => {
        const server = site(mode).listen(0, '127.0.0.1', () => {
          ports[mode] = (server.address() as AddressInfo).port
          resolve(server)
        })
        server.on('request', () => requests++)
      }),
  ),
)
process.send?.({ ports })
process.on('message', () => {
  const { user, system } = process.cpuUsage()
  process.send?.({ cpuMicros: user + system, requests })
})
process.on('disconnect', () => {
  for (const server of servers) server.close()
  setImmediate(() => process.exit(0))
})
