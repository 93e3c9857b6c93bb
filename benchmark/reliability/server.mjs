// The server process of `npm run reliability`: startServer from this
// worktree's build, on a MemoryStore or a RedisStore, with the reliability
// masters. Plain JS, so no loader runs in the measured process.
// argv[2]: JSON { redisUrl?, prefix?, databaseUrl?, schema?, legacyAuth?, admin?, metrics? }. Messages: 'memory' →
// memory figures after a full GC. legacyAuth: no password gate and no failed-login limits (main before issue 23).
import { createEngine, startServer } from '../../dist/esm/lib/index.js'

const config = JSON.parse(process.argv[2] ?? '{}')
let store
if (config.redisUrl) {
  const { RedisStore } = await import('../../dist/esm/lib/redis.js')
  store = new RedisStore({ url: config.redisUrl, prefix: config.prefix })
} else if (config.databaseUrl) {
  const { PostgresStore } = await import('../../dist/esm/lib/postgres.js')
  store = new PostgresStore({ connectionString: config.databaseUrl, schema: config.schema })
}
const legacy = config.legacyAuth
  ? { maxPasswordChecks: 1e9, maxQueuedPasswordChecks: 1e9, failedLogins: { perIp: 0, perUserAndIp: 0 } }
  : {}
const engine = createEngine({ ...(store ? { store } : {}), ...legacy })
const masters = { alice: 'alice-secret', bob: 'b:o:b:secret', carol: 'carol-secret' }
for (const [user, password] of Object.entries(masters))
  await engine.addMasterAccount({ user, password, partner: user !== 'carol' })
const server = await startServer({ engine, admin: config.admin === true, metrics: config.metrics === true })
let errors = 0
process.on('message', (message) => {
  if (message === 'memory') {
    globalThis.gc?.()
    const { rss, heapUsed } = process.memoryUsage()
    process.send({ rss, heapUsed, errors })
  }
})
process.on('unhandledRejection', () => errors++)
process.on('disconnect', () => process.exit(0))
process.send({ url: server.url })
