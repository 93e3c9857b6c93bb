#!/usr/bin/env node
/**
 * `mobisite [serve] [options]` (`npm start`): the API under /api, the
 * dashboard, the collector, health probes and Prometheus metrics, on the
 * store `--store` names (lib/cli/store.ts). Flags and their environment
 * twins are the table in lib/cli/flags.ts (`--help` prints it); the
 * banner (lib/cli/banner.ts) goes to stderr, JSON log lines to stdout.
 * docs/operations.md describes running it as a service.
 *
 * Exit codes: 0 after a clean shutdown (or --help / --version), 1 when the
 * server cannot start (the message says what failed and how to fix it) or
 * when a write-back of the `--state` file failed during the run, 2 for a
 * command-line mistake (a `--state` path that cannot be used included).
 */
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { chooseStore, openPostgres, openRedis, shownUrl, watchConnection } from './store.js'
import { DEMO_ACCOUNT, seedDemo } from './demo.js'
import { type CdnProvider, cdnGeo } from '../collector/geo.js'
import { createEngine } from '../engine/index.js'
import { packageVersion } from '../server/package-version.js'
import { ServiceError } from '../errors.js'
import { validateWebhook } from '../schema/admin-webhooks.js'
import { checkDestination, maskUrl } from '../testing/webhook-destination.js'

const CDN_PROVIDERS: readonly string[] = ['cloudflare', 'cloudfront', 'vercel', 'appengine']
import { instrumentsFor } from '../http/metrics.js'
import type { Store } from '../store/contract/index.js'
import { MemoryStore } from '../store/memory/store.js'
import { bannerLines } from './banner.js'
import { cliLogger } from './log-batch.js'
import { helpText } from './flags.js'
import { type FlagValues, parseFlags, UsageError } from './parse-flags.js'
import { messageOf, storeAnswers, timedStore } from '../server/observability.js'

/** A start-up failure whose message says what to do. */
class StartError extends Error {}

/** How long a store has to answer at start before the start fails (DESIGN: exit within 15 s). */
const STORE_START_TIMEOUT_MS = 10_000

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])

/** A number flag: undefined when not given; a usage error when out of range. */
function numberFlag(values: FlagValues, name: string, ok: (n: number) => boolean, what: string): number | undefined {
  const value = values[name] as string | undefined
  if (value === undefined) return undefined
  const n = Number(value)
  if (!/^\d+(\.\d+)?$/.test(value) || !ok(n))
    throw new UsageError(`--${name} must be ${what} (got ${JSON.stringify(value)})`)
  return n
}

/** `--tls` (self-signed) or `--tls-cert` with `--tls-key` (PEM files); undefined: plain HTTP. */
async function tlsFlags(flags: FlagValues): Promise<true | { key: string; cert: string } | undefined> {
  const certFile = flags['tls-cert'] as string | undefined
  const keyFile = flags['tls-key'] as string | undefined
  if ((certFile === undefined) !== (keyFile === undefined)) throw new UsageError('--tls-cert and --tls-key go together')
  if (certFile !== undefined && keyFile !== undefined) {
    const read = (file: string, flag: string) =>
      readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
        throw new StartError(`cannot read ${flag} ${file}: ${error.code ?? error.message}`)
      })
    return { cert: await read(certFile, '--tls-cert'), key: await read(keyFile, '--tls-key') }
  }
  return flags.tls === true ? true : undefined
}

