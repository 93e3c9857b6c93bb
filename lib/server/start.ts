/**
 * The server behind startServer (./index.ts; its options and answer are in
 * ./options.ts): loaded with the first start, not with the package root.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import express, { type Express } from 'express'
import { createEngine } from '../engine/index.js'
import { dashboardRouter } from '../dashboard/index.js'
import { apiRouter, type ApiRouterOptions } from '../http/router.js'
import { collectRoute } from '../collector/route.js'
import { redirectScript } from '../redirect/script/handler.js'
import { ServiceError } from '../errors.js'
import { sendError } from '../http/errors.js'
import { limitedServer } from './limits.js'
import { httpsServerFactory, resolveTls } from './tls.js'
import type { Controls } from '../testing/controls.js'
import type { StateFile } from '../testing/state-file.js'
import { contextOf } from '../engine/context-access.js'
import { MemoryStore } from '../store/memory/store.js'
import type { Registry } from 'prom-client'
import { observeRequests, observes, type RequestObserver } from '../http/observe.js'
import { instrumentsFor, stateWriteFailureCounter } from '../http/metrics.js'
import { QUIET_ROUTES, mountLabel, mountMetrics, mountProbes, storeAnswers } from './observability.js'
import { webhookDropReporter } from './webhook-drops.js'
import { packageVersion } from './package-version.js'
import { closeAtOnce, drainOf } from './drain.js'
import { isLoopback, type RunningServer, type ServerOptions, type ShutdownOptions } from './options.js'

/** {@link startServer}: builds the app, listens, and answers the running server. */
export async function serve(options: ServerOptions): Promise<RunningServer> {
  const engine = options.engine ?? createEngine()
  const host = options.host ?? '127.0.0.1'
  if (options.admin && options.adminToken === undefined && !isLoopback(host)) {
    throw new Error(`startServer: admin on host ${host}, which is not loopback, needs an adminToken`)
  }
  const store = options.stateFile === undefined ? undefined : contextOf(engine).store
  if (store !== undefined && !(store instanceof MemoryStore)) {
    throw new Error(
      'startServer: stateFile keeps a MemoryStore between runs; this engine has another store, which keeps its state itself',
    )
  }
  // Loaded here, not at the top: importing the package root stays free of the test-double code.
  const { createControls } = await import('../testing/controls.js')
  const app = express()
  app.disable('x-powered-by')
  let draining = false
  const logger = options.logger
  const registry = options.metrics ? await mountMetricsLater(options.metrics) : undefined
  // Observed before Express sees the request, not as its first layer: one layer fewer to walk per request.
  const observer = observes(logger, registry)
    ? observeRequests({
        ...(logger ? { logger } : {}),
        ...(registry ? { registry } : {}),
        routeOf: mountLabel,
        quiet: QUIET_ROUTES,
      })
    : undefined
  await observer?.loading
  const onError = logger ? (error: unknown) => logger.error({ err: error }, 'unexpected error') : undefined
  if (options.trustProxy !== undefined) app.set('trust proxy', options.trustProxy)
  // Links point at publicUrl, or at this server once it listens; never at a request's Host.
  let ownUrl = ''
  const publicUrl = options.publicUrl ?? (() => ownUrl)
  const router: ApiRouterOptions = { ...(onError ? { onError } : {}), publicUrl, ...options.router }
  let controls: Controls | undefined
  let stateFile: StateFile | undefined
  if (options.admin || options.stateFile !== undefined || options.webhooks !== undefined) {
    controls = createControls(engine)
    await controls.ready()
    controls.onWebhookDrop(webhookDropReporter(logger, registry))
    controls.useStartupSettings({
      ...(options.allowLinkLocalWebhooks ? { allowLinkLocalWebhooks: true } : {}),
      ...(options.webhooks ? { webhooks: options.webhooks } : {}),
      ...(options.admin && options.rateLimit ? { rateLimit: options.rateLimit } : {}),
    })
  }
  if (options.admin) {
    const { adminRouter } = await import('../testing/admin.js')
    // The document served lists the admin calls only here, where they are mounted.
    app.use('/api', apiRouter(engine, { openApiAdmin: true, ...router, hooks: controls!.apiHooks }))
    app.use('/__admin', adminRouter(controls!, options.adminToken === undefined ? {} : { token: options.adminToken }))
  } else {
    const rateLimit = options.rateLimit ?? options.router?.rateLimit
    app.use('/api', apiRouter(engine, { ...router, ...(rateLimit ? { rateLimit } : {}) }))
  }
  app.use('/collect', collectRoute(engine, { ...(logger ? { logger } : {}), ...options.collector }))
  // After the API and the collector: Express tries each layer in turn, and those take nearly every request.
  mountProbes(app, async () =>
    draining ? { ready: false, reason: 'shutting down' } : storeAnswers(contextOf(engine).store),
  )
  if (registry !== undefined) {
    mountMetrics(app, registry)
    const instruments = instrumentsFor(registry)
    instruments.observeRecordings(() => engine.recordingStats())
    instruments.buildInfo(packageVersion())
    // Not the readiness answer: a draining server's store is still up.
    instruments.observeStoreUp(async () => (await storeAnswers(contextOf(engine).store)).ready)
  }
  app.use('/dashboard', dashboardRouter(engine, options.dashboard))
  // Public like the collector: desktop pages of any origin load it (docs/redirect.md, "On any page").
  app.use('/redirect.js', redirectScript(engine))
  // Every path nothing above serves: the API's JSON 404, never Express's HTML page.
  app.use((req, res) => sendError(res, new ServiceError('NotFound', `no endpoint at ${req.method} ${req.path}`)))
  const tls = options.tls === undefined || options.tls === false ? undefined : await resolveTls(options.tls, host)
  // Last before listening: from here a failed start must let the state file go (discard below).
  if (options.stateFile !== undefined) {
    const { StateFile } = await import('../testing/state-file.js')
    const countFailure = registry === undefined ? undefined : await stateWriteFailureCounter(registry)
    stateFile = await StateFile.open(controls!, store as MemoryStore, {
      path: options.stateFile,
      ...(options.stateInterval === undefined ? {} : { intervalSeconds: options.stateInterval }),
      ...(logger ? { logger } : {}),
      ...(countFailure ? { onWriteFailure: countFailure } : {}),
    })
  }
  const create = tls ? httpsServerFactory(tls) : undefined
  const server = limitedServer(
    observer ? observedApp(app, observer) : app,
    options.timeouts,
    options.maxConnections,
    create,
  )
  const drain = drainOf(server)
  server.listen(options.port ?? 0, host)
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve)
    server.once('error', reject)
  }).catch(async (error: unknown) => {
    // Not started: the state file stays as it was found.
    await stateFile?.discard()
    throw error
  })
  stateFile?.start()
  const { port } = server.address() as AddressInfo
  const shownHost = host.includes(':') ? `[${host}]` : host
  const scheme = tls ? 'https' : 'http'
  // A default port is left out, as browsers show it: https://localhost, not https://localhost:443.
  const url = `${scheme}://${shownHost}${port === (tls ? 443 : 80) ? '' : `:${port}`}`
  ownUrl = url
  let closing: Promise<void> | undefined
  const close = (stopListening = () => closeAtOnce(server)): Promise<void> => {
    closing ??= stopListening().then(async () => {
      // After the last call has answered: the state file gets the final state.
      controls?.abandonWebhookDeliveries()
      await stateFile?.close()
    })
    return closing
  }
  return {
    url,
    ...(tls?.ca === undefined ? {} : { ca: tls.ca }),
    engine,
    server,
    registry,
    get controls() {
      controls ??= createControls(engine)
      return controls
    },
    get stateWriteFailures() {
      return stateFile?.writeFailures ?? 0
    },
    close: () => close(),
    async shutdown({ delay = 0, timeout = 10_000 }: ShutdownOptions = {}) {
      draining = true
      drain.begin()
      logger?.info({ delay_ms: delay, timeout_ms: timeout }, 'shutting down: not ready')
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay))
      const timer = setTimeout(() => {
        logger?.warn({ timeout_ms: timeout }, 'shutdown timeout: cutting the connections still open')
        drain.cut()
      }, timeout)
      try {
        // The process stays up until these answers are out anyway: until then, latecomers are served, not refused.
        await drain.answersOut()
        const closed = close(drain.stopListening)
        logger?.info({ open_connections: drain.openConnections() }, 'stopped listening')
        await closed
      } finally {
        clearTimeout(timer)
      }
      logger?.info('stopped serving')
    },
  }
}

/** The registry `metrics` asks for: the given one, or a new one (made by mountMetrics). */
async function mountMetricsLater(metrics: true | Registry): Promise<Registry> {
  if (metrics !== true) return metrics
  const prom = await import('prom-client')
  const registry = new prom.Registry()
  prom.collectDefaultMetrics({ register: registry })
  return registry
}

/**
 * `app` with `observer` called first on each request. It keeps the app's
 * `request` and `response`, so the server still makes its messages with
 * Express's prototypes (express-prototypes.ts).
 */
function observedApp(app: Express, observer: RequestObserver): RequestListener {
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    observer(req, res)
    app(req, res)
  }
  return Object.assign(listener, { request: app.request, response: app.response })
}
