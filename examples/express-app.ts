/**
 * An existing Express app that mounts the mobisite API next to its own routes.
 *
 *   npx tsx examples/express-app.ts
 *   curl -u demo:demo-password http://127.0.0.1:3000/api/agents
 */
import express from 'express'
import { apiRouter, createEngine } from 'mobisite'

const engine = createEngine()
await engine.addMasterAccount({ user: 'demo', password: 'demo-password', partner: true })

const app = express()
app.get('/', (_req, res) => {
  res.send('My app. The mobile-site API lives under /api.')
})
app.get('/health', (_req, res) => {
  res.json({ ok: true })
})
// The API is mounted at a prefix; its own 404/405 answers stay inside /api.
app.use('/api', apiRouter(engine))
app.use((_req, res) => {
  res.status(404).send('not one of my pages')
})

const port = Number(process.env.PORT ?? 3000)
const server = app.listen(port, '127.0.0.1', () => {
  console.log(
    `app on http://127.0.0.1:${port}, API on http://127.0.0.1:${port}/api (user demo, password demo-password)`,
  )
})
process.on('SIGINT', () => server.close(() => void engine.close()))
