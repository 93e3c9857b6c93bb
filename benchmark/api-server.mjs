// A server for benchmark/api.ts, in plain JS so no TypeScript loader runs in
// the measured process. argv: mode ('raw' | 'bare' | 'api'), then for 'api'
// the mobisite entry to import (a dist/esm/lib/index.js) and the store
// ('memory', or a Redis URL and key prefix).
// Every variant answers the same three requests with the same JSON:
//   GET /api/sites/benchsite, POST /api/sites/create, DELETE /api/sites/:name
import http from 'node:http'
import express from 'express'
import { serveParent } from './lib/child-server.mjs'

const [mode, entry, storeKind, prefix] = process.argv.slice(2)
const SITE = {
  site_name: 'benchsite',
  original_site_url: 'https://www.example.com/',
  auto_sync_cache_ttl: 'SHORT',
  creation_date: '2026-01-01T00:00:00',
}
const SITE_JSON = JSON.stringify(SITE)

let server
if (mode === 'raw') {
  // node:http alone: the floor under any framework.
  server = http.createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(SITE_JSON),
      })
      res.end(SITE_JSON)
    } else if (req.method === 'POST') {
      let body = ''
      req.setEncoding('utf8')
      req.on('data', (c) => (body += c))
      req.on('end', () => {
        const json = JSON.stringify({ site_name: JSON.parse(body).site_data.site_name })
        res.writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(json),
        })
        res.end(json)
      })
    } else {
      res.statusCode = 204
      res.end()
    }
  })
} else {
  const app = express()
  app.disable('x-powered-by')
  if (mode === 'bare') {
    // Express as an app would write these endpoints, with no authentication, validation or store.
    app.get('/api/sites/:site_name', (_req, res) => {
      res.json(SITE)
    })
    app.post('/api/sites/create', express.json(), (req, res) => {
      res.json({ site_name: req.body.site_data.site_name })
    })
    app.delete('/api/sites/:site_name', (_req, res) => {
      res.status(204).end()
    })
  } else {
    const mobisite = await import(entry)
    let store
    if (storeKind !== 'memory') {
      // RedisStore is at mobisite/redis (dist/esm/lib/redis.js); older builds exported it from the root.
      const RedisStore =
        mobisite.RedisStore ?? (await import(new URL('./redis.js', new URL(entry, 'file:///')).href)).RedisStore
      store = new RedisStore({ url: storeKind, prefix })
    }
    const engine = mobisite.createEngine(store ? { store } : {})
    await engine.addMasterAccount({ user: 'bench', password: 'bench-password' })
    await engine
      .as('bench')
      .createSite({ site_data: { site_name: 'benchsite', original_site_url: 'https://www.example.com/' } })
    app.use('/api', mobisite.apiRouter(engine))
  }
  server = http.createServer(app)
}
serveParent(server)
