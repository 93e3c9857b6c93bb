/**
 * MemoryStore: the default Store, keeping everything in this process. Its
 * state is in data.ts; each area of the contract is served by the file of
 * that name in this folder (see lib/store/shared/composed-store.ts).
 */
import { ComposedStore, PART_OPERATIONS } from '../shared/composed-store.js'
import { memoryAccounts } from './accounts.js'
import { memoryAnalytics } from './analytics.js'
import { MemoryData } from './data.js'
import { memorySites } from './sites.js'
import { memorySso } from './sso.js'
import { captureState, memoryState, type StateCapture } from './state.js'

export type { StateCapture } from './state.js'

/** The methods of the parts that only read (as each part's table marks them); every other call counts toward {@link MemoryStore.revision}. */
const READS: ReadonlySet<string> = new Set(
  Object.values(PART_OPERATIONS).flatMap((operations) =>
    Object.entries(operations).flatMap(([name, access]) => (access === 'read' ? [name] : [])),
  ),
)

/** What the writing methods of every part report to: the count, and who wants to hear of each call. */
interface Changes {
  count: number
  listeners: Set<() => void>
}

/** The part with its writing methods counting each call; reads are left as they are, at no cost. */
function countingWrites<P extends object>(part: P, changes: Changes): P {
  const entries = Object.entries(part).map(([name, method]) => {
    if (READS.has(name) || typeof method !== 'function') return [name, method]
    const write = method as (...args: unknown[]) => unknown
    return [
      name,
      (...args: unknown[]) => {
        changes.count++
        for (const listener of changes.listeners) listener()
        return write(...args)
      },
    ]
  })
  return Object.fromEntries(entries) as P
}

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /**
   * Distinct visitors a site-day (and each of its dimension cells) keeps
   * exactly; past it the day switches to HyperLogLog sketches (2^14
   * registers, about 0.81 % standard error, like Redis), whose memory is
   * fixed, so a flood of random visitor ids cannot grow the heap. Counted as
   * the visitors of the day's system cells added up, so a visitor seen with
   * two browsers counts twice. Default 10,000. A non-negative integer.
   */
  exactVisitors?: number
}

/**
 * The in-memory Store.
 *
 * - Everything keyed by user input is a `Map`, so `__proto__` or `constructor`
 *   are ordinary names.
 * - Records go in and come out as deep copies.
 * - Patches are checked before anything changes: one touching `site_name`,
 *   `owner`, `created_at` or `first_published_at`, or removing (null) a field
 *   every site has, rejects with a TypeError; so does an account patch with a
 *   key other than first_name, last_name, email or lang; so does a site
 *   expectation with a key other than created_at or build.
 * - Unique visitors are exact up to `exactVisitors` a site-day, then
 *   estimated like Redis' (see {@link MemoryStoreOptions}).
 * - After `close()` every call rejects with StoreUnavailableError, as a
 *   store whose backend is gone would.
 */
export class MemoryStore extends ComposedStore {
  private readonly data: MemoryData
  private readonly changes: Changes

  constructor(options: MemoryStoreOptions = {}) {
    const { exactVisitors } = options
    if (exactVisitors !== undefined && !(Number.isInteger(exactVisitors) && exactVisitors >= 0)) {
      throw new TypeError(`exactVisitors must be a non-negative integer, got ${String(exactVisitors)}`)
    }
    const data = new MemoryData(exactVisitors)
    const sites = memorySites(data)
    const accounts = memoryAccounts(data)
    const changes: Changes = { count: 0, listeners: new Set() }
    const counted = <P extends object>(part: P): P => countingWrites(part, changes)
    super({
      sites: counted(sites),
      accounts: counted(accounts),
      analytics: counted(memoryAnalytics(data)),
      sso: counted(memorySso(data)),
      state: counted(memoryState(data, { sites, accounts })),
    })
    this.data = data
    this.changes = changes
  }

  /**
   * How many calls that may change the state this store has taken: it grows
   * with every call but the reads. A writer that persists the state (the test
   * double's state file) compares it to skip writing an unchanged state.
   */
  get revision(): number {
    return this.changes.count
  }

  /**
   * Calls `listener` at each call that may change the state (each one
   * {@link revision} counts), before the call runs; returns a function that
   * stops it. Lets a writer that persists the state note when it first became
   * unwritten without polling.
   */
  onWrite(listener: () => void): () => void {
    const own = () => listener()
    this.changes.listeners.add(own)
    return () => this.changes.listeners.delete(own)
  }

  /**
   * The whole state at this instant, in one synchronous step that copies no
   * stored record, for a writer that serializes a large state a slice at a
   * time while calls go on (the test double's state file): what it holds
   * stays as it was at the call, whatever the store does next. Records are
   * the store's own objects, never to be changed; analytics are copied on
   * write per site until `analytics.next()` has given the last one or
   * `analytics.end()` is called. Throws StoreUnavailableError once the store is closed.
   */
  captureState(): StateCapture {
    return captureState(this.data)
  }

  /** Masters, sites and accounts held: what the size of a {@link captureState} mostly grows with. */
  get recordCount(): number {
    return this.data.masters.size + this.data.sites.size + this.data.accounts.size
  }

  /** Drops all data; every later call rejects with StoreUnavailableError. Closing twice is harmless. */
  async close(): Promise<void> {
    this.data.close()
  }
}
