/**
 * The test-double controls of one engine, in process: what `/__admin` serves
 * over HTTP, with the same names, validation and errors. `createControls`
 * layers a clock and a builder over the engine's own (once per engine) and
 * remembers the master accounts that exist at that moment: reset keeps those.
 */
import type { Billing } from '../../types/index.js'
import type { EngineContext } from '../engine/context.js'
import { contextOf } from '../engine/context-access.js'
import type { Engine } from '../engine/types.js'
import { ServiceError } from '../errors.js'
import type { ApiHooks } from '../http/hooks.js'
import { RateLimit, type RateLimitOptions } from '../http/rate-limit.js'
import { validateCountQuery, validateRateLimit, validateWebhook } from '../schema/admin-webhooks.js'
import {
  validateBuilder,
  validateClockAdvance,
  validateClockSet,
  validateFault,
  validateJournalQuery,
} from '../schema/admin.js'
import type { MasterRecord } from '../store/contract/index.js'
import { asServiceError, isOutage } from '../engine/shared/outage.js'
import { BuilderControl, type BuilderOverride } from './builder.js'
import { ClockControl, type ClockState } from './clock.js'
import { FaultList, type Fault, type FaultSpec } from './faults.js'
import { Journal, asText, journalFilter, type JournalEntry, type JournalFilter } from './journal.js'
import { nearMisses, type NearMiss } from './near-miss.js'
import { recordEvents } from './record-events.js'
import { seed, snapshot, timeOf, type SeedBody } from './seed.js'
import type { DestinationPolicy } from './webhook-destination.js'
import { Webhooks, type Deliveries, type Webhook, type WebhookSpec } from './webhooks.js'

/** Options of {@link createControls}; they apply when the engine's controls are first made. */
export interface ControlsOptions {
  /** Journal entries kept (the oldest go first). Default 10,000. */
  journalSize?: number
  /** Random numbers in [0, 1) for fault `probability`. Default Math.random. */
  random?: () => number
  /**
   * Where webhooks may deliver: `allowLinkLocal` lets them reach link-local and
   * cloud-metadata addresses (refused by default); `resolve` replaces DNS for
   * host names (tests inject one so that nothing leaves the machine).
   */
  webhookDestinations?: DestinationPolicy
}

/** `GET /__admin/health`. */
export interface Health {
  status: 'ok' | 'unavailable'
  /** memory, redis, postgres, or the lower-cased class name of another store. */
  store: string
  message?: string
}

/** What startServer's options set, and reset comes back to. */
export interface StartupSettings {
  /** Webhooks registered at start; reset keeps them. */
  webhooks?: readonly WebhookSpec[]
  /** The rate limit at start; reset sets it again. Default: off. */
  rateLimit?: RateLimitOptions
  /** Let webhooks deliver to link-local and cloud-metadata addresses (webhook-destination.ts). Default false. */
  allowLinkLocalWebhooks?: boolean
}

/** `GET /__admin/rate-limit`: whether a rate limit is on, and its setting. */
export interface RateLimitState {
  on: boolean
  perSecond?: number
}

/** A store's kind for health: MemoryStore → memory. */
function kindOf(store: object): string {
  return store.constructor.name.replace(/Store$/, '').toLowerCase() || 'custom'
}

/** The controls of one engine; see the module comment. */
export class Controls {
  /** The clock layered over the engine's `now`. */
  private readonly clockControl: ClockControl
  private readonly builderControl: BuilderControl
  private readonly journal: Journal
  private readonly faultList: FaultList
  private readonly ctx: EngineContext
  /** The masters that existed when the controls were made: reset restores them. */
  private readonly baseline: Promise<MasterRecord[]>
  private readonly hooks: Webhooks
  private readonly limit = new RateLimit()
  private startupRateLimit: RateLimitOptions | undefined

  /** Hooks for `apiRouter(engine, { hooks })`: feed the journal and apply faults. */
  readonly apiHooks: ApiHooks

  /** Use {@link createControls}: one Controls per engine. */
  constructor(
    readonly engine: Engine,
    options: ControlsOptions = {},
  ) {
    const ctx = contextOf(engine)
    this.ctx = ctx
    this.clockControl = new ClockControl(ctx.now)
    this.builderControl = new BuilderControl(ctx.builder)
    ctx.now = this.clockControl.now
    ctx.builder = this.builderControl.build
    this.journal = new Journal(this.clockControl.now, options.journalSize)
    this.faultList = new FaultList(options.random)
    this.baseline = ctx.store.exportState().then((dump) => dump.masters)
    // A store down at start-up is reported when reset needs the baseline, not as an unhandled rejection.
    this.baseline.catch(() => {})
    this.hooks = new Webhooks(ctx.events, options.webhookDestinations)
    this.apiHooks = {
      fault: (call) => this.faultList.match(call),
      record: (call) => this.journal.add(call),
      rateLimit: this.limit,
    }
  }

