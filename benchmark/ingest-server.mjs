// A server for benchmark/ingest.ts, in plain JS so no TypeScript loader runs in
// the measured process. argv: mode ('bare' | 'memory' | 'redis' | 'postgres'),
// the mobisite dist directory (…/dist/cjs/lib: the ES module build is bundled, and collectRoute is
// not exported), optionally maxPendingRecordings. All answer POST /collect/benchsite.
//   bare:  Express answering 204, no cookie, no store;
//   other: the standalone server's collector (collectRoute) on an engine over
//          that store, beaconsPerMinute 0 (autocannon is one client IP).
// On a 'stats' message it answers its CPU, requests and engine.recordingStats().
import http from 'node:http'
import express from 'express'

const [mode, lib, maxPending] = process.argv.slice(2)
const app = express()
app.disable('x-powered-by')
let engine
let cleanup = async () => {}
if (mode === 'bare') {
  app.post('/collect/:site_name', (_req, res) => {
    res.set('Cache-Control', 'no-store').status(204).end()
  })
} else {
  const mobisite = await import(`${lib}/index.js`)
  const { collectRoute } = await import(`${lib}/collector/route.js`)
  let store
  if (mode === 'redis') {
    const { RedisStore } = await import(`${lib}/redis.js`)
    const prefix = `mobisite-bench-ingest:${process.pid}:`
    store = new RedisStore({ url: process.env.REDIS_URL, prefix })
    cleanup = async () => {
      await store.clearState()
    }
  } else if (mode === 'postgres') {
    const { PostgresStore } = await import(`${lib}/postgres.js`)
    const schema = `bench_ingest_${process.pid}`
    store = new PostgresStore({ connectionString: process.env.DATABASE_URL, schema })
    cleanup = async () => {
      await store.clearState()
    }
  }
  engine = mobisite.createEngine(store ? { store } : {})
  await engine.addMasterAccount({ user: 'bench', password: 'bench-password' })
  await engine
    .as('bench')
    .createSite({ site_data: { site_name: 'benchsite', original_site_url: 'https://www.example.com/' } })
  app.use(
    '/collect',
    collectRoute(engine, {
      beaconsPerMinute: 0,
      ...(maxPending === undefined ? {} : { maxPendingRecordings: Number(maxPending) }),
    }),
  )
}
const server = http.createServer(app)
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }))
let requests = 0
server.on('request', () => requests++)
process.on('message', async (m) => {
  if (m === 'close') {
    await engine?.flushRecordings()
    await cleanup().catch(() => {})
    await engine?.close()
    process.send({ closed: true })
    return
  }
  const { user, system } = process.cpuUsage()
  process.send({ cpuMicros: user + system, requests, recording: engine?.recordingStats() })
})
process.on('disconnect', () => process.exit(0))
