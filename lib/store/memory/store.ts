/**
 * MemoryStore: the default Store, keeping everything in this process. Its
 * state is in data.ts; each area of the contract is served by the file of
 * that name in this folder (see lib/store/shared/composed-store.ts).
 */
import { ComposedStore } from '../shared/composed-store.js'
import { memoryAccounts } from './accounts.js'
import { memoryAnalytics } from './analytics.js'
import { MemoryData } from './data.js'
import { memorySites } from './sites.js'
import { memorySso } from './sso.js'
import { memoryState } from './state.js'

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
 * - After `close()` every call rejects with StoreUnavailableError, as a
 *   store whose backend is gone would.
 */
export class MemoryStore extends ComposedStore {
  private readonly data: MemoryData

  constructor() {
    const data = new MemoryData()
    const sites = memorySites(data)
    const accounts = memoryAccounts(data)
    super({
      sites,
      accounts,
      analytics: memoryAnalytics(data),
      sso: memorySso(data),
      state: memoryState(data, { sites, accounts }),
    })
    this.data = data
  }

  /** Drops all data; every later call rejects with StoreUnavailableError. Closing twice is harmless. */
  async close(): Promise<void> {
    this.data.close()
  }
}