  /**
   * What the server starts with (startServer's `webhooks` and `rateLimit`):
   * registers the webhooks as ones reset keeps, and sets the rate limit reset
   * comes back to. Throws InvalidInput for an invalid entry, before changing anything.
   */
  useStartupSettings(settings: StartupSettings): void {
    if (settings.allowLinkLocalWebhooks) this.hooks.allowLinkLocal()
    const rateLimit = settings.rateLimit === undefined ? undefined : validateRateLimit(settings.rateLimit)
    const checked = (settings.webhooks ?? []).map((spec, i) => {
      try {
        return validateWebhook(spec)
      } catch (error) {
        throw new ServiceError('InvalidInput', `webhooks[${i}]: ${(error as Error).message}`)
      }
    })
    for (const spec of checked) this.hooks.add(spec, true)
    this.startupRateLimit = rateLimit
    this.limit.set(rateLimit)
  }

  /** Resolves once the start-up masters are known (startServer waits for it). */
  async ready(): Promise<void> {
    await this.baseline
  }

  /** Whether the store answers. */
  async health(): Promise<Health> {
    const store = kindOf(this.ctx.store)
    try {
      await this.ctx.store.getMaster('')
      return { status: 'ok', store }
    } catch (error) {
      if (!isOutage(error)) throw error
      return { status: 'unavailable', store, message: 'the store cannot be reached' }
    }
  }

  /**
   * Empties sites, accounts, grants, billing, analytics, limits, journal and
   * faults; keeps the start-up masters; real time; default builder. Builds in
   * flight are abandoned and their outcomes discarded.
   */
  async reset(): Promise<void> {
    const masters = await this.baseline
    this.ctx.generation.value++
    this.ctx.builds.clear()
    await this.guard(() => this.ctx.store.clearState())
    await this.guard(() =>
      this.ctx.store.importState({ masters, sites: [], accounts: [], grants: [], billing: [], analytics: [] }),
    )
    this.ctx.masters.keepOnly(new Set(masters.map((m) => m.user)))
    this.clockControl.reset()
    this.builderControl.reset()
    this.journal.clear()
    this.faultList.clear()
    this.hooks.reset()
    this.limit.set(this.startupRateLimit)
  }

  /** Adds a seed body, all or nothing; every problem is listed in one InvalidInput. */
  async seed(body: SeedBody | unknown): Promise<void> {
    try {
      await this.guard(() => seed(this.engine, this.ctx, body, (ms) => this.clockControl.freeze(ms)))
    } finally {
      // Masters written straight into the store: no cached verdict may hide them.
      this.ctx.masters.forget()
    }
  }

  /** The whole state as a seed body. */
  snapshot(): Promise<SeedBody> {
    return this.guard(() => snapshot(this.ctx))
  }

  /** `GET /__admin/clock`. */
  clock(): ClockState {
    return this.clockControl.state()
  }

  /** Freezes the clock: `{ now: 'YYYY-MM-DDThh:mm:ss' }` (or a Date). */
  setClock(body: { now: string | Date } | unknown): ClockState {
    const now = (body as { now?: unknown } | null)?.now
    if (now instanceof Date) {
      if (Number.isNaN(now.getTime())) throw new ServiceError('InvalidInput', 'now must be a valid Date')
      return this.clockControl.freeze(now.getTime())
    }
    return this.clockControl.freeze(timeOf(validateClockSet(body).now, 'now'))
  }

  /** Moves the clock forward: `{ seconds: n }`. */
  advanceClock(body: { seconds: number } | unknown): ClockState {
    return this.clockControl.advance(validateClockAdvance(body).seconds)
  }

  /** Back to real time (the engine's own `now`). */
  resetClock(): ClockState {
    return this.clockControl.reset()
  }

  /** Makes following builds fail or take time; replaces the previous override. */
  setBuilder(body: BuilderOverride | unknown): void {
    this.builderControl.set(validateBuilder(body))
  }

  /** The builder override in force (with its remaining `times`), if any. */
  builder(): BuilderOverride | undefined {
    return this.builderControl.get()
  }

  /** Back to the engine's own builder. */
  resetBuilder(): void {
    this.builderControl.reset()
  }

  /** Resolves once every async build in flight has settled. */
  async settleBuilds(): Promise<void> {
    while (this.ctx.pending.size > 0 || this.ctx.builds.size > 0) {
      await Promise.all([...this.ctx.pending, ...[...this.ctx.builds.values()].map((b) => b.catch(() => {}))])
    }
  }

