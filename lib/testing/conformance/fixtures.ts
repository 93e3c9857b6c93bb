/**
 * Shared pieces of the store conformance suite: how a test opens a store, and
 * record builders with sensible defaults.
 */
import type {
  AccountRecord,
  ActivityEvent,
  MasterRecord,
  SiteRecord,
  Store,
  VisitEvent,
} from '../../store/contract/index.js'

/**
 * The part of a test object the suite uses. node-tap's `Test` (the root `t` or
 * any subtest) satisfies it, so the published types need no test framework;
 * another runner can be adapted with a small wrapper.
 */
export interface Tap {
  /** Runs `fn` as a named subtest; the returned promise settles when it ends. */
  test(name: string, fn: (t: Tap) => unknown): Promise<unknown>
  /** Registers cleanup to run when this test ends. */
  teardown(fn: () => unknown): unknown
  ok(value: unknown): unknown
  ok(value: unknown, message: string): unknown
  notOk(value: unknown): unknown
  notOk(value: unknown, message: string): unknown
  /** Strict equality (`===`). */
  equal(found: unknown, wanted: unknown): unknown
  equal(found: unknown, wanted: unknown, message: string): unknown
  /** Strict inequality (`!==`). */
  not(found: unknown, notWanted: unknown): unknown
  not(found: unknown, notWanted: unknown, message: string): unknown
  /** Deep equality, loose about types. */
  same(found: unknown, wanted: unknown): unknown
  same(found: unknown, wanted: unknown, message: string): unknown
  /** Deep equality, strict about types and prototypes. */
  strictSame(found: unknown, wanted: unknown): unknown
  strictSame(found: unknown, wanted: unknown, message: string): unknown
  /** Passes when the promise rejects (with an instance of `wanted`, when given). */
  rejects(promise: Promise<unknown>): Promise<unknown>
  rejects(promise: Promise<unknown>, message: string): Promise<unknown>
  rejects(promise: Promise<unknown>, wanted: new (...args: never[]) => Error, message: string): Promise<unknown>
}

/** Makes a new, EMPTY store each call (a shared store uses a fresh key prefix or schema). */
export type StoreFactory = () => Promise<Store> | Store

/**
 * What a store under test offers, where the contract lets stores differ; the
 * suite holds each store to what it says. The defaults ask the least.
 */
export interface ConformanceOptions {
  /**
   * How the store counts distinct visitors (`unique_visitors`): `'exact'`,
   * or `'estimated'`, within the contract's tolerance (2 %, and at least 1,
   * above one visitor), as RedisStore's HyperLogLog does. Default `'estimated'`.
   */
  uniqueVisitors?: 'exact' | 'estimated'
  /**
   * Whether `exportState` gives visitors as a store-specific sketch
   * (`visitors_sketch`, which only a store of the same kind imports; RedisStore)
   * rather than exact ids (`visitors`). Default false: the suite then checks
   * the exported ids, and that a dump holding sketches is refused.
   */
  visitorSketches?: boolean
}

/** {@link ConformanceOptions} with every default filled in. */
export type Settings = Required<ConformanceOptions>

/** Fills in the defaults of {@link ConformanceOptions}. */
export function settingsOf(options: ConformanceOptions = {}): Settings {
  return { uniqueVisitors: options.uniqueVisitors ?? 'estimated', visitorSketches: options.visitorSketches ?? false }
}

/** An arbitrary fixed instant: 2024-01-01T00:00:00Z. Every fixture time is an offset from it. */
export const T0 = Date.UTC(2024, 0, 1)

/** Seconds after {@link T0}, in epoch ms. */
export const at = (seconds: number): number => T0 + seconds * 1000

/** Opens a fresh store for this test and closes it when the test ends. */
export async function open(t: Tap, factory: StoreFactory): Promise<Store> {
  const store = await factory()
  t.teardown(() => store.close())
  return store
}

/** A minimal valid site record; `over` adds or replaces fields. */
export function siteRecord(site_name: string, owner: string, over: Partial<SiteRecord> = {}): SiteRecord {
  const original_site_url = `https://www.example.com/${encodeURIComponent(site_name)}`
  return {
    site_name,
    owner,
    original_site_url,
    auto_sync_cache_ttl: 'SHORT',
    initial: { original_site_url, auto_sync_cache_ttl: 'SHORT' },
    created_at: T0,
    modified_at: T0,
    build: 'built',
    ...over,
  }
}

/** A site record with every optional field filled, nested data included. */
export function fullSiteRecord(site_name: string, owner: string): SiteRecord {
  const business = {
    business_name: 'Trattoria',
    phone_number: '+1 555 0100',
    address: { street: '1 Main St', city: 'Springfield', state: 'IL', country: 'US', zip_code: '62701' },
    reservation_info: [
      { restaurant_id: 'r-1', location: 'Downtown', country: 'US' },
      { restaurant_id: 'r-2', location: 'Airport', country: 'US' },
    ],
  }
  const initial = {
    original_site_url: 'https://www.trattoria.example/',
    preview_site_url: 'https://preview.trattoria.example/',
    site_domain: 'm.trattoria.example',
    auto_sync_cache_ttl: 'LONG' as const,
    site_vertical: 'restaurant',
    site_vertical_category: 'italian',
    site_business_info: business,
    external_uid: 'ext-full',
  }
  return {
    site_name,
    owner,
    ...structuredClone(initial),
    initial,
    created_at: at(1),
    modified_at: at(2),
    published_at: at(3),
    first_published_at: at(3),
    redirect_confirmed_at: at(4),
    cache_reset_at: at(5),
    build: 'pending',
    publish_when_built: true,
  }
}

/** A sub-user account record; `over` adds or replaces fields. */
export function accountRecord(account_name: string, owner: string, over: Partial<AccountRecord> = {}): AccountRecord {
  return {
    account_name,
    owner,
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada@example.com',
    lang: 'en',
    created_at: T0,
    ...over,
  }
}

/** A master account record. */
export function masterRecord(user: string, partner = false): MasterRecord {
  return { user, partner, salt: '00ff', password_hash: 'ab'.repeat(32) }
}

/** Names that break stores keeping user input in plain objects. */
export const TRICKY_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'] as const

/** A visit with neutral dimension values; `over` replaces fields. */
export function visitEvent(
  site_name: string,
  day: string,
  visitor_id: string,
  over: Partial<VisitEvent> = {},
): VisitEvent {
  return {
    site_name,
    day,
    visitor_id,
    page_views: 1,
    browser: 'Chrome 120',
    os: 'Android',
    country: 'US',
    region: 'CA',
    ...over,
  }
}

/** An activity with neutral dimension values. */
export function activityEvent(
  site_name: string,
  day: string,
  kind: ActivityEvent['kind'],
  over: Partial<ActivityEvent> = {},
): ActivityEvent {
  return { site_name, day, kind, browser: 'Chrome 120', os: 'Android', country: 'US', region: 'CA', ...over }
}
