/**
 * What a suite needs to drive the unmodified `@dudadev/partner-api` client at
 * mobisite: the client speaks only HTTPS on port 443 and trusts only the
 * system's certificate authorities, so
 *
 * - {@link trustedProcess} makes a self-signed certificate for 127.0.0.1 and
 *   runs the test file again in a child process whose NODE_EXTRA_CA_CERTS
 *   names it (Node reads it only at start), and
 * - {@link startDudaServer} runs `startServer({ tls: { cert, key }, port: 443 })`
 *   with that certificate, checking every answer under `/api` against the
 *   OpenAPI document.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generate } from 'selfsigned'
import { type Engine, type RunningServer, startServer } from '../../../lib/index.js'
import { recordExchanges } from './client.js'
import { problemsAgainstDocument } from '../openapi-check.js'

/** The host the client is pointed at (`new Duda({ env: DUDA_HOST })`): the certificate names it. */
export const DUDA_HOST = '127.0.0.1'

const CERT = 'MOBISITE_DUDA_TEST_CERT'
const KEY = 'MOBISITE_DUDA_TEST_KEY'

/** The certificate and key of the server, in the child that trusts them. */
export interface TestTls {
  cert: string
  key: string
}

/**
 * In the child process: the certificate it trusts. In the parent: makes the
 * certificate, runs this test file again with NODE_EXTRA_CA_CERTS naming it,
 * and exits with the child's status (so it never returns).
 */
export async function trustedProcess(): Promise<TestTls> {
  const cert = process.env[CERT]
  const key = process.env[KEY]
  if (cert && key && process.env.NODE_EXTRA_CA_CERTS) return { cert, key }
  const pems = await generate([{ name: 'commonName', value: DUDA_HOST }], {
    keyType: 'ec',
    curve: 'P-256',
    notAfterDate: new Date(Date.now() + 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: DUDA_HOST }] },
    ],
  })
  const dir = mkdtempSync(join(tmpdir(), 'mobisite-duda-ca-'))
  const caFile = join(dir, 'ca.pem')
  writeFileSync(caFile, pems.cert)
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile, [CERT]: pems.cert, [KEY]: pems.private },
  })
  const code = await new Promise<number>((resolve) =>
    child.on('exit', (status, signal) => resolve(status ?? (signal ? 1 : 0))),
  )
  rmSync(dir, { recursive: true, force: true })
  process.exit(code)
}

/** A running HTTPS server for the client. */
export interface DudaServer {
  /** `https://127.0.0.1` (port 443). */
  origin: string
  /** Every way an answer under `/api` differed from the OpenAPI document, so far. */
  problems: string[]
  /** How many answers under `/api` were checked. */
  checked(): number
  close(): Promise<void>
}

/** This process may not listen on port 443 (not root, no CAP_NET_BIND_SERVICE). */
export class PortRefused extends Error {
  constructor() {
    super(
      'port 443 is refused to this process: run as root, grant node CAP_NET_BIND_SERVICE, or lower net.ipv4.ip_unprivileged_port_start',
    )
    this.name = 'PortRefused'
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Serves `engine` with `startServer({ tls, port: 443 })`, the way a user runs
 * the double for the client, checking every answer under `/api` against the
 * OpenAPI document. Port 443 is one per machine and other suites may hold it
 * for a moment: EADDRINUSE is retried with backoff for up to about a minute.
 */
export async function startDudaServer(engine: Engine, tls: TestTls): Promise<DudaServer> {
  let running: RunningServer | undefined
  for (let attempt = 0; running === undefined; attempt++) {
    try {
      running = await startServer({ engine, tls: { cert: tls.cert, key: tls.key }, port: 443, host: DUDA_HOST })
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'EACCES') throw new PortRefused()
      if (code !== 'EADDRINUSE' || attempt >= 40) throw error
      await sleep(Math.min(2000, 100 * 2 ** attempt) + Math.random() * 100)
    }
  }
  const exchanges = recordExchanges(running)
  const server = running
  return {
    origin: `https://${DUDA_HOST}`,
    get problems() {
      return exchanges.flatMap((exchange) =>
        problemsAgainstDocument({
          ...exchange,
          headers: Object.fromEntries(
            Object.entries(exchange.headers).map(([name, value]) => [
              name,
              Array.isArray(value) ? value.join(', ') : String(value),
            ]),
          ),
        }),
      )
    },
    checked: () => exchanges.length,
    close: () => server.close(),
  }
}
