/**
 * What every engine module works with: the store, the clock and the options.
 * Engine modules are plain functions over a context, so each rule lives in one
 * small file and none of them knows about HTTP.
 */
import type { Site } from '../../types/index.js'
import type { Store } from '../store/contract/index.js'
import type { EventHub } from './rules/events.js'
import type { Caller, MasterRegistry } from './auth/masters.js'
import type { RecordingQueue } from './recording/recording-queue.js'

/** Shared state of one engine instance. */
export interface EngineContext {
  readonly store: Store
  /** The injected clock. Writable so the test-double controls can layer over it. */
  now: () => Date
  /** Writable so the test-double controls can layer over it. */
  builder: (site: Site) => Promise<void>
  /** Keeps background work (async builds) for `close()` to wait for; never rejects. */
  readonly track: (work: Promise<unknown>) => void
  /** Builds in flight in this process, by site name, so concurrent triggers share one. */
  readonly builds: Map<string, Promise<void>>
  /**
   * The master accounts: authentication, its verified-credential cache, and
   * the masters this process re-creates when the store lost them. Code that
   * changes masters in the store directly calls `masters.forget()`.
   */
  readonly masters: MasterRegistry
  /** The background work `track` keeps, until it settles. */
  readonly pending: Set<Promise<unknown>>
  /**
   * Bumped when the test-double controls reset the state: a build that began
   * under an older generation drops its outcome instead of writing it into
   * the new state. Shared by reference, so call contexts (copies) see bumps.
   */
  readonly generation: { value: number }
  /** Random bytes: node:crypto, or a repeatable stream when the engine has a `randomSeed`. */
  readonly randomBytes: (size: number) => Buffer
  /** Site events (events.ts): the rules emit, the test-double webhooks listen. */
  readonly events: EventHub
  /** Every recording goes through it: one store batch per event-loop turn. */
  readonly recorder: RecordingQueue
  /** Days of analytics kept (`analyticsRetentionDays`); undefined: all. */
  readonly retentionDays: number | undefined
}

/** An authenticated master account and the context it acts in. */
export interface CallContext extends EngineContext {
  readonly caller: Caller
}
