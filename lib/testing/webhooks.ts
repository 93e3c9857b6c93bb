/**
 * Webhooks of the test double: the URLs a test registers receive the
 * engine's site events (lib/engine/rules/events.ts) as Duda sends them, a JSON POST
 * per event, signed when the webhook has a secret (webhook-signature.ts).
 *
 * A delivery starts only after the call that caused the event has answered
 * (the event waits for the next turn of the event loop), so a slow or dead
 * receiver never holds an API answer. A failed attempt (no answer within
 * 10 s, or a status outside 2xx) is retried `retries` times, waiting
 * `backoff_ms` and then twice as long each time (at most 10 minutes), as
 * Duda does (3 retries, 30 s doubling; the default wait here is 1 s).
 * Everything is bounded: 100
 * webhooks, 1,000 deliveries not yet finished (past it an event is dropped:
 * counted and reported to `onDrop`, never listed one by one), 8 attempts at
 * once, and the newest 100 attempts of each webhook kept, so one receiver
 * that hangs cannot push the others' attempts out of the log.
 *
 * Where deliveries may go, and how URLs are shown (credentials masked):
 * webhook-destination.ts.
 */
import { SITE_EVENT_TYPES, type SiteEvent, type SiteEventType } from '../../types/index.js'
import type { EventHub } from '../engine/rules/events.js'
import { ServiceError } from '../errors.js'
import { validateWebhook } from '../schema/admin-webhooks.js'
import {
  type DestinationPolicy,
  ForbiddenDestinationError,
  checkDestination,
  guardedLookup,
  literalRefusal,
  maskUrl,
} from './webhook-destination.js'
import { SIGNATURE_HEADER, SIGNATURE_TIMESTAMP_HEADER, signWebhook } from './webhook-signature.js'
import { failureOf, post } from './webhook-post.js'

/** A webhook as it is registered: `POST /__admin/webhooks`. */
export interface WebhookSpec {
  /** Where deliveries are POSTed: an absolute http(s) URL. */
  url: string
  /** The event types to receive; absent: all of them. */
  events?: SiteEventType[]
  /** Signs each delivery (x-duda-signature); absent: unsigned. */
  secret?: string
  /** Attempts after a failed one. Default 3, as Duda. */
  retries?: number
  /** Wait before the first retry, doubling for each next one. Default 1000 (Duda: 30000). */
  backoff_ms?: number
}

/** A webhook as `GET /__admin/webhooks` lists it: never its secret, only whether it has one. */
export interface Webhook {
  id: string
  url: string
  events?: SiteEventType[]
  signed: boolean
  retries: number
  backoff_ms: number
}

/** One attempt at a delivery, as `GET /__admin/webhooks/deliveries` lists it. */
export interface DeliveryAttempt {
  id: number
  /** The same for every attempt at one event to one webhook. */
  delivery: number
  webhook_id: string
  url: string
  /** 1 for the first try. */
  attempt: number
  event: SiteEvent
  /** The receiver's HTTP status; 0 when there was no answer. */
  status: number
  duration_ms: number
  error?: string
  /** delivered (2xx); retrying (another attempt follows); failed (none left, or a destination refused). */
  outcome: 'delivered' | 'retrying' | 'failed'
}

/** What `GET /__admin/webhooks/deliveries` answers. */
export interface Deliveries {
  /** Deliveries queued, in flight or waiting to retry. */
  pending: number
  /** Deliveries dropped, never sent (the queue was full, or their webhook was deleted), since the log was emptied. */
  dropped: number
  /** The newest attempts of each webhook, oldest first. */
  deliveries: DeliveryAttempt[]
}

/** Every bound of the webhooks (the module comment says why each is there), and the retry defaults. */
const BOUNDS = {
  webhooks: 100,
  pending: 1000,
  inFlight: 8,
  /** Attempts kept per webhook. */
  logPerWebhook: 100,
  /** The longest wait before a retry, however far the doubling goes. */
  maxWaitMs: 600_000,
  defaultRetries: 3,
  defaultBackoffMs: 1000,
} as const

interface Registered extends Required<Omit<WebhookSpec, 'events' | 'secret'>> {
  id: string
  /** The URL as shown: its credentials masked. */
  shown: string
  events?: ReadonlySet<SiteEventType>
  secret?: string
}

