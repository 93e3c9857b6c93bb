/**
 * How MemoryStore keeps records: JSON-shaped deep copies in and out, patches
 * applied to a copy, and expectations compared against the stored record.
 */
import type { SiteProperties } from '../../../types/index.js'
import type { SiteRecord } from '../contract/index.js'

/**
 * Deep copy with JSON semantics. Used both ways: stored records then look
 * exactly as a serialising store (Redis, PostgreSQL) would return them, with
 * keys holding `undefined` dropped, and callers never share objects with the store.
 */
export function copy<T>(value: T): T {
  // Hand-rolled rather than a JSON round trip: several times faster for
  // record-sized objects, and getSite is called often.
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((item: unknown) => (item === undefined ? null : copy(item))) as T
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue
    setKey(out, key, copy(item))
  }
  return out as T
}

/** Sets a key; a plain assignment to "__proto__" would set the prototype instead. */
function setKey(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
  else out[key] = value
}

/**
 * {@link copy} of a site record in which a creation property still equal to
 * the site's own (the same value, or the same object, as the engine hands
 * them over) is one shared value, not a second copy: most sites never change
 * their creation properties, and nothing stored is ever changed in place
 * (patches build a new record), so sharing is safe and halves what they cost.
 */
export function copySite(site: SiteRecord): SiteRecord {
  const out = {} as Record<string, unknown>
  const source = site as unknown as Record<string, unknown>
  for (const key in source) {
    if (key === 'initial' || !Object.hasOwn(source, key)) continue
    const value = source[key]
    if (value !== undefined) setKey(out, key, copy(value))
  }
  const given = site.initial as unknown as Record<string, unknown> | null | undefined
  if (given === null || typeof given !== 'object') {
    if (given !== undefined) out.initial = copy(given)
    return out as unknown as SiteRecord
  }
  const initial = {} as Record<string, unknown>
  for (const key in given) {
    if (!Object.hasOwn(given, key)) continue
    const value = given[key]
    if (value === undefined) continue
    setKey(initial, key, value === source[key] ? out[key] : copy(value))
  }
  out.initial = initial as unknown as SiteProperties
  return out as unknown as SiteRecord
}

/**
 * `{ ...record }`, key by key (same keys, same order, "__proto__" an own key
 * as a spread makes it), for records that get more fields next: in Node 20's
 * V8 a spread followed by literal properties costs microseconds per object.
 */
export function shallowCopy<T extends object>(record: T): T {
  const out: Record<string, unknown> = {}
  const source = record as Record<string, unknown>
  for (const key of Object.keys(source)) setKey(out, key, source[key])
  return out as T
}

/** Whether the stored site holds every expected value (all are scalars: a number or a build-state string). */
export function meets(site: SiteRecord, expected: [string, unknown][]): boolean {
  return expected.every(([key, value]) => (site as unknown as Record<string, unknown>)[key] === value)
}

export function applyPatch<T extends object>(record: T, entries: [string, unknown][]): T {
  const next = { ...record } as Record<string, unknown>
  for (const [key, value] of entries) {
    if (value === null) delete next[key]
    else next[key] = copy(value)
  }
  return next as T
}
