/**
 * The stores the auth attacks run on, and their section of docs/RELIABILITY.md.
 * MemoryStore always (before and after); RedisStore on a redis-server of the
 * run's own; PostgresStore when DATABASE_URL is set (a schema of its own,
 * dropped at the end).
 */
import { randomBytes } from 'node:crypto'
import { dropPgSchema } from '../lib/cleanup.js'
import type { AuthFigures } from './auth.js'
import type { ChildConfig } from './common.js'
import type { OwnRedis } from './redis.js'

interface AuthStore {
  store: string
  config: ChildConfig
  cleanup: () => Promise<void>
}

/** The stores to run the auth attacks on. */
export async function authStores(Redis: typeof OwnRedis): Promise<AuthStore[]> {
  const stores: AuthStore[] = [{ store: 'MemoryStore', config: {}, cleanup: async () => {} }]
  const redis = await Redis.create()
  await redis.start(false)
  stores.push({ store: 'RedisStore', config: { redisUrl: redis.url, prefix: 'auth:' }, cleanup: () => redis.wipe() })
  const databaseUrl = process.env.DATABASE_URL
  if (databaseUrl) {
    const schema = `mobisite_reliability_${randomBytes(6).toString('hex')}`
    stores.push({
      store: 'PostgresStore',
      config: { databaseUrl, schema },
      cleanup: () => dropPgSchema(databaseUrl, schema),
    })
  }
  return stores
}

const row = (label: string, f: AuthFigures): string =>
  `| ${label} | ${f.afterFlood.status === 0 ? 'no answer' : f.afterFlood.status} ${f.afterFlood.status === 0 ? 'within' : 'in'} ${(f.afterFlood.ms / 1000).toFixed(2)} s (connect ${(f.afterFlood.connectMs / 1000).toFixed(2)} s) | ` +
  `${f.baseline.toFixed(0)} → ${f.duringFlood.toFixed(0)} req/s (${(f.duringFlood / f.baseline).toFixed(2)}) | ` +
  `${f.guesses[401] ?? 0} in ${f.guessSeconds} s (${((f.guesses[401] ?? 0) / f.guessSeconds).toFixed(1)}/s) | ` +
  `${Object.entries(f.guesses)
    .map(([s, n]) => `${s} × ${n}`)
    .join(', ')} |`

/** The Markdown section of the auth attacks. */
export function authSection(r: {
  auth: { store: string; before?: AuthFigures; after: AuthFigures }[]
  rebinding: { seed: number; snapshot: number }
  slowRegex: { generalMs: number; refused: string }
  flood: number
  seconds: number
}): string {
  const rows = r.auth.flatMap(({ store, before, after }) => [
    ...(before ? [row(`${store}, before (no gate, no limits)`, before)] : []),
    row(`${store}, after`, after),
  ])
  return `
## Authentication attacks (issue 23)

Each row is a fresh server. "Before" is this build with the password gate and
the failed-login limits switched off (\`maxPasswordChecks\` and its queue
unbounded, \`failedLogins\` 0), which is how main behaved; "after" is the
default. Clients use their own loopback addresses.

1. **Closed-socket flood**: ${r.flood} sockets, each from its own address, send
   \`GET /api/agents\` with a random well-formed Basic credential and close at
   once; then a valid, never-cached login from another address is timed
   (target: answered under 1 s after its TCP connect; the connect is shown apart,
   since a SYN the kernel dropped while the accept queue was full is resent a
   second later, whatever the server does).
2. **Wrong-password flood from one IP**: valid GETs (a cached credential, 4 at a
   time, from another address) per second alone for ${r.seconds / 2} s, then during
   ${r.seconds} s of random wrong passwords from one address, 15 a second as in
   the issue (target: at least 0.8 of the rate alone).
3. **Guesses that get a password check**: the 401 answers of that flood (each
   random password is new, so each 401 ran scrypt; 429 did not), target at most
   10 a minute per IP.

| server | valid login after the flood | valid GETs alone → during the flood | guesses checked | flood answers |
|---|---|---|---|---|
${rows.join('\n')}

**DNS rebinding** (\`startServer({ admin: true })\` without a token, \`Host: x.evil:PORT\`):
POST /__admin/seed answered ${r.rebinding.seed}, GET /__admin/snapshot answered
${r.rebinding.snapshot} (before: the seed added a master and the snapshot
returned every password hash).

**Slow agents regex** \`.*iPhone.*|.*Android.*Mobile.*|(\\d+\\.?)+z\`: the
general mode that accepted it before takes ${r.slowRegex.generalMs.toFixed(0)} ms on a 22-byte
User-Agent of digits (blocking the event loop); now it is refused:
\`${r.slowRegex.refused}\`.
`
}