interface Job {
  hook: Registered
  event: SiteEvent
  body: string
  delivery: number
  attempt: number
  /** The reset generation it belongs to; a reset abandons older jobs. */
  generation: number
}

/** The webhooks of one engine, their delivery queue and the log of attempts. */
export class Webhooks {
  private hooks: Registered[] = []
  /** The webhooks given at start: reset brings them back. */
  private readonly startup: Registered[] = []
  private nextId = 1
  private nextDelivery = 1
  private nextAttempt = 1
  private unsubscribe: (() => void) | undefined
  private readonly ready: Job[] = []
  private inFlight = 0
  private pending = 0
  private readonly timers = new Set<NodeJS.Timeout>()
  /** The newest attempts, by webhook id. */
  private logs = new Map<string, DeliveryAttempt[]>()
  private dropped = 0
  private waiters: (() => void)[] = []
  private generation = 0
  private policy: DestinationPolicy
  private lookup: ReturnType<typeof guardedLookup>
  /** Told of every dropped delivery (the server logs and counts them). */
  onDrop: ((reason: string) => void) | undefined

  constructor(
    private readonly hub: EventHub,
    policy: DestinationPolicy = {},
  ) {
    this.policy = policy
    this.lookup = guardedLookup(policy)
  }

  /** From now on, deliveries may also go to link-local and cloud-metadata addresses. */
  allowLinkLocal(): void {
    this.policy = { ...this.policy, allowLinkLocal: true }
    this.lookup = guardedLookup(this.policy)
  }

  /** Registers a webhook (validated); `keep`: one given at start, which reset keeps. */
  add(spec: WebhookSpec | unknown, keep = false): { id: string } {
    const valid = validateWebhook(spec)
    checkDestination(valid.url, this.policy)
    if (this.hooks.length >= BOUNDS.webhooks)
      throw new ServiceError('InvalidInput', `at most ${BOUNDS.webhooks} webhooks can be registered; delete some first`)
    const hook: Registered = {
      id: String(this.nextId++),
      url: valid.url,
      shown: maskUrl(valid.url),
      retries: valid.retries ?? BOUNDS.defaultRetries,
      backoff_ms: valid.backoff_ms ?? BOUNDS.defaultBackoffMs,
    }
    if (valid.events !== undefined) hook.events = new Set(valid.events)
    if (valid.secret !== undefined) hook.secret = valid.secret
    this.hooks.push(hook)
    if (keep) this.startup.push(hook)
    this.listenWhileNeeded()
    return { id: hook.id }
  }

  /** The webhooks registered, oldest first. */
  list(): Webhook[] {
    return this.hooks.map((hook) => ({
      id: hook.id,
      url: hook.shown,
      ...(hook.events ? { events: SITE_EVENT_TYPES.filter((type) => hook.events!.has(type)) } : {}),
      signed: hook.secret !== undefined,
      retries: hook.retries,
      backoff_ms: hook.backoff_ms,
    }))
  }

  /** Deletes one webhook (its deliveries not yet sent are dropped); false for an unknown id. */
  remove(id: string): boolean {
    const before = this.hooks.length
    this.hooks = this.hooks.filter((hook) => hook.id !== id)
    this.listenWhileNeeded()
    return this.hooks.length < before
  }

  /** Deletes every webhook, those given at start included. */
  clear(): void {
    this.hooks = []
    this.listenWhileNeeded()
  }

  /** Back to the webhooks given at start (deleted or not), with no delivery pending and an empty log. */
  reset(): void {
    this.hooks = [...this.startup]
    this.listenWhileNeeded()
    this.abandon()
    this.clearDeliveries()
  }

  /** Drops every delivery not yet finished (attempts in flight end unrecorded). */
  abandon(): void {
    this.generation++
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
    this.ready.length = 0
    this.pending = 0
    this.wake()
  }

  /** The attempts kept (newest last), how many deliveries are not finished and how many were dropped. */
  deliveries(): Deliveries {
    const attempts = [...this.logs.values()].flat().sort((a, b) => a.id - b.id)
    return { pending: this.pending, dropped: this.dropped, deliveries: structuredClone(attempts) }
  }

  /** Empties the log of attempts and the count of drops. */
  clearDeliveries(): void {
    this.logs = new Map()
    this.dropped = 0
  }

