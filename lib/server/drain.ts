/**
 * How startServer stops serving without resetting a request. Node's own
 * `server.close()` destroys every idle keep-alive socket at once, so a
 * request a client has just written on one is reset; and an answer already
 * being made when the drain starts would keep its connection alive. Here,
 * once the drain has begun, every answer closes its connection; the listener
 * stops accepting while open connections end on their own (after their next
 * answer, or at their keep-alive timeout); and only the shutdown deadline
 * cuts what is left.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

/** The drain of one server; see the module comment. */
export interface Drain {
  /**
   * From now on every answer carries `Connection: close` and closes its
   * connection once sent, the answers already being made included (all but
   * those whose headers are already out).
   */
  begin(): void
  /** Resolves once every answer being made now has gone out, or its connection has closed. */
  answersOut(): Promise<void>
  /**
   * Stops accepting connections, and resolves once the last open one has
   * closed. Open connections are not touched: each ends after its next
   * answer, at its keep-alive timeout, or at {@link Drain.cut}.
   */
  stopListening(): Promise<void>
  /** Destroys every open connection (TLS ones mid-handshake included), and any accepted after. */
  cut(): void
  /** Connections open now, TLS ones mid-handshake included. */
  openConnections(): number
}

/** Tracks `server`'s connections and answers from now on, so that it can be drained; call before it listens. */
export function drainOf(server: Server): Drain {
  let draining = false
  let cutting = false
  const answering = new Set<ServerResponse>()
  // Every accepted socket: Node's closeAllConnections() knows only those past a TLS handshake.
  const sockets = new Set<Socket>()
  server.on('connection', (socket: Socket) => {
    if (cutting) {
      socket.destroy()
      return
    }
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  // One listener for every answer, which 'close' ends once: `once` would wrap and bind a new one per request.
  function answered(this: ServerResponse): void {
    answering.delete(this)
  }
  // Prepended: the app may answer within its own listener, before a later one would run.
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (draining) res.shouldKeepAlive = false
    answering.add(res)
    res.on('close', answered)
  })
  return {
    begin() {
      draining = true
      for (const res of answering) if (!res.headersSent) res.shouldKeepAlive = false
    },
    async answersOut() {
      await Promise.all([...answering].map((res) => new Promise((resolve) => res.once('close', resolve))))
    },
    stopListening() {
      return new Promise<void>((resolve, reject) => {
        // Shadowed for this one call: Node's close() would destroy the idle keep-alive sockets.
        server.closeIdleConnections = () => undefined
        try {
          server.close((error) => (error ? reject(error) : resolve()))
        } finally {
          Reflect.deleteProperty(server, 'closeIdleConnections')
        }
      })
    },
    cut() {
      cutting = true
      server.closeAllConnections()
      for (const socket of sockets) socket.destroy()
    },
    openConnections: () => sockets.size,
  }
}

/** Node's own close: stops listening and destroys idle keep-alive sockets at once; resolves when all are closed. */
export function closeAtOnce(server: Server): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()))
    server.closeIdleConnections()
  })
}
