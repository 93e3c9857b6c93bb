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
 * Each family enters the registry with its first sample (metric-families.ts).
 */
import type { Counter, Gauge, Histogram, Registry } from 'prom-client'
import { FastHistogram } from './fast-histogram.js'
import * as families from './metric-families.js'
import type { CollectorEvent, Prom, RecordingTotals, RedirectDecision } from './metric-families.js'

export type { CollectorEvent, RecordingTotals, RedirectDecision } from './metric-families.js'
export { METRIC_NAMES } from './metric-families.js'

/** Most observations kept while prom-client loads; more are dropped (a start-up burst only). */
const QUEUE_LIMIT = 10_000

/**
 * The methods a request is labelled by; any other (Node accepts 34, from
 * PROPFIND to MKCALENDAR) is `OTHER`, so a client cannot multiply the series.
 */
const METHOD_LABELS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
/** Each method label's number in a series key's cache. */
const METHOD_INDEX = { GET: 0, HEAD: 1, POST: 2, PUT: 3, PATCH: 4, DELETE: 5, OPTIONS: 6, OTHER: 7 } as const

/** The instruments of one registry; see the module comment. */
export class Instruments {
  private prom: Prom | undefined
  private queue: Array<(prom: Prom) => void> = []
  private recordings: (() => RecordingTotals) | undefined
  private storeAnswers: (() => Promise<boolean>) | undefined
  /** Series keys of `http_request_duration_seconds` by route, then by status and method: see seriesKey. */
  private readonly httpKeys = new Map<string, Map<number, string>>()
  private http: FastHistogram | Histogram<'method' | 'route' | 'status_code'> | undefined
  private store: FastHistogram | Histogram<'operation'> | undefined
  private redirect: Counter<'decision'> | undefined
  private collector: Counter<'event'> | undefined
  private pending: Gauge | undefined
  private webhookDrops: Counter | undefined
  /** Resolves once prom-client is loaded and the observations made before are applied. */
  readonly ready: Promise<void>

  constructor(readonly registry: Registry) {
    this.ready = import('prom-client').then((prom) => {
      this.prom = prom
      for (const apply of this.queue) apply(prom)
      this.queue = []
    })
  }

  private use(apply: (prom: Prom) => void): void {
    if (this.prom !== undefined) apply(this.prom)
    else if (this.queue.length < QUEUE_LIMIT) this.queue.push(apply)
  }

  /** One answered HTTP request; `route` is a template (`/api/sites/{site_name}`), never a raw path. */
  httpRequest(method: string, route: string, status: number, seconds: number): void {
    const label = METHOD_LABELS.has(method) ? method : 'OTHER'
    if (this.prom === undefined) return this.use(() => this.httpRequest(label, route, status, seconds))
    this.http ??= families.httpDurations(this.registry)
    if (!(this.http instanceof FastHistogram))
      return this.http.observe({ method: label, route, status_code: String(status) }, seconds)
    const key = this.seriesKey(label, route, status)
    if (this.http.observe(key, seconds)) return
    this.http.add(key, { method: label, route, status_code: String(status) })
    this.http.observe(key, seconds)
  }

  /**
   * The series key of these labels, made once: a key built per request was
   * a new string to flatten and hash on every lookup, which cost six times
   * the observation itself (about 190 of 226 ns here, issue 38). Routes are
   * templates and statuses three digits, so the keys are a bounded set.
   */
  private seriesKey(method: string, route: string, status: number): string {
    let byStatus = this.httpKeys.get(route)
    if (byStatus === undefined) {
      byStatus = new Map()
      this.httpKeys.set(route, byStatus)
    }
    // Methods are one of eight labels: one number per method and status.
    const code = status * 8 + METHOD_INDEX[method as keyof typeof METHOD_INDEX]
    let key = byStatus.get(code)
    if (key === undefined) {
      key = `${method} ${status} ${route}`
      byStatus.set(code, key)
    }
    return key
  }

  /** One store call, by the store method's name. */
  storeCall(operation: string, seconds: number): void {
    if (this.prom === undefined) return this.use(() => this.storeCall(operation, seconds))
    this.store ??= families.storeDurations(this.registry)
    if (!(this.store instanceof FastHistogram)) return this.store.observe({ operation }, seconds)
    if (this.store.observe(operation, seconds)) return
    this.store.add(operation, { operation })
    this.store.observe(operation, seconds)
  }

  /** One redirect decision of mobileRedirect. */
  redirectDecision(decision: RedirectDecision): void {
    this.use((prom) => {
      this.redirect ??= families.redirectDecisions(prom, this.registry)
      this.redirect.inc({ decision })
    })
  }

  /** `count` collector events that were accepted, recorded or dropped. */
  collectorEvents(event: CollectorEvent, count = 1): void {
    this.use((prom) => this.recordingFamilies(prom).collector.inc({ event }, count))
  }

  /**
   * Reads the collector counters and pending gauge from `read` at each scrape:
   * the engine keeps the totals, so nothing is counted twice or on the hot path.
   */
  observeRecordings(read: () => RecordingTotals): void {
    this.recordings = read
    this.use((prom) => this.recordingFamilies(prom))
  }

  /** The number of analytics recordings waiting to be written. */
  pendingRecordings(count: number): void {
    this.use((prom) => this.recordingFamilies(prom).pending.set(count))
  }

  private recordingFamilies(prom: Prom): { collector: Counter<'event'>; pending: Gauge } {
    const read = () => this.recordings?.()
    this.collector ??= families.collectorEvents(prom, this.registry, read)
    this.pending ??= families.pendingRecordings(prom, this.registry, read)
    return { collector: this.collector, pending: this.pending }
  }

  /**
   * Registers `mobisite_webhook_drops_total` (only a server that can have
   * webhooks does) and returns the function that counts one drop.
   */
  countWebhookDrops(): () => void {
    this.use((prom) => {
      this.webhookDrops ??= families.webhookDrops(prom, this.registry)
    })
    return () => this.use(() => this.webhookDrops?.inc())
  }

  /** Registers `mobisite_build_info{version,node}` with this mobisite `version` (the standalone server does). */
  buildInfo(version: string): void {
    this.use((prom) => families.buildInfo(prom, this.registry, version))
  }

  /**
   * Registers `mobisite_store_up`, set at each scrape from `answers` (the
   * last one given: a registry shared by two servers shows the later's
   * store). A scrape waits for it, so it must settle within a bound.
   */
  observeStoreUp(answers: () => Promise<boolean>): void {
    this.storeAnswers = answers
    this.use((prom) => families.storeUp(prom, this.registry, () => this.storeAnswers?.() ?? Promise.resolve(false)))
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

/**
 * Counts failed write-backs of the test double's state file in `registry`:
 * registered only by a server that keeps one, so no other server shows a
 * family it can never fill. Returns the function that counts one.
 */
export async function stateWriteFailureCounter(registry: Registry): Promise<() => void> {
  const counter = families.stateWriteFailures(await import('prom-client'), registry)
  return () => counter.inc()
}
