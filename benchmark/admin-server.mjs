// A server for benchmark/admin.ts, in plain JS so no TypeScript loader runs in
// the measured process. argv: mode ('bare' | 'off' | 'on'), the mobisite
// dist directory (…/dist/esm/lib). All three answer GET /api/sites/benchsite.
//   bare: Express answering the same JSON, no authentication or store;
//   off:  apiRouter as startServer mounts it without admin;
//   on:   apiRouter with the test-double journal and fault hooks (admin mode).
import http from 'node:http'
import express from 'express'
import { serveParent } from './lib/child-server.mjs'

const [mode, lib] = process.argv.slice(2)
const SITE = { site_name: 'benchsite', original_site_url: 'https://www.example.com/', auto_sync_cache_ttl: 'SHORT' }
const app = express()
app.disable('x-powered-by')
if (mode === 'bare') {
  app.get('/api/sites/:site_name', (_req, res) => {
    res.json(SITE)
  })
} else {
  const mobisite = await import(`${lib}/index.js`)
  const testing = await import(`${lib}/testing/index.js`)
  const engine = mobisite.createEngine()
  await engine.addMasterAccount({ user: 'bench', password: 'bench-password' })
  await engine
    .as('bench')
    .createSite({ site_data: { site_name: 'benchsite', original_site_url: 'https://www.example.com/' } })
  if (mode === 'on') {
    const controls = testing.createControls(engine)
    // A fault that never matches this call: the check runs in full on every request.
    controls.addFault({ method: 'DELETE', route: '/sites/{site_name}', site_name: 'other', latency_ms: 1 })
    app.use('/api', mobisite.apiRouter(engine, { hooks: controls.apiHooks }))
    app.use('/__admin', testing.adminRouter(controls))
  } else {
    app.use('/api', mobisite.apiRouter(engine))
  }
}
serveParent(http.createServer(app))
