/**
 * The limits startServer puts on its HTTP server, so slow or broken clients
 * cannot hold it: a deadline for the headers and for the whole request, a
 * short keep-alive, a connection cap, and a JSON error body for everything
 * Node answers itself (bad framing, oversized headers, timeouts), which would
 * otherwise be an empty or plain-text answer.
 */
import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http'
import { hasExpressPrototypes, prototypedMessages } from './express-prototypes.js'
import { pinTickShape } from './shape-pins.js'
import type { Duplex } from 'node:stream'
import type { ErrorCode } from '../errors.js'
import { answerRequestInHand, CLOSE_GRACE_MS } from '../http/bytes-after-request.js'

/** Timeouts of the standalone server, in milliseconds. */
export interface ServerTimeouts {
  /** Until the request headers are complete. Default 10,000. */
  headers?: number
  /** Until the whole request (headers and body) is received. Default 30,000. */
  request?: number
  /** An idle keep-alive connection is closed after this. Default 5,000. */
  keepAlive?: number
}

/** Default connection cap: connections beyond it are closed at once. */
export const DEFAULT_MAX_CONNECTIONS = 1024

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Content Too Large',
  431: 'Request Header Fields Too Large',
}

/** The status, error_code and message for an error Node's HTTP parser or timers raised. */
function answerFor(code: string | undefined): [number, ErrorCode, string] {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return [408, 'RequestTimeout', 'the request was not received in time']
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'InvalidInput', 'the request headers are too large']
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, 'InvalidInput', 'a chunk extension of the request body is too large']
    default:
      return [400, 'InvalidInput', `the request is not valid HTTP/1.1 (${code ?? 'unreadable'})`]
  }
}

/** Answers a connection-level error with the JSON error body, then closes the connection. */
function onClientError(error: Error & { code?: string }, socket: Duplex): void {
  // Bytes after a complete request whose answer is pending: that answer goes out first.
  if (answerRequestInHand(error, socket)) return
  // A response already under way cannot be replaced by another: just close.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy()
    return
  }
  const [status, error_code, message] = answerFor(error.code)
  const body = JSON.stringify({ error_code, message })
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  )
  // end() only half-closes: a client that never reads or closes (a slowloris) would keep the socket.
  setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref()
}

/** An HTTP server for `app` with the limits above; `create` makes it (HTTPS: see server-tls.ts). */
export function limitedServer(
  app: RequestListener,
  timeouts: ServerTimeouts = {},
  maxConnections = DEFAULT_MAX_CONNECTIONS,
  create: (options: ServerOptions, app: RequestListener) => Server = createServer,
): Server {
  const headersTimeout = timeouts.headers ?? 10_000
  const requestTimeout = timeouts.request ?? 30_000
  const server = create(
    {
      // Requests and responses born with the app's prototypes: Express need not change them (a third of the CPU).
      ...(hasExpressPrototypes(app) ? prototypedMessages(app) : {}),
      headersTimeout,
      // Node requires requestTimeout >= headersTimeout.
      requestTimeout: Math.max(requestTimeout, headersTimeout),
      keepAliveTimeout: timeouts.keepAlive ?? 5_000,
      // Node checks the two deadlines on this interval (default 30 s, which would double them).
      connectionsCheckingInterval: Math.min(1_000, headersTimeout),
    },
    app,
  )
  server.maxConnections = maxConnections
  server.on('clientError', onClientError)
  // An idle server's full GC must not leave process.nextTick megamorphic (./shape-pins.ts).
  pinTickShape()
  return server
}
