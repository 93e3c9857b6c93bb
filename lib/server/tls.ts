/**
 * HTTPS for startServer: Duda's own client only speaks HTTPS on port 443, so
 * the test double serves TLS with a given key and certificate, or with a
 * self-signed certificate made at start (kept in memory, never written to
 * disk) that a test trusts through `server.ca`.
 */
import type { IncomingMessage, RequestListener, Server, ServerOptions } from 'node:http'
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https'
import { isIP, type Socket } from 'node:net'
import type { TLSSocket } from 'node:tls'

/** A key and certificate in PEM, as `https.createServer` takes them. */
export interface TlsKeyPair {
  /** The private key (PEM). */
  key: string | Buffer
  /** The certificate chain (PEM). */
  cert: string | Buffer
}

/**
 * `true`: a self-signed certificate for the host, made at start; or the key
 * and certificate to serve.
 */
export type TlsOption = true | TlsKeyPair

/** What startServer needs to serve HTTPS. */
export interface ResolvedTls extends TlsKeyPair {
  /** The PEM of the self-signed certificate, when startServer made it. */
  ca?: string
}

/** Names every loopback client may use, whatever host the server listens on. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1']

/** The key pair to serve, made now when `tls` is `true`; refuses a half-given pair. */
export async function resolveTls(tls: TlsOption, host: string): Promise<ResolvedTls> {
  if (tls !== true) {
    if (!tls?.key || !tls.cert) {
      throw new Error('startServer: tls needs both key and cert (PEM), or true for a self-signed certificate')
    }
    return { key: tls.key, cert: tls.cert }
  }
  const made = await selfSigned(host)
  return { key: made.key, cert: made.cert, ca: made.cert }
}

/**
 * The X.509 library, loaded here so that only a TLS start pays for it. It is
 * an optional peer dependency: 20 packages that a redirect-only site or an
 * API mounted behind its own TLS never needs (issue 37).
 */
async function loadSelfsigned(): Promise<typeof import('selfsigned')> {
  try {
    return await import('selfsigned')
  } catch (error) {
    const code = (error as { code?: string }).code
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw error
    throw new Error(
      'a self-signed certificate (tls: true, --tls) needs the optional package selfsigned: ' +
        'npm install selfsigned, or give a key and certificate (tls: { key, cert }, --tls-cert and --tls-key)',
      { cause: error },
    )
  }
}

/** A self-signed P-256 certificate valid for `host` and the loopback names, for one year. */
export async function selfSigned(host: string): Promise<{ key: string; cert: string }> {
  const { generate } = await loadSelfsigned()
  const bare = host.replace(/^\[|\]$/g, '')
  const wildcard = bare === '0.0.0.0' || bare === '::' || bare === ''
  const names = [...new Set([...(wildcard ? [] : [bare]), ...LOOPBACK_NAMES])]
  const commonName = wildcard || isIP(bare) !== 0 ? 'localhost' : bare
  const now = new Date()
  const made = await generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    // An hour back: a client whose clock is a little behind still accepts it.
    notBeforeDate: new Date(now.getTime() - 3_600_000),
    notAfterDate: new Date(now.getTime() + 365 * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: names.map((name) => (isIP(name) === 0 ? { type: 2, value: name } : { type: 7, ip: name })),
      },
    ],
  })
  return { key: made.private, cert: made.cert }
}

/**
 * Makes an HTTPS server with the given HTTP options, for `limitedServer`'s
 * `create`. A connection gets `headersTimeout` from its TCP connect to finish
 * the handshake and send its first request's headers, as a plain connection
 * gets it for the headers alone.
 */
export function httpsServerFactory(tls: TlsKeyPair): (options: ServerOptions, app: RequestListener) => Server {
  return (options, app) => {
    const headersTimeout = options.headersTimeout ?? 60_000
    // Node's default is 120 s: sockets that never send a ClientHello would hold the connection cap that long.
    const server = createHttpsServer({ ...options, ...tls, handshakeTimeout: headersTimeout }, app)
    // No HTTP can be spoken before the handshake, so clientError's JSON answer could never leave; close at once.
    server.prependListener('tlsClientError', (_error, socket) => socket.destroy())
    closeSlowStarts(server, headersTimeout)
    return server
  }
}

/** A TLS connection that has not yet sent its first request's headers. */
interface SlowStart {
  timer: NodeJS.Timeout
  /** Set once the handshake is done. */
  secure?: TLSSocket
}

/**
 * Holds every TLS connection to `headersTimeout` from its TCP connect for the
 * handshake and the first headers together. Node counts its header timeout
 * from the end of the handshake, so without this a client finishing the
 * handshake just in time would get the deadline twice.
 */
function closeSlowStarts(server: HttpsServer, headersTimeout: number): void {
  // The raw socket and its TLS socket share nothing public but their addresses and ports.
  const byAddresses = new Map<string, SlowStart>()
  const bySocket = new WeakMap<TLSSocket, SlowStart>()
  server.on('connection', (raw: Socket) => {
    const addresses = addressesOf(raw)
    const start: SlowStart = { timer: setTimeout(() => closeLate(server, raw, start), headersTimeout) }
    byAddresses.set(addresses, start)
    raw.once('close', () => {
      clearTimeout(start.timer)
      byAddresses.delete(addresses)
    })
  })
  server.on('secureConnection', (socket: TLSSocket) => {
    const start = byAddresses.get(addressesOf(socket))
    if (start === undefined) return
    start.secure = socket
    bySocket.set(socket, start)
  })
  server.prependListener('request', (req: IncomingMessage) => {
    const start = bySocket.get(req.socket as TLSSocket)
    if (start === undefined) return
    clearTimeout(start.timer)
    bySocket.delete(req.socket as TLSSocket)
  })
}

/** Closes a connection past its deadline: silently before the handshake, else as a plain one is closed. */
function closeLate(server: HttpsServer, raw: Socket, start: SlowStart): void {
  if (start.secure === undefined) {
    raw.destroy()
    return
  }
  // server-limits.ts answers this as it answers a plain connection's headers timeout: 408 JSON, then closed.
  const timeout = Object.assign(new Error('the request headers were not received in time'), {
    code: 'ERR_HTTP_REQUEST_TIMEOUT',
  })
  server.emit('clientError', timeout, start.secure)
}

/** Both ends of a TCP connection: unique among open connections. */
function addressesOf(socket: Socket): string {
  return `${socket.remoteAddress}|${socket.remotePort}|${socket.localAddress}|${socket.localPort}`
}