/** `--trust-proxy`: true/false, a hop count, or a comma-separated list of addresses/subnets. */
function trustProxyFlag(value: string | undefined): boolean | number | string[] | undefined {
  if (value === undefined || value === '' || value === 'false' || value === 'off') return undefined
  if (value === 'true') return true
  if (/^\d+$/.test(value)) return Number(value)
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const flags = parseFlags(argv, env)
  if (flags.help) return void process.stdout.write(helpText())
  if (flags.version) return void process.stdout.write(`${packageVersion()}\n`)
  const port =
    numberFlag(flags, 'port', (n) => Number.isInteger(n) && n <= 65_535, 'a port number from 0 to 65535') ?? 3000
  const host = (flags.host as string | undefined) ?? '127.0.0.1'
  const level = (flags['log-level'] as string | undefined) ?? 'info'
  if (!LEVELS.has(level))
    throw new UsageError(`--log-level must be one of ${[...LEVELS].join(', ')} (got ${JSON.stringify(level)})`)
  const admin = flags.admin === true
  const adminToken = env.MOBISITE_ADMIN_TOKEN || undefined
  const seed = flags.seed as string | undefined
  if (seed !== undefined && !admin) throw new UsageError('--seed needs --admin (or MOBISITE_ADMIN=1)')
  const fixtures = seed === undefined ? undefined : await readFixtures(seed)
  const stateInterval = numberFlag(flags, 'state-interval', (n) => n > 0 && n <= 86_400, 'a number of seconds above 0')
  const perSecond = numberFlag(
    flags,
    'rate-limit',
    (n) => Number.isInteger(n) && n >= 1 && n <= 10_000,
    'a whole number of calls per second from 1 to 10000',
  )
  const delay = numberFlag(flags, 'shutdown-delay', (n) => n <= 3_600, 'a number of seconds') ?? 0
  const timeout = numberFlag(flags, 'shutdown-timeout', (n) => n <= 3_600, 'a number of seconds') ?? 10
  const metrics = flags.metrics !== false
  const tls = await tlsFlags(flags)
  const publicUrl = flags['public-url'] as string | undefined
  if (publicUrl !== undefined && !/^https?:\/\/[^/?#]+\/?$/i.test(publicUrl))
    throw new UsageError(
      `--public-url must be an origin like https://sites.example.com (got ${JSON.stringify(publicUrl)})`,
    )
  const trustProxy = trustProxyFlag(flags['trust-proxy'] as string | undefined)
  const count = (name: string, min: number) =>
    numberFlag(flags, name, (n) => Number.isInteger(n) && n >= min && n <= 1_000_000_000, `a whole number from ${min}`)
  const beaconsPerMinute = count('beacons-per-minute', 0)
  const maxPendingRecordings = count('max-pending-recordings', 1)
  const analyticsRetentionDays = count('analytics-retention-days', 1)
  const maxDimensionValues = count('max-dimension-values', 1)
  const exactVisitors = count('exact-visitors', 0)
  const geoHeaders = flags['geo-headers'] as string | undefined
  if (geoHeaders !== undefined && !CDN_PROVIDERS.includes(geoHeaders as CdnProvider))
    throw new UsageError(`--geo-headers must be one of ${CDN_PROVIDERS.join(', ')} (got ${JSON.stringify(geoHeaders)})`)
  const collector = {
    ...(beaconsPerMinute === undefined ? {} : { beaconsPerMinute }),
    ...(maxPendingRecordings === undefined ? {} : { maxPendingRecordings }),
    ...(geoHeaders === undefined ? {} : { geo: cdnGeo({ provider: geoHeaders as CdnProvider }) }),
  }
  const { isLoopback } = await import('../server/index.js')
  if (admin && adminToken === undefined && !isLoopback(host)) {
    throw new StartError(
      `--admin on host ${host}, which is not loopback, needs a token: set MOBISITE_ADMIN_TOKEN=<a long random secret> (callers send Authorization: Bearer <it>), or serve on 127.0.0.1`,
    )
  }

  // Lines batched and access lines formatted in bunches, in order and flushed at exit (lib/cli/log-batch.ts).
  const { logger, flush } = await cliLogger(level, 1)
  process.on('exit', flush)
  // Express and the routers load while the store connects and the password hashes.
  const serverModule = import('../server/index.js')
  const registry = metrics ? await defaultRegistry() : undefined
  const choice = chooseStore(flags.store as string | undefined, env)
  const opened: { store: Store; label: string } =
    choice.kind === 'postgres'
      ? await openPostgres(choice.url, env)
      : choice.kind === 'redis'
        ? await openRedis(choice.url, env)
        : {
            store: new MemoryStore(exactVisitors === undefined ? {} : { exactVisitors }),
            label: 'memory store: state lives in this process',
          }
  if (choice.kind !== 'memory') await reachable(opened.store, choice.url, logger)
  if (choice.kind === 'redis') watchConnection(opened.store, choice.url, logger)
  const store = registry ? timedStore(opened.store, instrumentsFor(registry)) : opened.store
  const engine = createEngine({
    store,
    ...(analyticsRetentionDays === undefined ? {} : { analyticsRetentionDays }),
    ...(maxDimensionValues === undefined ? {} : { maxDimensionValues }),
  })
  const user = env.MOBISITE_USER || 'admin'
  const givenPassword = env.MOBISITE_PASSWORD || undefined
  const password = givenPassword ?? randomBytes(12).toString('hex')
  // On a shared store a second instance must not replace the account (and the
  // password) the first one printed; a given MOBISITE_PASSWORD always applies.
  const shared = choice.kind !== 'memory' && givenPassword === undefined && (await engine.hasMasterAccount(user))
  const [{ startServer }] = await Promise.all([
    serverModule,
    shared ? undefined : engine.addMasterAccount({ user, password, partner: true }),
  ])
  const stateFile = flags.state as string | undefined
  // Fixtures seed a first run only: once a state file exists, it holds them already.
  const stateLoaded = stateFile !== undefined && existsSync(stateFile)
  const allowLinkLocalWebhooks = flags['webhooks-allow-link-local'] === true
  const webhooks = webhookFlags(flags.webhook as string[] | undefined, allowLinkLocalWebhooks)
  let server: Awaited<ReturnType<typeof startServer>>
  try {
    server = await startServer({
      engine,
      port,
      host,
      admin,
      logger,
      ...(registry ? { metrics: registry } : {}),
      ...(adminToken ? { adminToken } : {}),
      ...(stateFile === undefined ? {} : { stateFile }),
      ...(stateInterval === undefined ? {} : { stateInterval }),
      ...(perSecond === undefined ? {} : { rateLimit: { perSecond } }),
      ...(webhooks.length > 0 ? { webhooks: webhooks.map((url) => ({ url })) } : {}),
      ...(allowLinkLocalWebhooks ? { allowLinkLocalWebhooks } : {}),
      ...(tls === undefined ? {} : { tls }),
      ...(publicUrl === undefined ? {} : { publicUrl: publicUrl.replace(/\/$/, '') }),
      ...(trustProxy === undefined ? {} : { trustProxy }),
      ...(Object.keys(collector).length === 0 ? {} : { collector }),
    })
  } catch (error) {
    await engine.close().catch(() => undefined)
    if ((error as { code?: string }).code === 'EADDRINUSE') {
      throw new StartError(
        `port ${port} is in use on ${host}; pass --port (or PORT) with a free one, or --port 0 for any`,
      )
    }
    // A --state path that cannot be used at all (not a regular file, an unwritable folder, another process's).
    if ((error as { code?: string }).code === 'MOBISITE_STATE_FILE_REFUSED')
      throw new UsageError((error as Error).message)
    throw error
  }
  if (fixtures !== undefined && !stateLoaded) {
    try {
      await server.controls.seed(fixtures)
    } catch (error) {
      await server.close().catch(() => undefined)
      await engine.close().catch(() => undefined)
      // A seed the controls refuse is the file's mistake: its problems, on one line.
      if (error instanceof ServiceError && error.error_code === 'InvalidInput')
        throw new UsageError(`--seed ${seed}: ${error.message.replace(/\s*\n\s*/g, ' ')}`)
      throw error
    }
  }
  let demo: { account: string; site: string; link: string } | undefined
  if (flags.demo === true) {
    const made = await seedDemo(engine, user)
    const { url } = await engine.as(user).ssoLink(made.account_name, {}, `${server.url}/dashboard`)
    demo = { account: made.account_name, site: made.site_name, link: url }
  }
  logger.info({ url: server.url, store: opened.label, admin, metrics, pid: process.pid }, 'listening')
  if (flags.quiet !== true) {
    const lines = bannerLines({
      url: server.url,
      storeLabel: opened.label,
      user,
      ...(givenPassword === undefined && !shared ? { generatedPassword: password } : {}),
      shared,
      ...(demo ? { demo } : {}),
      demoAccount: DEMO_ACCOUNT,
      ...(admin
        ? {
            admin: {
              tokenFromEnv: adminToken !== undefined,
              seeded:
                seed === undefined
                  ? ''
                  : stateLoaded
                    ? `, not seeded from ${seed}: the state file holds the state`
                    : `, seeded from ${seed}`,
            },
          }
        : {}),
      ...(stateFile ? { state: { file: stateFile, loaded: stateLoaded, interval: stateInterval ?? 5 } } : {}),
      ...(perSecond === undefined ? {} : { rateLimit: perSecond }),
      webhooks,
      metrics,
    })
    process.stderr.write(`${lines.join('\n')}\n`)
    if (server.ca !== undefined) {
      // Made at start and never written to disk: a client trusts it with curl --cacert or NODE_EXTRA_CA_CERTS.
      process.stderr.write(
        `\nself-signed certificate (save it as mobisite-ca.pem; curl --cacert mobisite-ca.pem, or NODE_EXTRA_CA_CERTS=mobisite-ca.pem):\n${server.ca}`,
      )
    }
  }

  const exit = (code: number): void => process.exit(code)
  let stopping = false
  const stop = async (signal: string): Promise<void> => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting at once')
      return exit(1)
    }
    stopping = true
    logger.info({ signal }, 'shutting down')
    try {
      await server.shutdown({ delay: delay * 1000, timeout: timeout * 1000 })
      // Writes pending analytics recordings, then closes the store.
      await engine.close()
      logger.info('store closed; bye')
      // Even when a retry wrote it later, the file lacked acknowledged writes for a while: the run must not pass as clean.
      if (server.stateWriteFailures > 0) {
        logger.error(
          { state_file: stateFile, failures: server.stateWriteFailures },
          'write-backs of the state file failed during this run: exiting 1',
        )
        return exit(1)
      }
      exit(0)
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed')
      exit(1)
    }
  }
  process.on('SIGINT', () => void stop('SIGINT'))
  process.on('SIGTERM', () => void stop('SIGTERM'))
}