  /** Resolves once no delivery is queued, in flight or waiting to retry. */
  settle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  /** The engine does the work of an event (and its reads) only while a webhook listens. */
  private listenWhileNeeded(): void {
    if (this.hooks.length > 0) {
      this.unsubscribe ??= this.hub.subscribe((event) => this.dispatch(event))
    } else if (this.unsubscribe) {
      this.unsubscribe()
      this.unsubscribe = undefined
    }
  }

  /** Queues the event for every webhook that wants it; called while the causing rule runs. */
  private dispatch(event: SiteEvent): void {
    const body = JSON.stringify(event)
    for (const hook of this.hooks) {
      if (hook.events && !hook.events.has(event.event_type)) continue
      const job = { hook, event, body, delivery: this.nextDelivery++, attempt: 1, generation: this.generation }
      if (this.pending >= BOUNDS.pending) {
        this.drop(`${BOUNDS.pending} deliveries are already pending`)
        continue
      }
      this.pending++
      // Not before the causing call has answered: its answer is written within this turn.
      setImmediate(() => this.enqueue(job))
    }
  }

  private enqueue(job: Job): void {
    if (job.generation !== this.generation) return
    if (!this.hooks.includes(job.hook)) {
      this.drop('its webhook was deleted')
      return this.finish()
    }
    this.ready.push(job)
    this.pump()
  }

  private pump(): void {
    while (this.inFlight < BOUNDS.inFlight && this.ready.length > 0) {
      const job = this.ready.shift()!
      this.inFlight++
      void this.attempt(job).finally(() => {
        this.inFlight--
        this.pump()
      })
    }
  }

  private async attempt(job: Job): Promise<void> {
    const { hook } = job
    const timestamp = String(Date.now())
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'mobisite-webhooks' }
    if (hook.secret !== undefined) {
      headers[SIGNATURE_TIMESTAMP_HEADER] = timestamp
      headers[SIGNATURE_HEADER] = signWebhook(hook.secret, timestamp, job.body)
    }
    const start = performance.now()
    let status = 0
    let error = literalRefusal(hook.url, this.policy)
    // A refused destination stays refused: no retry would reach it.
    let final = error !== undefined
    if (error === undefined) {
      try {
        status = await post(hook.url, headers, job.body, this.lookup)
        if (status < 200 || status > 299) error = `the receiver answered ${status}`
      } catch (failure) {
        final = failure instanceof ForbiddenDestinationError
        error = final ? (failure as Error).message : failureOf(failure)
      }
    }
    if (job.generation !== this.generation) return
    const duration = performance.now() - start
    if (error === undefined) {
      this.record(job, status, duration, undefined, 'delivered')
      return this.finish()
    }
    if (final || job.attempt > hook.retries) {
      this.record(job, status, duration, error, 'failed')
      return this.finish()
    }
    this.record(job, status, duration, error, 'retrying')
    const timer = setTimeout(
      () => {
        this.timers.delete(timer)
        this.enqueue({ ...job, attempt: job.attempt + 1 })
      },
      Math.min(BOUNDS.maxWaitMs, hook.backoff_ms * 2 ** (job.attempt - 1)),
    )
    this.timers.add(timer)
  }

  private record(
    job: Job,
    status: number,
    duration: number,
    error: string | undefined,
    outcome: DeliveryAttempt['outcome'],
  ): void {
    const entry: DeliveryAttempt = {
      id: this.nextAttempt++,
      delivery: job.delivery,
      webhook_id: job.hook.id,
      url: job.hook.shown,
      attempt: job.attempt,
      event: job.event,
      status,
      duration_ms: Math.round(duration * 1000) / 1000,
      outcome,
    }
    if (error !== undefined) entry.error = error
    let log = this.logs.get(job.hook.id)
    if (log === undefined) this.logs.set(job.hook.id, (log = []))
    log.push(entry)
    if (log.length > BOUNDS.logPerWebhook) log.shift()
  }

  /** A delivery that is never sent: counted and reported, not listed. */
  private drop(reason: string): void {
    this.dropped++
    this.onDrop?.(reason)
  }

  private finish(): void {
    this.pending--
    if (this.pending === 0) this.wake()
  }

  private wake(): void {
    const waiters = this.waiters
    this.waiters = []
    for (const resolve of waiters) resolve()
  }
}
