/**
 * The definitions of mobisite's metric families (names and meanings:
 * docs/operations.md). Each is made in the registry when the first sample
 * for it exists, never before: a family with a `# TYPE` line and nothing
 * under it tells an operator nothing. Counters whose label values are known
 * get a 0 for each at once, so that `rate()` and `increase()` see every
 * series begin.
 */
import type { Counter, Gauge, Histogram, Registry } from 'prom-client'
import { FastHistogram } from './fast-histogram.js'

/** prom-client, loaded. */
export type Prom = typeof import('prom-client')

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
  buildInfo: 'mobisite_build_info',
  storeUp: 'mobisite_store_up',
} as const

/** Every decision of the redirect middleware, each counted from 0. */
export const REDIRECT_DECISIONS: readonly RedirectDecision[] = ['redirected', 'desktop', 'opted_out', 'not_navigation']

/** Every collector event, each counted from 0. */
export const COLLECTOR_EVENTS: readonly CollectorEvent[] = ['accepted', 'recorded', 'failed', 'dropped', 'limited']

/**
 * A metric of this name already in the registry, or a new one: an app may
 * have registered it, and prom-client refuses a second of the same name.
 */
export function existing<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make()
}

/**
 * `http_request_duration_seconds{method,route,status_code}`: a FastHistogram,
 * or the histogram of that name an app registered already.
 */
export function httpDurations(registry: Registry): FastHistogram | Histogram<'method' | 'route' | 'status_code'> {
  return existing(registry, METRIC_NAMES.http, () =>
    new FastHistogram(
      METRIC_NAMES.http,
      'Duration of HTTP requests, by method, route template and status code',
      [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    ).registerIn(registry),
  )
}

/** `mobisite_store_call_duration_seconds{operation}`: as {@link httpDurations}. */
export function storeDurations(registry: Registry): FastHistogram | Histogram<'operation'> {
  return existing(registry, METRIC_NAMES.store, () =>
    new FastHistogram(
      METRIC_NAMES.store,
      'Duration of store calls, by store operation',
      [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    ).registerIn(registry),
  )
}

/** `mobisite_redirect_decisions_total{decision}`, every decision at 0. */
export function redirectDecisions(prom: Prom, registry: Registry): Counter<'decision'> {
  const counter = existing(
    registry,
    METRIC_NAMES.redirect,
    () =>
      new prom.Counter({
        name: METRIC_NAMES.redirect,
        help: 'Decisions of the mobile redirect middleware: redirected, desktop, opted_out, not_navigation',
        labelNames: ['decision'] as const,
        registers: [registry],
      }),
  )
  for (const decision of REDIRECT_DECISIONS) counter.inc({ decision }, 0)
  return counter
}

/**
 * `mobisite_collector_events_total{event}`, every event at 0; at each
 * scrape, the totals `read` gives, when it gives any.
 */
export function collectorEvents(
  prom: Prom,
  registry: Registry,
  read: () => RecordingTotals | undefined,
): Counter<'event'> {
  const counter = existing(
    registry,
    METRIC_NAMES.collector,
    () =>
      new prom.Counter({
        name: METRIC_NAMES.collector,
        help: 'Analytics events: accepted, recorded, failed (store down), dropped (queue full), limited (beacon rate)',
        labelNames: ['event'] as const,
        registers: [registry],
        collect() {
          const totals = read()
          if (totals === undefined) return
          // Absolute totals from the engine: a counter that only ever grows, set at scrape time.
          this.reset()
          for (const event of COLLECTOR_EVENTS) this.inc({ event }, totals[event])
        },
      }),
  )
  for (const event of COLLECTOR_EVENTS) counter.inc({ event }, 0)
  return counter
}

/** `mobisite_pending_recordings`; at each scrape, from `read` when it gives totals. */
export function pendingRecordings(prom: Prom, registry: Registry, read: () => RecordingTotals | undefined): Gauge {
  return existing(
    registry,
    METRIC_NAMES.pending,
    () =>
      new prom.Gauge({
        name: METRIC_NAMES.pending,
        help: 'Analytics recordings accepted and not yet written to the store',
        registers: [registry],
        collect() {
          const totals = read()
          if (totals !== undefined) this.set(totals.pending)
        },
      }),
  )
}

/** `mobisite_webhook_drops_total` (starts at 0: it has no labels). */
export function webhookDrops(prom: Prom, registry: Registry): Counter {
  return existing(
    registry,
    METRIC_NAMES.webhookDrops,
    () =>
      new prom.Counter({
        name: METRIC_NAMES.webhookDrops,
        help: 'Webhook deliveries of the test double dropped unsent (1,000 already pending, or their webhook deleted)',
        registers: [registry],
      }),
  )
}

/** `mobisite_state_write_failures_total` (starts at 0: it has no labels). */
export function stateWriteFailures(prom: Prom, registry: Registry): Counter {
  return existing(
    registry,
    METRIC_NAMES.stateWriteFailures,
    () =>
      new prom.Counter({
        name: METRIC_NAMES.stateWriteFailures,
        help: 'Write-backs of the state file (--state) that failed; each is logged and retried',
        registers: [registry],
      }),
  )
}

/** `mobisite_build_info{version,node}` = 1. */
export function buildInfo(prom: Prom, registry: Registry, version: string): Gauge<'version' | 'node'> {
  const gauge = existing(
    registry,
    METRIC_NAMES.buildInfo,
    () =>
      new prom.Gauge({
        name: METRIC_NAMES.buildInfo,
        help: 'Always 1: the mobisite version running, and the Node version under it',
        labelNames: ['version', 'node'] as const,
        registers: [registry],
      }),
  )
  gauge.set({ version, node: process.version }, 1)
  return gauge
}

/**
 * `mobisite_store_up`: at each scrape, 1 when `answers()` says the store
 * answered, else 0. `answers` must settle within a bound: a scrape waits for it.
 */
export function storeUp(prom: Prom, registry: Registry, answers: () => Promise<boolean>): Gauge {
  return existing(
    registry,
    METRIC_NAMES.storeUp,
    () =>
      new prom.Gauge({
        name: METRIC_NAMES.storeUp,
        help: 'Whether the store answered a read within the readiness bound at this scrape: 1 yes, 0 no',
        registers: [registry],
        async collect() {
          this.set((await answers().catch(() => false)) ? 1 : 0)
        },
      }),
  )
}
