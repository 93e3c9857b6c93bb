/**
 * The Prometheus instruments of mobisite, created in a prom-client Registry
 * the caller owns (the standalone server's, or an app's own). prom-client is
 * loaded on first use, never by importing the package: a registry given in
 * an option means the app has loaded it already, so the import resolves from
 * the module cache at once. Observations made before it resolves are queued
 * (bounded) and applied when it does.
 *
 * One set of instruments per registry (a WeakMap), so apiRouter,
 * mobileRedirect, the server and the collector share the metric objects
 * rather than registering the same name twice (which prom-client refuses).
 */
import type { Counter, Gauge, Histogram, Registry } from 'prom-client'

/** What the redirect middleware decided for one judged request. */
export type RedirectDecision = 'redirected' | 'desktop' | 'opted_out' | 'not_navigation'

/** What happened to analytics events at the collector. */
export type CollectorEvent = 'accepted' | 'recorded' | 'failed' | 'dropped' | 'limited'

/** The engine's recording counters, read at each scrape (`engine.recordingStats()`). */
export type RecordingTotals = Record<CollectorEvent | 'pending', number>

/** Metric names, documented in docs/operations.md. */
export const METRIC_NAMES = {
  http: 'http_request_duration_seconds',
  store: 'mobisite_store_call_duration_seconds',
  redirect: 'mobisite_redirect_decisions_total',
  collector: 'mobisite_collector_events_total',
  pending: 'mobisite_pending_recordings',
  webhookDrops: 'mobisite_webhook_drops_total',
  stateWriteFailures: 'mobisite_state_write_failures_total',
} as const

interface Loaded {
  prom: Prom
  http: Histogram<'method' | 'route' | 'status_code'>
  store: Histogram<'operation'>
  redirect: Counter<'decision'>
  collector: Counter<'event'>
  pending: Gauge
}

/** Most observations kept while prom-client loads; more are dropped (a start-up burst only). */
const QUEUE_LIMIT = 10_000

/**
 * The methods a request is labelled by; any other (Node accepts 34, from
 * PROPFIND to MKCALENDAR) is `OTHER`, so a client cannot multiply the series.
 */
const METHOD_LABELS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

/** The instruments of one registry; see the module comment. */
export class Instruments {
  private loaded: Loaded | undefined
  private queue: Array<(m: Loaded) => void> = []
  private recordings: (() => RecordingTotals) | undefined
  private webhookDrops: Counter | undefined
  /** Resolves once prom-client is loaded and the metrics exist in the registry. */
  readonly ready: Promise<void>

  constructor(readonly registry: Registry) {
    this.ready = import('prom-client').then((prom) => {
      this.loaded = create(prom, registry, () => this.recordings?.())
      for (const apply of this.queue) apply(this.loaded)
      this.queue = []
    })
  }

  private use(apply: (m: Loaded) => void): void {
    if (this.loaded !== undefined) apply(this.loaded)
    else if (this.queue.length < QUEUE_LIMIT) this.queue.push(apply)
  }

  /** One answered HTTP request; `route` is a template (`/api/sites/{site_name}`), never a raw path. */
  httpRequest(method: string, route: string, status: number, seconds: number): void {
    const label = METHOD_LABELS.has(method) ? method : 'OTHER'
    this.use((m) => m.http.observe({ method: label, route, status_code: String(status) }, seconds))
  }

  /** One store call, by the store method's name. */
  storeCall(operation: string, seconds: number): void {
    this.use((m) => m.store.observe({ operation }, seconds))
  }

  /** One redirect decision of mobileRedirect. */
  redirectDecision(decision: RedirectDecision): void {
    this.use((m) => m.redirect.inc({ decision }))
  }

  /** `count` collector events that were accepted, recorded or dropped. */
  collectorEvents(event: CollectorEvent, count = 1): void {
    this.use((m) => m.collector.inc({ event }, count))
  }

  /**
   * Reads the collector counters and pending gauge from `read` at each scrape:
   * the engine keeps the totals, so nothing is counted twice or on the hot path.
   */
  observeRecordings(read: () => RecordingTotals): void {
    this.recordings = read
  }

