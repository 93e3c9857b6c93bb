/**
 * startServer's requests and responses are born with its Express app's
 * prototypes (lib/server/express-prototypes.ts), so Express's per-request
 * Object.setPrototypeOf changes nothing; a listener that is no Express app
 * gets Node's own classes.
 */
import { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import t from 'tap'
import { limitedServer } from '../../lib/server/limits.js'
import { startServer } from '../../lib/server/index.js'

/** The prototypes a request and its response have when the server first sees them, before any listener. */
async function prototypesAtArrival(server: import('node:http').Server): Promise<[object, object]> {
  const seen = new Promise<[object, object]>((resolve) =>
    server.prependListener('request', (req, res) => resolve([Object.getPrototypeOf(req), Object.getPrototypeOf(res)])),
  )
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await fetch(`http://127.0.0.1:${port}/healthz`)
  return seen
}

t.test('an Express app: born with app.request and app.response, and served as usual', async (t) => {
  const app = express()
  app.get('/healthz', (req, res) => {
    res.json({ path: req.path, host: req.hostname })
  })
  const server = limitedServer(app)
  t.teardown(() => server.close())
  const [request, response] = await prototypesAtArrival(server)
  t.equal(request, app.request)
  t.equal(response, app.response)
  const { port } = server.address() as AddressInfo
  t.same(await (await fetch(`http://127.0.0.1:${port}/healthz`)).json(), { path: '/healthz', host: '127.0.0.1' })
})

t.test('a listener that is no Express app: Node’s own classes', async (t) => {
  const server = limitedServer((_req, res) => res.end('ok'))
  t.teardown(() => server.close())
  const [request, response] = await prototypesAtArrival(server)
  t.equal(request, IncomingMessage.prototype)
  t.equal(response, ServerResponse.prototype)
})

t.test('startServer: every request is an IncomingMessage with Express’s methods from the start', async (t) => {
  const running = await startServer()
  t.teardown(() => running.close())
  const [request, response] = await prototypesAtArrival(running.server)
  t.ok(request instanceof IncomingMessage && 'get' in request && 'accepts' in request, 'an Express request')
  t.ok(response instanceof ServerResponse && 'json' in response && 'status' in response, 'an Express response')
  t.not(request, IncomingMessage.prototype)
})
