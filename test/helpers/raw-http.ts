/**
 * HTTP/1.1 over a raw socket, for tests that must choose which connection a
 * request goes on (a kept-alive one, one opened before a shutdown) and see
 * exactly what the server did with it: an answer, a close or a reset.
 */
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'

/** An answer read off a socket, or how the connection ended without one. */
export type RawAnswer =
  | { status: number; headers: Record<string, string>; body: string }
  | { error: 'closed' | 'reset' | string }

/** A connected TCP socket to the port of `url` on 127.0.0.1; its errors are read through {@link exchange}. */
export async function openSocket(url: string): Promise<Socket> {
  const socket = connect(Number(new URL(url).port), '127.0.0.1')
  socket.on('error', () => {})
  await once(socket, 'connect')
  return socket
}

/** Whether a new connection to `url` is refused (nothing listens). */
export function refused(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(false)
    })
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'))
  })
}

/** Writes `GET path` on `socket` and reads its answer (framed by Content-Length). */
export function exchange(socket: Socket, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return send(socket, 'GET', path, headers)
}

/** Writes a request on `socket` (a JSON body when given) and reads its answer. */
export function send(
  socket: Socket,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<RawAnswer> {
  const payload = body === undefined ? '' : JSON.stringify(body)
  const framing =
    body === undefined
      ? {}
      : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }
  const lines = Object.entries({ host: 'localhost', ...framing, ...headers }).map(
    ([name, value]) => `${name}: ${value}\r\n`,
  )
  socket.write(`${method} ${path} HTTP/1.1\r\n${lines.join('')}\r\n${payload}`)
  return readAnswer(socket)
}

/** Reads the next answer on `socket`. */
export function readAnswer(socket: Socket): Promise<RawAnswer> {
  return new Promise((resolve) => {
    let received = Buffer.alloc(0)
    let error: string | undefined
    const done = (answer: RawAnswer) => {
      socket.off('data', onData)
      socket.off('error', onError)
      socket.off('close', onClose)
      resolve(answer)
    }
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk])
      const end = received.indexOf('\r\n\r\n')
      if (end < 0) return
      const [statusLine = '', ...fields] = received.subarray(0, end).toString('latin1').split('\r\n')
      const headers: Record<string, string> = {}
      for (const field of fields) {
        const colon = field.indexOf(':')
        headers[field.slice(0, colon).trim().toLowerCase()] = field.slice(colon + 1).trim()
      }
      const length = Number(headers['content-length'] ?? 0)
      if (received.length < end + 4 + length) return
      const body = received.subarray(end + 4, end + 4 + length).toString('utf8')
      done({ status: Number(statusLine.split(' ')[1]), headers, body })
    }
    const onError = (e: NodeJS.ErrnoException) => {
      error = e.code === 'ECONNRESET' ? 'reset' : (e.code ?? 'error')
    }
    const onClose = () => done({ error: error ?? 'closed' })
    socket.on('data', onData)
    socket.on('error', onError)
    socket.once('close', onClose)
    if (socket.destroyed) onClose()
  })
}

/** Resolves once the server has closed `socket`: 'closed' for an orderly close, 'reset' for a reset. */
export function closedBy(socket: Socket): Promise<'closed' | 'reset'> {
  if (socket.destroyed) return Promise.resolve('closed')
  return new Promise((resolve) => {
    let reset = false
    socket.on('error', (error: NodeJS.ErrnoException) => (reset ||= error.code === 'ECONNRESET'))
    socket.once('close', () => resolve(reset ? 'reset' : 'closed'))
    // An orderly close is a FIN: read on so that it is seen.
    socket.resume()
  })
}
