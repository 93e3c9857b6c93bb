// ESM consumer of the packed mobisite (run by test/packaging/package.ts in a temporary project).
import { once } from 'node:events'
import { createRequire } from 'node:module'
import express from 'express'
import { ServiceError, apiRouter, createEngine, startServer } from 'mobisite'
import { createMobileRedirect } from 'mobisite/edge'
import * as testing from 'mobisite/testing'

const require = createRequire(import.meta.url)
const cjs = require('mobisite')

const engine = createEngine()
await engine.addMasterAccount({ user: 'u', password: 'p' })
const app = express()
app.use('/api', apiRouter(engine))
const server = app.listen(0, '127.0.0.1')
await once(server, 'listening')
const base = `http://127.0.0.1:${server.address().port}/api`
const headers = { authorization: `Basic ${Buffer.from('u:p').toString('base64')}`, 'content-type': 'application/json' }
const created = await fetch(`${base}/sites/create`, {
  method: 'POST',
  headers,
  body: JSON.stringify({ site_data: { original_site_url: 'https://www.consumer.example/' } }),
}).then((res) => res.json())
const missing = await fetch(`${base}/no/such/path`, { headers })
const notFound = { status: missing.status, error_code: (await missing.json()).error_code }
server.close()

/** Whether importing the subpath fails for want of the driver (and only for that). */
async function needs(subpath, driver) {
  try {
    await import(subpath)
    return false
  } catch (error) {
    return new RegExp(`'${driver}'`).test(String(error?.message))
  }
}
const redisNeedsIoredis = await needs('mobisite/redis', 'ioredis')
const postgresNeedsPg = await needs('mobisite/postgres', 'pg')

// Resolved as well as imported: the entry exists even though pg (blocked here) cannot load.
const postgresEntry = import.meta.resolve('mobisite/postgres').endsWith('/dist/esm/lib/postgres.js')

const esmError = await engine
  .as('u')
  .getSite('nosuch')
  .catch((error) => error)
const cjsEngine = cjs.createEngine()
await cjsEngine.addMasterAccount({ user: 'u', password: 'p' })
const cjsError = await cjsEngine
  .as('u')
  .getSite('nosuch')
  .catch((error) => error)
await engine.close()
await cjsEngine.close()

// mobisite/edge with web Request and Response only, as a Worker would use it.
const iPhone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1'
const edgeAnswer = await createMobileRedirect({ mobileUrl: 'https://m.example.com' }).handle(
  new Request('https://www.example.com/shop?id=7', { headers: { 'user-agent': iPhone } }),
  () => new Response('desktop'),
)
const edge = { status: edgeAnswer.status, location: edgeAnswer.headers.get('location') }

// selfsigned is an optional peer: not installed here, so tls: true says what to install.
const selfSigned = await startServer({ tls: true, port: 0 }).then(
  (started) => started.close().then(() => 'started without selfsigned'),
  (error) => String(error.message).split(': npm install')[0],
)

console.log(
  JSON.stringify({
    created,
    notFound,
    testingExports: Object.keys(testing)
      .filter((name) => name.endsWith('Conformance'))
      .sort(),
    redisNeedsIoredis,
    postgresEntry,
    postgresNeedsPg,
    twoCopiesOfTheClass: ServiceError !== cjs.ServiceError,
    esmErrorIsEsmServiceError: esmError instanceof ServiceError,
    cjsErrorIsEsmServiceError: cjsError instanceof ServiceError,
    esmErrorIsCjsServiceError: esmError instanceof cjs.ServiceError,
    plainErrorIsNot: new Error('x') instanceof ServiceError,
    edge,
    selfSigned,
  }),
)