  /**
   * Registers `mobisite_webhook_drops_total` (only a server that can have
   * webhooks does) and returns the function that counts one drop.
   */
  countWebhookDrops(): () => void {
    this.use((m) => {
      this.webhookDrops ??= existing(
        this.registry,
        METRIC_NAMES.webhookDrops,
        () =>
          new m.prom.Counter({
            name: METRIC_NAMES.webhookDrops,
            help: 'Webhook deliveries of the test double dropped unsent (1,000 already pending, or their webhook deleted)',
            registers: [this.registry],
          }),
      )
    })
    return () => this.use(() => this.webhookDrops?.inc())
  }

  /** The number of analytics recordings waiting to be written. */
  pendingRecordings(count: number): void {
    this.use((m) => m.pending.set(count))
  }
}

const byRegistry = new WeakMap<Registry, Instruments>()

/** The instruments of `registry`, created on first call. */
export function instrumentsFor(registry: Registry): Instruments {
  let found = byRegistry.get(registry)
  if (found === undefined) {
    found = new Instruments(registry)
    byRegistry.set(registry, found)
  }
  return found
}

type Prom = typeof import('prom-client')

/** A metric of this name already in the registry (an app registered it), or a new one. */
function existing<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make()
}

/**
 * Counts failed write-backs of the test double's state file in `registry`:
 * registered only by a server that keeps one, so no other server shows a
 * family it can never fill. Returns the function that counts one.
 */
export async function stateWriteFailureCounter(registry: Registry): Promise<() => void> {
  const prom = await import('prom-client')
  const counter = existing(
    registry,
    METRIC_NAMES.stateWriteFailures,
    () =>
      new prom.Counter({
        name: METRIC_NAMES.stateWriteFailures,
        help: 'Write-backs of the state file (--state) that failed; each is logged and retried',
        registers: [registry],
      }),
  )
  return () => counter.inc()
}

const COLLECTOR_EVENTS: readonly CollectorEvent[] = ['accepted', 'recorded', 'failed', 'dropped', 'limited']

function create(prom: Prom, registry: Registry, recordings: () => RecordingTotals | undefined): Loaded {
  const registers = [registry]
  return {
    prom,
    http: existing(
      registry,
      METRIC_NAMES.http,
      () =>
        new prom.Histogram({
          name: METRIC_NAMES.http,
          help: 'Duration of HTTP requests, by method, route template and status code',
          labelNames: ['method', 'route', 'status_code'] as const,
          buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
          registers,
        }),
    ),
    store: existing(
      registry,
      METRIC_NAMES.store,
      () =>
        new prom.Histogram({
          name: METRIC_NAMES.store,
          help: 'Duration of store calls, by store operation',
          labelNames: ['operation'] as const,
          buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
          registers,
        }),
    ),
    redirect: existing(
      registry,
      METRIC_NAMES.redirect,
      () =>
        new prom.Counter({
          name: METRIC_NAMES.redirect,
          help: 'Decisions of the mobile redirect middleware: redirected, desktop, opted_out, not_navigation',
          labelNames: ['decision'] as const,
          registers,
        }),
    ),
    collector: existing(
      registry,
      METRIC_NAMES.collector,
      () =>
        new prom.Counter({
          name: METRIC_NAMES.collector,
          help: 'Analytics events: accepted, recorded, failed (store down), dropped (queue full), limited (beacon rate)',
          labelNames: ['event'] as const,
          registers,
          collect() {
            const totals = recordings()
            if (totals === undefined) return
            // Absolute totals from the engine: a counter that only ever grows, set at scrape time.
            this.reset()
            for (const event of COLLECTOR_EVENTS) this.inc({ event }, totals[event])
          },
        }),
    ),
    pending: existing(
      registry,
      METRIC_NAMES.pending,
      () =>
        new prom.Gauge({
          name: METRIC_NAMES.pending,
          help: 'Analytics recordings accepted and not yet written to the store',
          registers,
          collect() {
            const totals = recordings()
            if (totals !== undefined) this.set(totals.pending)
          },
        }),
    ),
  }
}
