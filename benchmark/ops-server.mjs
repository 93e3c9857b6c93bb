// A server for benchmark/ops.ts, in plain JS so no TypeScript loader runs in
// the measured process. argv: 'plain' (startServer alone) or 'observed'
// (startServer with a pino logger at info and metrics, as the CLI runs it).
// The log lines go to /dev/null through pino's own asynchronous destination:
// the cost measured is making them, not the terminal they would go to.
import { fileURLToPath } from 'node:url'

const mode = process.argv[2]
const { createEngine, startServer } = await import(fileURLToPath(new URL('../dist/esm/lib/index.js', import.meta.url)))
const engine = createEngine()
await engine.addMasterAccount({ user: 'bench', password: 'bench-password' })
await engine
  .as('bench')
  .createSite({ site_data: { site_name: 'benchsite', original_site_url: 'https://www.example.com/' } })
let options = {}
if (mode === 'observed') {
  const { pino } = await import('pino')
  const logger = pino(
    { level: 'info' },
    pino.destination({ dest: '/dev/null', sync: false, minLength: Number(process.env.OPS_MINLEN ?? 0) }),
  )
  // OPS_PART=logs or metrics measures one of the two (for finding where the cost is).
  const part = process.env.OPS_PART
  options = { ...(part !== 'metrics' ? { logger } : {}), ...(part !== 'logs' ? { metrics: true } : {}) }
}
const server = await startServer({ engine, ...options })
let requests = 0
server.server.on('request', () => requests++)
process.send({ port: Number(new URL(server.url).port) })
// CPU time per request: the parent asks around each run.
process.on('message', () => {
  const { user, system } = process.cpuUsage()
  process.send({ cpuMicros: user + system, requests })
})
process.on('disconnect', () => process.exit(0))
