// A server for benchmark/postgres.ts, in plain JS so no loader runs in the measured process.
// argv: store ('memory' | 'postgres'), then for postgres the connection string and the schema.
import { createEngine, startServer } from '../dist/esm/lib/index.js'

const [kind, url, schema] = process.argv.slice(2)
let store
if (kind === 'postgres') {
  const { PostgresStore } = await import('../dist/esm/lib/postgres.js')
  store = new PostgresStore({ connectionString: url, schema })
}
const engine = createEngine(store ? { store } : {})
await engine.addMasterAccount({ user: 'bench', password: 'bench-password' })
await engine
  .as('bench')
  .createSite({ site_data: { site_name: 'benchsite', original_site_url: 'https://www.example.com/' } })
const server = await startServer({ engine, port: 0 })
process.send({ port: new URL(server.url).port })
process.on('disconnect', async () => {
  await server.close()
  await engine.close()
  process.exit(0)
})
