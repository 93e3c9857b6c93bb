/**
 * How MemoryStore keeps records: JSON-shaped deep copies in and out, patches
 * applied to a copy, and expectations compared against the stored record.
 */
import type { SiteRecord } from './contract.js'

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
    // A plain assignment to "__proto__" would set the prototype instead of a key.
    if (key === '__proto__') Object.defineProperty(out, key, { value: copy(item), enumerable: true, writable: true, configurable: true })
    else out[key] = copy(item)
  }
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
