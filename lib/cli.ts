#!/usr/bin/env node
/**
 * `npm start`: serves the API on PORT (default 3000) under /api, on a
 * MemoryStore, or on the store `--store <url>` / MOBISITE_STORE / REDIS_URL /
 * DATABASE_URL names (lib/cli-store.ts). Creates one partner
 * master account from MOBISITE_USER / MOBISITE_PASSWORD, or generates one,
 * and prints it with a ready-to-run curl line and how to get a sub-account's
 * SSO link. `--demo` (or MOBISITE_DEMO=1) also seeds a sub-account with a
 * granted site and 30 days of visits, and prints a ready sign-in link.
 *
 * `--admin` (or MOBISITE_ADMIN=1) mounts the test-double controls at
 * /__admin, with MOBISITE_ADMIN_TOKEN as their bearer token if set;
 * `--seed fixtures.json` seeds the state before serving.
 */
import { randomBytes } from 'node:crypto'
import { chooseStore, openPostgres, openRedis } from './cli-store.js'
import { DEMO_ACCOUNT, seedDemo } from './demo.js'
import { readFile } from 'node:fs/promises'
import { createEngine } from './engine/index.js'
import type { Store } from './store/contract.js'

/** Quotes a value for a POSIX shell. */
const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`

async function storeFromEnv(): Promise<{ store?: Store; label: string }> {
  const choice = chooseStore(process.argv.slice(2), process.env)
  if (choice.kind === 'postgres') return openPostgres(choice.url, process.env)
  if (choice.kind === 'redis') return openRedis(choice.url, process.env)
  return { label: 'memory store: state lives in this process' }
}

/** `--admin` and `--seed <file>` (or `--seed=<file>`); other arguments (`--store`, `--demo`) are read elsewhere. */
function parseArgs(argv: string[]): { admin: boolean; seed?: string } {
  const out: { admin: boolean; seed?: string } = { admin: false }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--admin') out.admin = true
    else if (arg === '--seed' && argv[i + 1] !== undefined) out.seed = argv[++i]!
    else if (arg.startsWith('--seed=')) out.seed = arg.slice('--seed='.length)
  }
  return out
}

async function main(): Promise<void> {
  // Express and the routers load while the master password's scrypt hash runs
  // on the thread pool, instead of before it (their import is most of start-up).
  const serverModule = import('./server.js')
  // Awaited below; this only keeps an earlier failure from leaving it unhandled.
  serverModule.catch(() => undefined)
  const args = parseArgs(process.argv.slice(2))
  const admin = args.admin || process.env.MOBISITE_ADMIN === '1' || process.env.MOBISITE_ADMIN === 'true'
  const adminToken = process.env.MOBISITE_ADMIN_TOKEN || undefined
  if (args.seed !== undefined && !admin) throw new Error('--seed needs --admin (or MOBISITE_ADMIN=1)')
  const port = Number(process.env.PORT ?? 3000)
  const host = process.env.HOST ?? '127.0.0.1'
  const user = process.env.MOBISITE_USER || 'admin'
  const password = process.env.MOBISITE_PASSWORD || randomBytes(12).toString('hex')
  const { store, label } = await storeFromEnv()
  const engine = createEngine(store ? { store } : {})
  // On a shared store a second instance must not replace the account (and the
  // password) the first one printed; a given MOBISITE_PASSWORD always applies.
  const shared = store !== undefined && !process.env.MOBISITE_PASSWORD && (await engine.hasMasterAccount(user))
  // Listening only once the account exists: the printed credentials work from the first request.
  const [{ startServer }] = await Promise.all([
    serverModule,
    shared ? undefined : engine.addMasterAccount({ user, password, partner: true }),
  ])
  const server = await startServer({ engine, port, host, admin, ...(adminToken ? { adminToken } : {}) })
  if (args.seed !== undefined) {
    const fixtures = JSON.parse(await readFile(args.seed, 'utf8')) as unknown
    await server.controls.seed(fixtures)
  }
  const api = `${server.url}/api`
  const body = JSON.stringify({ site_data: { original_site_url: 'https://www.example.com' } })
  console.log(`mobisite API: ${api} (${label})`)
  console.log(`user:     ${user}`)
  if (shared) {
    console.log(
      'password: unchanged: this account already exists in the shared store (set MOBISITE_PASSWORD to choose one)',
    )
  } else {
    console.log(`password: ${password}${process.env.MOBISITE_PASSWORD ? ' (from MOBISITE_PASSWORD)' : ' (generated)'}`)
  }
  const credentials = shared ? `${user}:PASSWORD` : `${user}:${password}`
  console.log(
    `try:      curl -u ${shellQuote(credentials)} -H 'content-type: application/json' -d ${shellQuote(body)} ${api}/sites/create`,
  )
  const ssoCurl = `curl -u ${shellQuote(credentials)} ${api}/accounts/sso/${DEMO_ACCOUNT}/link`
  if (process.argv.includes('--demo') || process.env.MOBISITE_DEMO === '1') {
    const demo = await seedDemo(engine, user)
    const { url } = await engine.as(user).ssoLink(demo.account_name, {}, `${server.url}/dashboard`)
    console.log(
      `demo:     sub-account ${demo.account_name} with site ${demo.site_name} (granted) and 30 days of visits`,
    )
    console.log(`open:     ${url}`)
    console.log(`          (single use, valid 2 minutes; a fresh one: ${ssoCurl})`)
  } else {
    const account = JSON.stringify({ account_name: DEMO_ACCOUNT })
    console.log(
      `sso:      curl -u ${shellQuote(credentials)} -H 'content-type: application/json' -d ${shellQuote(account)} ${api}/accounts/create && ${ssoCurl}`,
    )
    console.log(
      `          opens a sub-account's dashboard at ${server.url}/dashboard (or start with --demo for one filled with 30 days of visits)`,
    )
  }
  if (admin) {
    console.log(
      `admin:    ${server.url}/__admin${adminToken ? ' (bearer token from MOBISITE_ADMIN_TOKEN)' : ''}${args.seed ? `, seeded from ${args.seed}` : ''}`,
    )
  }

  let stopping = false
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return
    stopping = true
    console.log(`mobisite: ${signal} received, shutting down`)
    await server.close()
    await engine.close()
    process.exit(0)
  }
  process.on('SIGINT', () => void stop('SIGINT'))
  process.on('SIGTERM', () => void stop('SIGTERM'))
}

main().catch((error: unknown) => {
  console.error('mobisite: could not start:', error instanceof Error ? error.message : error)
  process.exit(1)
})
