/**
 * dudaClientOptions (mobisite/testing): Duda's own client, unmodified,
 * reaches a `startServer({ tls: true, port: 0 })` with nothing but what it
 * answers (`env` for the constructor, `{ agent }` for each call), with
 * certificate verification left on; what it derives from the server's URL;
 * and the TypeErrors for a server it cannot make the client reach.
 */
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { Duda } from '@dudadev/partner-api'
import { createEngine, startServer, type RunningServer, type ServerOptions } from '../../lib/index.js'
import { selfSigned } from '../../lib/server/tls.js'
import { dudaClientOptions } from '../../lib/testing/index.js'
import { clientError } from '../helpers/duda/client.js'
import { ALICE } from '../helpers/testing.js'

/** A started TLS server with alice as its master, closed at the end of `t`. */
async function tlsServer(t: Test, tls: Pick<ServerOptions, 'tls'> = { tls: true }): Promise<RunningServer> {
  const engine = createEngine()
  await engine.addMasterAccount(ALICE)
  const server = await startServer({ engine, port: 0, ...tls })
  t.teardown(async () => {
    await server.close()
    await engine.close()
  })
  return server
}

const aliceOn = (env: string): Duda => new Duda({ user: ALICE.user, pass: ALICE.password, env })

t.test('the client creates, updates, publishes, lists, reads and deletes a site on a free port', async (t) => {
  const server = await tlsServer(t)
  const { env, agent, port } = dudaClientOptions(server)
  t.teardown(() => agent.destroy())
  t.equal(env, '127.0.0.1', "the server's host")
  t.equal(port, (server.server.address() as AddressInfo).port, "the server's port")
  t.not(port, 443)
  const duda = aliceOn(env)
  const made = await duda.sites.create({ template_alias: 'blank', default_domain_prefix: 'shop1' }, { agent })
  t.same(made, { site_name: 'shop1' })
  await duda.sites.update({ site_name: 'shop1', site_domain: 'shop1.example.com' }, { agent })
  await duda.sites.publish({ site_name: 'shop1' }, { agent })
  t.match(await duda.sites.get({ site_name: 'shop1' }, { agent }), {
    site_name: 'shop1',
    account_name: ALICE.user,
    site_domain: 'shop1.example.com',
    publish_status: 'PUBLISHED',
  })
  t.match(await duda.sites.list({}, { agent }), { total_responses: 1, results: [{ site_name: 'shop1' }] })
  t.equal((await server.engine.as(ALICE.user).getSite('shop1')).site_name, 'shop1', 'the same site in process')
  await duda.sites.delete({ site_name: 'shop1' }, { agent })
  t.match(await clientError(duda.sites.get({ site_name: 'shop1' }, { agent })), {
    status: 400,
    error: { error_code: 'ResourceNotExist' },
  })
  // The client JSON-stringifies each request, agent included: the calls above went through it.
  t.equal(JSON.stringify({ agent }), JSON.stringify({ agent: `[https.Agent for ${server.url}]` }))
})

t.test("the agent trusts only the server's certificate: verification stays on", async (t) => {
  const server = await tlsServer(t)
  const other = await selfSigned('127.0.0.1')
  const { env, agent } = dudaClientOptions({ url: server.url, ca: other.cert })
  t.teardown(() => agent.destroy())
  // The client prints its failed requests to the console.
  t.capture(console, 'log')
  await t.rejects(aliceOn(env).sites.list({}, { agent }), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' })
})

t.test('a server with its own key pair: refused without a CA, reached with agentOptions.ca', async (t) => {
  const pair = await selfSigned('127.0.0.1')
  const server = await tlsServer(t, { tls: { key: pair.key, cert: pair.cert } })
  t.equal(server.ca, undefined)
  t.throws(() => dudaClientOptions(server), TypeError, 'no CA to trust')
  t.throws(() => dudaClientOptions(server), /dudaClientOptions\(server, \{ ca \}\)/, 'the message says what to pass')
  const { env, agent } = dudaClientOptions(server, { ca: pair.cert })
  t.teardown(() => agent.destroy())
  t.match(await aliceOn(env).sites.list({}, { agent }), { total_responses: 0 })
})

t.test('a plain HTTP server is refused with a TypeError saying how to start one the client reaches', async (t) => {
  const server = await tlsServer(t, { tls: false })
  t.throws(() => dudaClientOptions(server), TypeError)
  t.throws(() => dudaClientOptions(server), /serves plain HTTP.*startServer\(\{ tls: true \}\)/)
  t.throws(() => dudaClientOptions(undefined as never), /expected a started server/)
  t.throws(() => dudaClientOptions({} as never), TypeError)
})

t.test('env and port come from the URL: wildcards become localhost, the default port 443', async (t) => {
  const of = (url: string) => {
    const { env, agent, port } = dudaClientOptions({ url, ca: 'pem' })
    agent.destroy()
    return { env, port, defaultPort: (agent as unknown as { defaultPort: number }).defaultPort }
  }
  t.same(of('https://0.0.0.0:8443'), { env: 'localhost', port: 8443, defaultPort: 8443 })
  t.same(of('https://[::]:8443'), { env: 'localhost', port: 8443, defaultPort: 8443 })
  t.same(of('https://[::1]:9443'), { env: '::1', port: 9443, defaultPort: 9443 })
  t.same(of('https://localhost'), { env: 'localhost', port: 443, defaultPort: 443 })
  t.same(of('https://api.test:444'), { env: 'api.test', port: 444, defaultPort: 444 })
})
