/**
 * Link origins (DESIGN "Abuse resistance", issue 23): an SSO link never
 * takes its origin from an unchecked Host. An absolute dashboardUrl wins,
 * then startServer({ publicUrl }), then the server's own listening origin;
 * an embedding app without either gets the request's origin only for a host
 * in allowedHosts (default: loopback), else InvalidInput. Over real HTTP with
 * a forged Host.
 */
import type { AddressInfo } from 'node:net'
import express from 'express'
import request from 'supertest'
import t, { type Test } from 'tap'
import { apiRouter, createEngine, startServer, type ApiRouterOptions, type Engine } from '../../lib/index.js'

async function engineWithAccount(t: Test): Promise<Engine> {
  const engine = createEngine()
  t.teardown(() => engine.close())
  await engine.addMasterAccount({ user: 'alice', password: 'alice-pw', partner: true })
  await engine.as('alice').createAccount({ account_name: 'acc' })
  return engine
}

const link = (base: string, host?: string) => {
  const req = request(base).get('/api/accounts/sso/acc/link').auth('alice', 'alice-pw')
  return host === undefined ? req : req.set('Host', host)
}

const origin = (res: request.Response): string => new URL(String(res.body.url)).origin

t.test('startServer: the link never follows a forged Host', async (t) => {
  const engine = await engineWithAccount(t)
  const own = await startServer({ engine })
  t.teardown(() => own.close())
  const res = await link(own.url, 'evil.example')
  t.equal(res.status, 200)
  t.equal(origin(res), own.url, 'the server listening origin')

  const pub = await startServer({ engine, publicUrl: 'https://sites.example.com/' })
  t.teardown(() => pub.close())
  const viaPublic = await link(pub.url, 'evil.example')
  t.equal(String(viaPublic.body.url).split('?')[0], 'https://sites.example.com/dashboard/sso', 'publicUrl')

  const abs = await startServer({
    engine,
    publicUrl: 'https://sites.example.com',
    router: { dashboardUrl: 'https://dash.example.com/d' },
  })
  t.teardown(() => abs.close())
  const viaAbsolute = await link(abs.url, 'evil.example')
  t.equal(String(viaAbsolute.body.url).split('?')[0], 'https://dash.example.com/d/sso', 'an absolute dashboardUrl wins')
  await t.rejects(startServer({ engine, publicUrl: 'sites.example.com' }), TypeError)
})

t.test('an embedding app: the request origin only for allowed hosts', async (t) => {
  const engine = await engineWithAccount(t)
  const serve = async (options: ApiRouterOptions) => {
    const app = express()
    app.use('/api', apiRouter(engine, options))
    const server = app.listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    t.teardown(() => new Promise((resolve) => server.close(resolve)))
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  }
  const base = await serve({})
  const { port } = new URL(base)
  t.equal(origin(await link(base)), base, 'a loopback Host is allowed by default')
  t.equal(origin(await link(base, `localhost:${port}`)), `http://localhost:${port}`)
  const forged = await link(base, 'evil.example')
  t.equal(forged.status, 400, 'a forged Host is refused')
  t.match(forged.body, { error_code: 'InvalidInput', message: /publicUrl|allowedHosts/ })
  t.notMatch(JSON.stringify(forged.body), /token=/, 'and no link is handed out')

  const listed = await serve({ allowedHosts: ['api.example.com'] })
  t.equal(origin(await link(listed, 'api.example.com')), 'http://api.example.com')
  t.equal((await link(listed, 'evil.example')).status, 400)
  t.equal((await link(listed)).status, 400, 'a list replaces the loopback default')
  const fixed = await serve({ publicUrl: 'https://api.example.com' })
  t.equal(origin(await link(fixed, 'evil.example')), 'https://api.example.com', 'publicUrl in apiRouter')
  t.throws(() => apiRouter(engine, { publicUrl: '/relative' }), TypeError)
})
