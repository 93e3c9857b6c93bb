/**
 * The desktop site the throughput benchmark loads, in its own process so
 * autocannon does not share its event loop: `bare` (Express only) or
 * `redirect` (mobileRedirect in front), or `empty` (an Express middleware
 * that only calls next(): the cost of any middleware layer, the floor under
 * mobileRedirect's). Sends its port to the parent.
 */
import type { AddressInfo } from 'node:net'
import express from 'express'
import { mobileRedirect } from '../lib/redirect/middleware.js'

const mode = process.argv[2]
const PAGE = `<!doctype html><html><head><title>Desktop site</title></head><body>${'<p>desktop content</p>'.repeat(40)}</body></html>`

const app = express()
if (mode === 'redirect') app.use(mobileRedirect({ mobileUrl: 'https://m.example.com' }))
if (mode === 'empty') app.use((_req, _res, next) => next())
app.get('/{*path}', (_req, res) => {
  res.type('html').send(PAGE)
})
const server = app.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port })
})
// CPU time per request is steadier than req/s on a shared machine: the
// parent asks for this process's CPU usage and request count around each run.
let requests = 0
server.on('request', () => requests++)
process.on('message', () => {
  const { user, system } = process.cpuUsage()
  process.send?.({ cpuMicros: user + system, requests })
})
process.on('disconnect', () => server.close(() => process.exit(0)))
