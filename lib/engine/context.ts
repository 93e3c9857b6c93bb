/**
 * What every engine module works with: the store, the clock and the options.
 * Engine modules are plain functions over a context, so each rule lives in one
 * small file and none of them knows about HTTP.
 */
import type { Site } from '../../types/index.js'
import type { Store } from '../store/contract.js'
import type { MasterRegistry } from './masters.js'
import type { Caller } from './types.js'

/** Shared state of one engine instance. */
export interface EngineContext {
  readonly store: Store
  /** The injected clock. */
  readonly now: () => Date
  readonly builder: (site: Site) => Promise<void>
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
}

/** An authenticated master account and the context it acts in. */
export interface CallContext extends EngineContext {
  readonly caller: Caller
}
