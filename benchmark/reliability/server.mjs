// The server process of `npm run reliability`: startServer from this
// worktree's build, on a MemoryStore or a RedisStore, with the reliability
// masters. Plain JS, so no loader runs in the measured process.
// argv[2]: JSON { redisUrl?, prefix? }. Messages: 'memory' → memory figures after a full GC.
import { createEngine, startServer } from '../../dist/esm/lib/index.js'

const config = JSON.parse(process.argv[2] ?? '{}')
let store
if (config.redisUrl) {
  const { RedisStore } = await import('../../dist/esm/lib/store/redis/store.js')
  store = new RedisStore({ url: config.redisUrl, prefix: config.prefix })
}
const engine = createEngine(store ? { store } : {})
const masters = { alice: 'alice-secret', bob: 'b:o:b:secret', carol: 'carol-secret' }
for (const [user, password] of Object.entries(masters))
  await engine.addMasterAccount({ user, password, partner: user !== 'carol' })
const server = await startServer({ engine })
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
