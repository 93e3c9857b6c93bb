/**
 * How every adapter is put together. Each part of the Store contract
 * (lib/store/contract/) is served by a file of the same name in the
 * adapter's folder (memory/, redis/, postgres/), which builds an object
 * typed by that part's interface:
 *
 * | part        | interface        | file          |
 * |-------------|------------------|---------------|
 * | `accounts`  | `AccountsStore`  | accounts.ts   |
 * | `sites`     | `SitesStore`     | sites.ts      |
 * | `analytics` | `AnalyticsStore` | analytics.ts  |
 * | `sso`       | `SsoStore`       | sso.ts        |
 * | `state`     | `StateStore`     | state.ts      |
 *
 * {@link ComposedStore} hands each call to its part, so the delegation is
 * written once for every adapter; an adapter's store.ts only builds the parts
 * and closes its connection. Its methods come from each part's table of
 * operations (the `*_OPERATIONS` beside each interface), so a new operation
 * is added to its part's file and to the adapters, never here.
 */
import { ACCOUNTS_OPERATIONS, type AccountsStore } from '../contract/accounts.js'
import { ANALYTICS_OPERATIONS, type AnalyticsStore } from '../contract/analytics.js'
import type { Store } from '../contract/index.js'
import type { Operations } from '../contract/shared.js'
import { SITES_OPERATIONS, type SitesStore } from '../contract/sites.js'
import { SSO_OPERATIONS, type SsoStore } from '../contract/sso.js'
import { STATE_OPERATIONS, type StateStore } from '../contract/state.js'

/** The five parts an adapter is made of, one object per part of the contract. */
export interface StoreParts {
  accounts: AccountsStore
  sites: SitesStore
  analytics: AnalyticsStore
  sso: SsoStore
  state: StateStore
}

/** Every part's table of operations, by part. */
export const PART_OPERATIONS: { readonly [P in keyof StoreParts]: Operations<StoreParts[P]> } = {
  accounts: ACCOUNTS_OPERATIONS,
  sites: SITES_OPERATIONS,
  analytics: ANALYTICS_OPERATIONS,
  sso: SSO_OPERATIONS,
  state: STATE_OPERATIONS,
}

// The class declares no method of the parts itself: this interface, merged
// with it, gives it their types, and its static block their prototype methods.
export interface ComposedStore extends AccountsStore, SitesStore, AnalyticsStore, SsoStore, StateStore {}

/**
 * A {@link Store} whose every method is served by one of its {@link StoreParts};
 * the subclass adds `close`. The methods are ordinary prototype methods, so a
 * subclass may override any of them and call `super`.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the merged interface only types the methods the static block defines.
export abstract class ComposedStore implements Store {
  constructor(private readonly parts: StoreParts) {}

  abstract close(): Promise<void>

  /**
   * One prototype method per operation, defined as a class method would be
   * (writable, configurable, not enumerable, named after the operation), so
   * they exist before any store is made: a test may stub one on the prototype.
   */
  static {
    for (const [part, operations] of Object.entries(PART_OPERATIONS) as [keyof StoreParts, object][]) {
      for (const name of Object.keys(operations)) {
        const method = {
          [name](this: ComposedStore, ...args: unknown[]): unknown {
            const served = this.parts[part] as unknown as Record<string, (...args: unknown[]) => unknown>
            return served[name]!(...args)
          },
        }[name]
        Object.defineProperty(ComposedStore.prototype, name, { value: method, writable: true, configurable: true })
      }
    }
  }
}
