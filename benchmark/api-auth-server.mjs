// A server for benchmark/api-auth.ts, in plain JS so no loader runs in the measured process.
// argv: mode ('bare' | 'api'), the mobisite entry to import (a dist/esm/lib/index.js).
import express from 'express'

const [mode, entry] = process.argv.slice(2)
const app = express()
app.disable('x-powered-by')
if (mode === 'bare') {
  // The same JSON a site read answers, with no authentication and no engine.
  const site = {
    site_name: 'benchsite',
    original_site_url: 'https://www.example.com/',
    auto_sync_cache_ttl: 'SHORT',
    creation_date: '2026-01-01T00:00:00',
  }
  app.get('/api/sites/:site_name', (_req, res) => {
    res.json(site)
  })
} else {
  const { createEngine, apiRouter } = await import(entry)
  const engine = createEngine()
  await engine.addMasterAccount({ user: 'bench', password: 'bench-password' })
  await engine
    .as('bench')
    .createSite({ site_data: { site_name: 'benchsite', original_site_url: 'https://www.example.com/' } })
  app.use('/api', apiRouter(engine))
}
const server = app.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }))
process.on('disconnect', () => process.exit(0))
