/**
 * Bytes after a complete request that are no request: a GET, HEAD or DELETE
 * whose client wrote a body without declaring a length (Duda's own client
 * does this). To HTTP they are the start of a next request that cannot be
 * parsed; Node's default answers 400 and destroys the socket, which throws
 * away the answer still being made for the request in hand.
 *
 * Here the request in hand is answered instead, with `Connection: close`,
 * and the leftover bytes are never read as a request. startServer's own
 * framing handler (server-limits.ts) does this; {@link guardServerOf} gives
 * the same to any other server an apiRouter or adminRouter is served from.
 */
import { type IncomingMessage, type Server, STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'

/** The response being written on a socket, as Node keeps it there. */
interface InFlight {
  /** Its request; `complete` once its whole message (a body it declared included) was parsed. */
  req: { complete: boolean }
  headersSent?: boolean
  writableEnded: boolean
  shouldKeepAlive: boolean
  once(event: 'finish', listener: () => void): unknown
}

/** How long a client has to read its answer before a socket with unread bytes is destroyed. */
export const CLOSE_GRACE_MS = 2_000

/** Sockets already answering their request in hand: later parse errors on them change nothing. */
const answering = new WeakSet<Duplex>()

/**
 * When `error` is a parse error of bytes that follow a complete request
 * whose answer is pending, lets that answer go out and closes the socket
 * after it; returns true. Otherwise returns false and does nothing.
 */
export function answerRequestInHand(error: Error & { code?: string }, socket: Duplex): boolean {
  if (answering.has(socket)) return true
  const inFlight = (socket as Duplex & { _httpMessage?: InFlight })._httpMessage
  // Headers already out is fine: the answer still finishes, and the socket closes after it.
  if (!isParseError(error.code) || !inFlight?.req.complete || inFlight.writableEnded) return false
  // Once per socket: the parser reports every later chunk again, and each must cost nothing.
  answering.add(socket)
  inFlight.shouldKeepAlive = false
  inFlight.once('finish', () => {
    socket.end()
    // end() only half-closes: a client that keeps sending and never closes must not keep the socket.
    setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref()
  })
  return true
}

/** A framing error of llhttp (not a timeout, a header overflow or a reset). */
function isParseError(code: string | undefined): boolean {
  if (code === 'HPE_HEADER_OVERFLOW' || code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return false
  return code?.startsWith('HPE_') === true
}

/** The answer Node's http server gives a framing error when nobody listens for `clientError`. */
function statusOf(code: string | undefined): number {
  if (code === 'HPE_HEADER_OVERFLOW') return 431
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return 413
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408
  return 400
}

/** Node's own handling of a client error, for every case {@link answerRequestInHand} leaves. */
function nodeDefault(error: Error & { code?: string }, socket: Duplex): void {
  if (answerRequestInHand(error, socket)) return
  const inFlight = (socket as Duplex & { _httpMessage?: InFlight })._httpMessage
  if (socket.writable && !inFlight?.headersSent) {
    const status = statusOf(error.code)
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`)
  }
  socket.destroy(error)
}

const GUARDED = Symbol.for('mobisite.bytesAfterRequest')

/**
 * Makes the server `req` arrived on answer the request in hand when bytes
 * follow it (see the module comment). Done once per server, and only for a
 * server nobody else handles `clientError` on: an app that answers framing
 * errors itself (startServer included) is left as it is, and every other
 * error gets Node's own answer.
 */
export function guardServerOf(req: IncomingMessage): void {
  const server = (req.socket as IncomingMessage['socket'] & { server?: Server & { [GUARDED]?: true } }).server
  if (server === undefined || server[GUARDED]) return
  server[GUARDED] = true
  if (typeof server.listenerCount !== 'function' || server.listenerCount('clientError') > 0) return
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    // Someone added a handler since: theirs decides.
    if (server.listenerCount('clientError') > 1) return
    nodeDefault(error, socket)
  })
}
