/**
 * startServer's requests and responses are born with its Express app's
 * prototypes (lib/server/express-prototypes.ts), so Express's per-request
 * Object.setPrototypeOf changes nothing; a listener that is no Express app
 * gets Node's own classes.
 */
import { spawn } from 'node:child_process'
import { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import t from 'tap'
import { limitedServer } from '../../lib/server/limits.js'
import { startServer } from '../../lib/server/index.js'
import { root } from '../helpers/cli.js'
import { TSX_CHILD_ENV } from '../helpers/tsx-child.js'

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

/**
 * V8's view of startServer's requests and responses, from a child started
 * with --allow-natives-syntax: whether each keeps fast properties when it
 * arrives and when its answer is done. The control is a wrapper constructor
 * without the sizing hints, on a plain node:http server with the same
 * prototypes, which V8 turns into dictionaries.
 */
const shapeChild = `
const http = await import('node:http')
const express = (await import('express')).default
const { createEngine, startServer } = await import(${JSON.stringify(`${root}lib/index.ts`)})
const fast = (0, eval)('(o) => %HasFastProperties(o)')
const engine = createEngine()
await engine.addMasterAccount({ user: 'u', password: 'password-1' })
await engine.as('u').createSite({ site_data: { site_name: 'shapesite', original_site_url: 'https://www.example.com/' } })
const seen = []
const watch = (server) => server.prependListener('request', (req, res) => {
  const arrived = [fast(req), fast(res)]
  res.on('close', () => seen.push([...arrived, fast(req), fast(res)]))
})
const running = await startServer({ engine })
watch(running.server)
const auth = { authorization: 'Basic ' + Buffer.from('u:password-1').toString('base64') }
for (let i = 0; i < 20; i++) await (await fetch(running.url + '/api/sites/shapesite', { headers: auth })).text()
await running.close()
const served = seen.splice(0)
const app = express()
app.get('/x', (req, res) => res.json({ ok: true }))
function Bare(req, options) { http.ServerResponse.call(this, req, options) }
Bare.prototype = app.response
const plain = http.createServer({ ServerResponse: Bare }, app)
watch(plain)
await new Promise((resolve) => plain.listen(0, '127.0.0.1', resolve))
for (let i = 0; i < 20; i++) await (await fetch('http://127.0.0.1:' + plain.address().port + '/x')).text()
plain.close()
console.log(JSON.stringify({ served, control: seen }))
`

/** Runs `source` as an ES module through tsx with `nodeFlag`; its exit code and stdout. */
async function runChild(nodeFlag: string, source: string): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', nodeFlag, '--input-type=module', '-e', source], {
    cwd: root,
    env: TSX_CHILD_ENV,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => (out += chunk))
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  return { code, out }
}

t.test('startServer: requests and responses keep fast properties from arrival to the end of the answer', async (t) => {
  const { code, out } = await runChild('--allow-natives-syntax', shapeChild)
  t.equal(code, 0, 'the child ran')
  const { served, control } = JSON.parse(out) as { served: boolean[][]; control: boolean[][] }
  t.equal(served.length, 20, 'every request was seen')
  t.same(
    served.filter((row) => row.includes(false)),
    [],
    'request and response fast on arrival and when answered, every time',
  )
  t.ok(
    control.some((row) => row[1] === false),
    'the control: a wrapper without the hints makes dictionary-mode responses',
  )
})

t.test(
  'where Node forbids code from strings, startServer still serves (its constructors without the hints)',
  {
    skip:
      process.env.MOBISITE_TEST_EXPRESS === '4' &&
      "Express 4 cannot load under this flag: its body-parser wraps functions with depd's new Function",
  },
  async (t) => {
    const source = `
const { startServer } = await import(${JSON.stringify(`${root}lib/server/index.ts`)})
const running = await startServer()
const answer = await fetch(running.url + '/healthz')
console.log(JSON.stringify({ status: answer.status, body: await answer.json() }))
await running.close()
`
    const { code, out } = await runChild('--disallow-code-generation-from-strings', source)
    t.equal(code, 0, 'the child ran')
    t.same(JSON.parse(out), { status: 200, body: { status: 'ok' } })
  },
)