/** The `--webhook` URLs, each checked as `POST /__admin/webhooks` would: a bad one is a usage error (exit 2). */
function webhookFlags(urls: readonly string[] | undefined, allowLinkLocal: boolean): string[] {
  for (const url of urls ?? []) {
    try {
      validateWebhook({ url })
      checkDestination(url, { allowLinkLocal })
    } catch (error) {
      throw new UsageError(`--webhook ${maskUrl(url)}: ${(error as Error).message}`)
    }
  }
  return [...(urls ?? [])]
}

/** The `--seed` file as JSON; a missing, unreadable or malformed file is a usage error (exit 2). */
async function readFixtures(file: string): Promise<unknown> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a folder, not a file' : (code ?? 'unreadable')
    throw new UsageError(`--seed ${file}: ${why} (give the path of a JSON seed body, as docs/testing.md shows)`)
  }
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw new UsageError(`--seed ${file}: not JSON (${(error as Error).message})`)
  }
}

/** A prom-client registry with Node's default metrics (prom-client loads only when metrics are on). */
async function defaultRegistry() {
  const prom = await import('prom-client')
  const registry = new prom.Registry()
  prom.collectDefaultMetrics({ register: registry })
  return registry
}

/** Fails the start when the store does not answer: names it (password hidden), the cause and what to check. */
async function reachable(store: Store, url: string, logger: { info(o: object, m: string): void }): Promise<void> {
  const state = await storeAnswers(store, STORE_START_TIMEOUT_MS)
  if (state.ready) {
    logger.info({ store: shownUrl(url) }, 'store connected')
    return
  }
  await Promise.race([store.close().catch(() => undefined), new Promise((r) => setTimeout(r, 1_000))])
  throw new StartError(
    `cannot reach the store at ${shownUrl(url)}: ${state.reason}. Check that it runs and that --store (or MOBISITE_STORE) names it`,
  )
}

main(process.argv.slice(2), process.env).catch((error: unknown) => {
  if (error instanceof UsageError) {
    process.stderr.write(`mobisite: ${error.message}\nRun mobisite --help for the options.\n`)
    process.exit(2)
  }
  process.stderr.write(`mobisite: could not start: ${messageOf(error)}\n`)
  process.exit(1)
})