  /** Records one visit or an array of them, all or nothing. */
  recordVisits(body: unknown): Promise<void> {
    return this.guard(() => recordEvents(this.engine, this.ctx, 'visits', body))
  }

  /** Records one activity or an array of them, all or nothing. */
  recordActivities(body: unknown): Promise<void> {
    return this.guard(() => recordEvents(this.engine, this.ctx, 'activities', body))
  }

  /** `engine.billing(user)`. */
  billing(user: string): Promise<Billing> {
    return this.engine.billing(user)
  }

  /** The journal, newest last; query values may be strings, as over HTTP. */
  requests(filter: JournalFilter | Record<string, unknown> = {}): { requests: JournalEntry[] } {
    return { requests: this.journal.list(journalFilter(validateJournalQuery(asText(filter)))) }
  }

  /** How many journal entries match the journal's filters (method, route, status, user). */
  countRequests(filter: Omit<JournalFilter, 'limit'> | Record<string, unknown> = {}): { count: number } {
    return { count: this.journal.count(journalFilter(validateCountQuery(asText(filter)))) }
  }

  /** Calls that matched no route or were refused for their shape, oldest first, each with the nearest route and why. */
  unmatchedRequests(): { unmatched: NearMiss[] } {
    return { unmatched: nearMisses(this.journal.list()) }
  }

  /** Empties the journal. */
  clearRequests(): void {
    this.journal.clear()
  }

  /** Adds a fault; answers its id. */
  addFault(body: FaultSpec | unknown): { id: string } {
    return { id: this.faultList.add(validateFault(body)).id }
  }

  /** The faults in force, oldest first, each with its remaining `times`. */
  faults(): { faults: Fault[] } {
    return { faults: this.faultList.list() }
  }

  /** Deletes one fault; an unknown id is NotFound. */
  deleteFault(id: string): void {
    if (!this.faultList.remove(id)) throw new ServiceError('NotFound', `no fault with id ${id}`)
  }

  /** Deletes every fault. */
  clearFaults(): void {
    this.faultList.clear()
  }

  /** Registers a webhook for the engine's site events; answers its id. */
  addWebhook(body: WebhookSpec | unknown): { id: string } {
    return this.hooks.add(body)
  }

  /** The webhooks registered, oldest first (a secret shows only as `signed`). */
  webhooks(): { webhooks: Webhook[] } {
    return { webhooks: this.hooks.list() }
  }

  /** Deletes one webhook; an unknown id is NotFound. */
  deleteWebhook(id: string): void {
    if (!this.hooks.remove(id)) throw new ServiceError('NotFound', `no webhook with id ${id}`)
  }

  /** Deletes every webhook, those given at start included (reset brings those back). */
  clearWebhooks(): void {
    this.hooks.clear()
  }

  /** The newest attempts of each webhook (newest last), how many deliveries are not finished, and how many were dropped. */
  webhookDeliveries(): Deliveries {
    return this.hooks.deliveries()
  }

  /** Called with the reason of every webhook delivery dropped unsent (the server logs and counts them). */
  onWebhookDrop(listener: ((reason: string) => void) | undefined): void {
    this.hooks.onDrop = listener
  }

  /** Empties the log of delivery attempts. */
  clearWebhookDeliveries(): void {
    this.hooks.clearDeliveries()
  }

  /** Resolves once no delivery is queued, in flight or waiting to retry. */
  settleWebhooks(): Promise<void> {
    return this.hooks.settle()
  }

  /** Drops every delivery not yet finished: the server calls it when it closes. */
  abandonWebhookDeliveries(): void {
    this.hooks.abandon()
  }

  /** The rate limit in force. */
  rateLimit(): RateLimitState {
    const limit = this.limit.get()
    return limit === undefined ? { on: false } : { on: true, perSecond: limit.perSecond }
  }

  /** Turns the per-account rate limit on (or changes it): `{ perSecond }`. */
  setRateLimit(body: RateLimitOptions | unknown): RateLimitState {
    this.limit.set(validateRateLimit(body))
    return this.rateLimit()
  }

  /** Turns the rate limit off. */
  clearRateLimit(): RateLimitState {
    this.limit.set(undefined)
    return this.rateLimit()
  }
  /** Store outages become ServiceUnavailable, as everywhere else. */
  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (error) {
      throw asServiceError(error)
    }
  }
}

const made = new WeakMap<Engine, Controls>()

/**
 * The test-double controls of an engine made by createEngine: made on the
 * first call (layering the clock and builder, noting the current masters as
 * those reset keeps), the same object afterwards.
 */
export function createControls(engine: Engine, options: ControlsOptions = {}): Controls {
  let controls = made.get(engine)
  if (!controls) made.set(engine, (controls = new Controls(engine, options)))
  return controls
}
