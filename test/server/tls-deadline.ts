/**
 * startServer({ tls }) against clients that hold connections without
 * speaking: sockets that never send a ClientHello or trickle one, and a
 * client that finishes the handshake late and sends no headers. They get the
 * header timeout of a plain connection, counted from the TCP connect, and
 * count against the connection cap while they wait.
 */
import { once } from 'node:events'
import { Agent, get } from 'node:https'
import { connect, createServer, type Socket } from 'node:net'
import { connect as tlsConnect } from 'node:tls'
import t from 'tap'
import { startServer, type RunningServer } from '../../lib/index.js'

/** A TCP connection to the server that sends nothing. */
async function openRaw(server: RunningServer): Promise<Socket> {
  const { port } = new URL(server.url)
  const socket = connect(Number(port), '127.0.0.1')
  socket.on('error', () => {})
  await once(socket, 'connect')
  return socket
}

/** Resolves with the milliseconds after `since` at which the socket closed. */
function closedAt(socket: Socket, since: number): Promise<number> {
  if (socket.destroyed) return Promise.resolve(Date.now() - since)
  return new Promise((resolve) => socket.once('close', () => resolve(Date.now() - since)))
}

/** The status of `GET /healthz` over HTTPS, or the error code when no answer came. */
function healthz(server: RunningServer): Promise<number | string> {
  const { port } = new URL(server.url)
  return new Promise((resolve) => {
    const req = get(
      { host: 'localhost', port, path: '/healthz', agent: new Agent({ ca: server.ca!, keepAlive: false }) },
      (res) => {
        res.resume()
        resolve(res.statusCode!)
      },
    )
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'))
    req.setTimeout(5_000, () => req.destroy())
  })
}

/** A real ClientHello, as a TLS client sends it first. */
async function clientHello(): Promise<Buffer> {
  const listener = createServer()
  listener.listen(0, '127.0.0.1')
  await once(listener, 'listening')
  const { port } = listener.address() as { port: number }
  const client = tlsConnect({ port, host: '127.0.0.1', servername: 'localhost' })
  client.on('error', () => {})
  const [socket] = (await once(listener, 'connection')) as [Socket]
  const [hello] = (await once(socket, 'data')) as [Buffer]
  socket.destroy()
  client.destroy()
  listener.close()
  return hello
}

t.test('sockets that never finish a handshake hold HTTPS only for the header timeout', async (t) => {
  const server = await startServer({ tls: true, timeouts: { headers: 1_000 }, maxConnections: 40 })
  const sockets: Socket[] = []
  t.teardown(() => {
    for (const socket of sockets) socket.destroy()
    return server.close()
  })
  const opened = Date.now()
  // One that trickles a ClientHello, opened first so that the cap does not close it: bytes must not extend the deadline.
  const hello = await clientHello()
  const trickling = await openRaw(server)
  let sent = 0
  const drip = setInterval(() => trickling.writable && trickling.write(hello.subarray(sent, ++sent)), 100)
  t.teardown(() => clearInterval(drip))
  const idle = await Promise.all(Array.from({ length: 49 }, () => openRaw(server)))
  sockets.push(trickling, ...idle)
  const closings = [trickling, ...idle].map((socket) => closedAt(socket, opened))

  t.not(await healthz(server), 200, 'while they are held, the connection cap (40) turns a real client away')
  const times = await Promise.race([
    Promise.all(closings),
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 10_000).unref()),
  ])
  t.ok(times !== undefined, 'every socket was closed within 10 s (Node alone holds them 120 s)')
  if (times === undefined) return
  t.ok(Math.max(...times) < 8_000, `the last one after ${Math.max(...times)} ms, for a 1 s header timeout`)
  t.ok(sent > 1 && times[0]! < 8_000, `the trickling one too, after ${times[0]} ms (${sent} bytes sent)`)
  t.equal(await healthz(server), 200, 'then HTTPS answers again')
})

t.test('a connection that finishes its handshake late and sends no headers is answered 408 in time', async (t) => {
  // The margins are wide: the deadline is at 4 s from connect; counted from the handshake it would be 7 s or more.
  const server = await startServer({ tls: true, timeouts: { headers: 4_000 } })
  const opened = Date.now()
  const raw = await openRaw(server)
  t.teardown(() => {
    raw.destroy()
    return server.close()
  })
  await new Promise((resolve) => setTimeout(resolve, 3_000))
  const secure = tlsConnect({ socket: raw, servername: 'localhost', ca: server.ca! })
  secure.on('error', () => {})
  await once(secure, 'secureConnect')
  let text = ''
  secure.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
  const after = await new Promise<number>((resolve) => {
    secure.once('close', () => resolve(Date.now() - opened))
    setTimeout(() => resolve(Number.POSITIVE_INFINITY), 15_000).unref()
  })
  t.match(text, /^HTTP\/1\.1 408 /, 'the 408 a plain connection gets')
  t.match(text, /"error_code":"RequestTimeout"/)
  t.ok(after < 5_500, `closed ${after} ms after the TCP connect, not a header timeout after the handshake`)
})
