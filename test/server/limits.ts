/**
 * startServer against slow and broken clients, over raw sockets: the default
 * deadlines (headers 10 s, request 30 s, keep-alive 5 s), a slow body cut off
 * with 408 RequestTimeout, slow headers likewise, an oversized header 431, bad
 * framing 400, all with the JSON error body, and the connection cap.
 */
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import t from 'tap'
import { startServer } from '../../lib/index.js'

const AUTH = `Basic ${Buffer.from('alice:pw').toString('base64')}`

function open(url: string): Promise<Socket> {
  const { port } = new URL(url)
  const socket = connect(Number(port), '127.0.0.1')
  return once(socket, 'connect').then(() => socket)
}

/** Everything the server sends until it closes the connection (bounded by `ms`). */
function readAll(socket: Socket, ms = 15_000): Promise<{ text: string; closed: boolean; afterMs: number }> {
  const start = Date.now()
  return new Promise((resolve) => {
    let text = ''
    const timer = setTimeout(() => resolve({ text, closed: false, afterMs: Date.now() - start }), ms)
    socket.on('data', (chunk) => (text += chunk.toString('latin1')))
    socket.on('error', () => {})
    socket.on('close', () => {
      clearTimeout(timer)
      resolve({ text, closed: true, afterMs: Date.now() - start })
    })
  })
}

/** Status and parsed JSON body of a raw HTTP/1.1 answer. */
function parse(text: string): { status: number; type: string; body: Record<string, unknown> | undefined } {
  const [head = '', body = ''] = text.split('\r\n\r\n')
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0)
  const type = /content-type: ([^\r\n]+)/i.exec(head)?.[1] ?? ''
  let json: Record<string, unknown> | undefined
  try {
    json = JSON.parse(body) as Record<string, unknown>
  } catch {
    json = undefined
  }
  return { status, type, body: json }
}

t.test('the defaults: headers 10 s, request 30 s, keep-alive 5 s, a connection cap', async (t) => {
  const server = await startServer()
  t.teardown(() => server.close())
  t.equal(server.server.headersTimeout, 10_000)
  t.equal(server.server.requestTimeout, 30_000)
  t.equal(server.server.keepAliveTimeout, 5_000)
  t.equal(server.server.maxConnections, 1024)
})

t.test('a body sent one byte at a time is cut off with 408 RequestTimeout', async (t) => {
  const server = await startServer({ timeouts: { headers: 1_000, request: 2_000 } })
  await server.engine.addMasterAccount({ user: 'alice', password: 'pw' })
  t.teardown(() => server.close())
  const socket = await open(server.url)
  const answer = readAll(socket)
  socket.write(
    `POST /api/accounts/create HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n`,
  )
  const drip = setInterval(() => socket.writable && socket.write(' '), 200)
  const { text, closed, afterMs } = await answer
  clearInterval(drip)
  const res = parse(text)
  t.equal(res.status, 408, `408 after ${afterMs} ms`)
  t.match(res.type, /^application\/json/)
  t.equal(res.body?.error_code, 'RequestTimeout')
  t.ok(closed, 'and the connection is closed')
  t.ok(afterMs < 5_000, 'within the request deadline and one check interval')
})

t.test('headers that never end are cut off with 408 too', async (t) => {
  const server = await startServer({ timeouts: { headers: 1_000, request: 2_000 } })
  t.teardown(() => server.close())
  const socket = await open(server.url)
  const answer = readAll(socket)
  socket.write('GET /api/agents HTTP/1.1\r\nHost: x\r\n')
  const drip = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 200)
  const { text, closed, afterMs } = await answer
  clearInterval(drip)
  t.equal(parse(text).status, 408, `408 after ${afterMs} ms`)
  t.equal(parse(text).body?.error_code, 'RequestTimeout')
  t.ok(closed)
})

t.test("Node's own answers carry the JSON error body", async (t) => {
  const server = await startServer()
  t.teardown(() => server.close())
  const send = async (raw: string) => {
    const socket = await open(server.url)
    const answer = readAll(socket, 5_000)
    socket.write(raw)
    return parse((await answer).text)
  }
  const big = await send(`GET /api/agents HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
  t.equal(big.status, 431, 'an oversized header: 431')
  t.match(big.type, /^application\/json/)
  t.equal(big.body?.error_code, 'InvalidInput')
  const framing = await send('POST /api/sites/create HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n')
  t.equal(framing.status, 400, 'a bad Content-Length: 400')
  t.equal(framing.body?.error_code, 'InvalidInput')
  const both = await send(
    'POST /api/sites/create HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc',
  )
  t.equal(both.status, 400, 'Content-Length with Transfer-Encoding (request smuggling): 400')
  t.equal(both.body?.error_code, 'InvalidInput')
  const chunk = await send(
    'POST /api/sites/create HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n',
  )
  t.equal(chunk.status, 400, 'a bad chunk size: 400')
  t.equal(chunk.body?.error_code, 'InvalidInput')
  const garbage = await send('\x00\x01 not http at all\r\n\r\n')
  t.equal(garbage.status, 400, 'not HTTP: 400')
  t.equal(garbage.body?.error_code, 'InvalidInput')
})

t.test('connections beyond maxConnections are closed at once', async (t) => {
  const server = await startServer({ maxConnections: 2 })
  t.teardown(() => {
    server.server.closeAllConnections()
    return server.close()
  })
  const held = [await open(server.url), await open(server.url)]
  for (const socket of held) socket.write('GET /api/agents HTTP/1.1\r\nHost: x\r\n')
  await new Promise((r) => setTimeout(r, 100))
  const extra = await open(server.url)
  const { text, closed, afterMs } = await readAll(extra, 3_000)
  t.ok(closed && text === '', `the third connection is closed unanswered (${afterMs} ms)`)
  for (const socket of held) socket.destroy()
  await new Promise((r) => setTimeout(r, 100))
  const again = await open(server.url)
  const answer = readAll(again, 5_000)
  again.write('GET /api/agents HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
  t.equal(parse((await answer).text).status, 401, 'once others closed, a new connection is served')
})

t.test('a client that never reads its 408 still loses the connection', async (t) => {
  const server = await startServer({ timeouts: { headers: 1_000, request: 1_000 } })
  t.teardown(() => server.close())
  const socket = await open(server.url)
  socket.on('error', () => {})
  socket.pause()
  socket.write('GET /api/agents HTTP/1.1\r\nHost: x\r\nX-Slow: ')
  const drip = setInterval(() => socket.writable && socket.write('a'), 200)
  t.teardown(() => {
    clearInterval(drip)
    socket.destroy()
  })
  const count = () => new Promise<number>((resolve) => server.server.getConnections((_e, n) => resolve(n)))
  t.equal(await count(), 1, 'the connection is open')
  let gone = -1
  for (let waited = 0; waited < 8_000; waited += 250) {
    await new Promise((r) => setTimeout(r, 250))
    if ((await count()) === 0) {
      gone = waited
      break
    }
  }
  t.ok(gone >= 0, `the server dropped it after about ${gone} ms`)
})
