/**
 * HTTPS for startServer: Duda's own client only speaks HTTPS on port 443, so
 * the test double serves TLS with a given key and certificate, or with a
 * self-signed certificate made at start (kept in memory, never written to
 * disk) that a test trusts through `server.ca`.
 */
import type { RequestListener, Server, ServerOptions } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { isIP } from 'node:net'

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

/** A self-signed P-256 certificate valid for `host` and the loopback names, for one year. */
export async function selfSigned(host: string): Promise<{ key: string; cert: string }> {
  // Loaded here: only a TLS start pays for the X.509 library.
  const { generate } = await import('selfsigned')
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

/** Makes an HTTPS server with the given HTTP options, for `limitedServer`'s `create`. */
export function httpsServerFactory(tls: TlsKeyPair): (options: ServerOptions, app: RequestListener) => Server {
  return (options, app) => createHttpsServer({ ...options, ...tls }, app)
}
