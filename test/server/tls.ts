/**
 * startServer({ tls }): HTTPS with a given key pair, or with a self-signed
 * certificate made at start whose PEM is `server.ca`; over TLS the SSO link
 * is https:// and the dashboard's session cookie is Secure.
 */
import { Agent, get, request } from 'node:https'
import type { AddressInfo } from 'node:net'
import { X509Certificate } from 'node:crypto'
import t from 'tap'
import { createEngine, startServer, type RunningServer } from '../../lib/index.js'
import { selfSigned } from '../../lib/server/tls.js'
import { ALICE, basic } from '../helpers/testing.js'

/** GET over HTTPS trusting `ca`: status, headers and body text. */
function fetchTls(
  server: RunningServer,
  ca: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const { port } = server.server.address() as AddressInfo
  return new Promise((resolve, reject) => {
    get({ host: 'localhost', port, path, ca, agent: new Agent({ ca }), headers }, (res) => {
      let text = ''
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }))
    }).on('error', reject)
  })
}

t.test(
  'tls: true serves HTTPS with a self-signed certificate for the host and loopback, given as server.ca',
  async (t) => {
    const engine = createEngine()
    await engine.addMasterAccount(ALICE)
    const server = await startServer({ engine, tls: true })
    t.teardown(async () => {
      await server.close()
      await engine.close()
    })
    t.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/)
    t.match(server.ca, /^-----BEGIN CERTIFICATE-----/)
    const cert = new X509Certificate(server.ca!)
    t.match(cert.subjectAltName, /DNS:localhost/)
    t.match(cert.subjectAltName, /IP Address:127\.0\.0\.1/)
    const res = await fetchTls(server, server.ca!, '/api/agents', { authorization: basic(ALICE.user, ALICE.password) })
    t.equal(res.status, 200)
    // Without trusting server.ca, the connection is refused: verification stays on.
    const { port } = server.server.address() as AddressInfo
    const refused = await new Promise<string>((resolve) => {
      const req = request({ host: 'localhost', port, path: '/api/agents' }, () => resolve('answered'))
      req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'))
      req.end()
    })
    t.equal(refused, 'DEPTH_ZERO_SELF_SIGNED_CERT')
  },
)

t.test('tls: { key, cert } serves that certificate; server.ca is absent; a half pair is refused', async (t) => {
  const pair = await selfSigned('localhost')
  const server = await startServer({ tls: pair })
  t.teardown(() => server.close())
  t.equal(server.ca, undefined)
  t.match(server.url, /^https:/)
  t.equal((await fetchTls(server, pair.cert, '/api/nowhere')).status, 404)
  await t.rejects(startServer({ tls: { key: pair.key, cert: '' } }), /tls needs both key and cert/)
})

t.test('over TLS the SSO link is https:// and the session cookie is Secure', async (t) => {
  const engine = createEngine()
  await engine.addMasterAccount(ALICE)
  const server = await startServer({ engine, tls: true, host: 'localhost' })
  t.teardown(async () => {
    await server.close()
    await engine.close()
  })
  const alice = engine.as(ALICE.user)
  await alice.createAccount({ account_name: 'acc' })
  const link = await fetchTls(server, server.ca!, '/api/accounts/sso/acc/link', {
    authorization: basic(ALICE.user, ALICE.password),
  })
  t.equal(link.status, 200)
  const { url } = JSON.parse(link.text) as { url: string }
  t.match(url, /^https:\/\/localhost:\d+\/dashboard\/sso\?token=/)
  const landing = await fetchTls(server, server.ca!, new URL(url).pathname + new URL(url).search)
  t.equal(landing.status, 303)
  t.match(String(landing.headers['set-cookie']), /mobisite_session=.*; Secure/)
})
