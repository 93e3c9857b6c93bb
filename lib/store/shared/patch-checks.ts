/**
 * Checks every store applies to what the engine hands it, before anything
 * changes. The engine never sends such input; the checks keep a bug from
 * corrupting stored records, and make every adapter fail the same way.
 */
import type { SiteExpectation } from '../contract/index.js'

/** Keys a patch may never touch: identity, creation time, and the once-only first publish. */
const FROZEN_SITE_KEYS: ReadonlySet<string> = new Set([
  'site_name',
  'owner',
  'created_at',
  'first_published_at',
  '__proto__',
])
/** Keys every SiteRecord has; a patch removing one would leave a broken record. */
const REQUIRED_SITE_KEYS: ReadonlySet<string> = new Set([
  'original_site_url',
  'auto_sync_cache_ttl',
  'initial',
  'modified_at',
  'build',
])
const ACCOUNT_PATCH_KEYS: ReadonlySet<string> = new Set(['first_name', 'last_name', 'email', 'lang'])
const EXPECTATION_KEYS: ReadonlySet<string> = new Set(['created_at', 'build'])

/** The defined entries of a patch: an `undefined` value means "absent", as in JSON. */
export function definedEntries(patch: object): [string, unknown][] {
  return Object.entries(patch).filter(([, value]) => value !== undefined)
}

/**
 * The defined entries of a site patch. Rejects (TypeError) one touching
 * site_name, owner, created_at, first_published_at or a key `reserved` says
 * is the store's own, or removing a field every site has.
 */
export function sitePatchEntries(patch: object, reserved: (key: string) => boolean = () => false): [string, unknown][] {
  const entries = definedEntries(patch)
  for (const [key, value] of entries) {
    if (FROZEN_SITE_KEYS.has(key) || reserved(key)) throw new TypeError(`updateSite: ${key} cannot be patched`)
    if (value === null && REQUIRED_SITE_KEYS.has(key)) throw new TypeError(`updateSite: ${key} cannot be removed`)
  }
  return entries
}

/** The defined entries of an account patch; a key other than first_name, last_name, email or lang rejects (TypeError). */
export function accountPatchEntries(patch: object): [string, unknown][] {
  const entries = definedEntries(patch)
  for (const [key] of entries) {
    if (!ACCOUNT_PATCH_KEYS.has(key)) throw new TypeError(`updateAccount: ${key} cannot be patched`)
  }
  return entries
}

/**
 * The given fields of a site expectation. An unknown key rejects (TypeError):
 * silently ignoring a misspelt precondition would turn the guard into a no-op.
 */
export function expectationEntries(expect: SiteExpectation | undefined, method: string): [string, unknown][] {
  const entries = definedEntries(expect ?? {})
  for (const [key] of entries) {
    if (!EXPECTATION_KEYS.has(key)) throw new TypeError(`${method}: ${key} cannot be expected`)
  }
  return entries
}
