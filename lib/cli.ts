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
 * `--seed fixtures.json` seeds the state before serving (a first run only
 * when a state file exists). `--state FILE` keeps the memory store's state
 * between runs (`--state-interval N` seconds between write-backs),
 * `--rate-limit N` answers 429 past N calls per second per master account,
 * and `--webhook URL` (repeatable) sends every site event to that URL.
 */
import { randomBytes } from 'node:crypto'
import { chooseStore, openPostgres, openRedis } from './cli-store.js'
import { DEMO_ACCOUNT, seedDemo } from './demo.js'
import { existsSync } from 'node:fs'
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

/** What the flags below set; other arguments (`--store`, `--demo`) are read elsewhere. */
interface Args {
  admin: boolean
  seed?: string
  /** `--state FILE` (MOBISITE_STATE): keep the memory store's state in this file between runs. */
  state?: string
  /** `--state-interval N` (MOBISITE_STATE_INTERVAL): seconds between write-backs, default 5. */
  stateInterval?: string
  /** `--rate-limit N` (MOBISITE_RATE_LIMIT): Duda's rate limit, N calls per second per master account. */
  rateLimit?: string
  /** `--webhook URL`, repeatable: sends every site event there from the start. */
  webhooks: string[]
}

/** The flags that take a value, as `--flag value` or `--flag=value`. */
const VALUE_FLAGS = {
  '--seed': 'seed',
  '--state': 'state',
  '--state-interval': 'stateInterval',
  '--rate-limit': 'rateLimit',
} as const

/** `--admin`, `--webhook URL` and the flags of {@link VALUE_FLAGS}. */
function parseArgs(argv: string[]): Args {
  const out: Args = { admin: false, webhooks: [] }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined]
    if (flag === '--admin') out.admin = true
    else if (flag in VALUE_FLAGS || flag === '--webhook') {
      const value = inline ?? argv[++i]
      if (value === undefined) throw new Error(`${flag} needs a value`)
      if (flag === '--webhook') out.webhooks.push(value)
      else out[VALUE_FLAGS[flag as keyof typeof VALUE_FLAGS]] = value
    }
  }
  return out
}

/** A whole number from the command line or the environment, or undefined when not given. */
function numberArg(
  name: string,
  value: string | undefined,
  test: (n: number) => boolean,
  what: string,
): number | undefined {
  if (value === undefined || value === '') return undefined
  const n = Number(value)
  if (!/^\d+(\.\d+)?$/.test(value) || !test(n))
    throw new Error(`${name} must be ${what} (got ${JSON.stringify(value)})`)
  return n
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
  const stateFile = args.state ?? (process.env.MOBISITE_STATE || undefined)
  const stateInterval = numberArg(
    '--state-interval',
    args.stateInterval ?? process.env.MOBISITE_STATE_INTERVAL,
    (n) => n > 0 && n <= 86_400,
    'a number of seconds above 0',
  )
  const perSecond = numberArg(
    '--rate-limit',
    args.rateLimit ?? process.env.MOBISITE_RATE_LIMIT,
    (n) => Number.isInteger(n) && n >= 1 && n <= 10_000,
    'a whole number of calls per second from 1 to 10000',
  )
  // Fixtures seed a first run only: once a state file exists, it holds them already.
  const stateLoaded = stateFile !== undefined && existsSync(stateFile)
  const server = await startServer({
    engine,
    port,
    host,
    admin,
    ...(adminToken ? { adminToken } : {}),
    ...(stateFile === undefined ? {} : { stateFile }),
    ...(stateInterval === undefined ? {} : { stateInterval }),
    ...(perSecond === undefined ? {} : { rateLimit: { perSecond } }),
    ...(args.webhooks.length > 0 ? { webhooks: args.webhooks.map((url) => ({ url })) } : {}),
  })
  if (args.seed !== undefined && !stateLoaded) {
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
    const seeded =
      args.seed === undefined
        ? ''
        : stateLoaded
          ? `, not seeded from ${args.seed}: the state file holds the state`
          : `, seeded from ${args.seed}`
    console.log(
      `admin:    ${server.url}/__admin${adminToken ? ' (bearer token from MOBISITE_ADMIN_TOKEN)' : ''}${seeded}`,
    )
  }
  if (stateFile !== undefined) {
    console.log(
      `state:    ${stateFile} (${stateLoaded ? 'loaded' : 'new'}; written every ${stateInterval ?? 5} s while it changes, and on shutdown)`,
    )
  }
  if (perSecond !== undefined) console.log(`limit:    ${perSecond} calls per second per master account (429 past it)`)
  for (const url of args.webhooks) console.log(`webhook:  ${url} receives every site event`)

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
