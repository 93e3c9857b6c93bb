/**
 * The orders every store sorts its answers in, so that they all answer alike:
 * strings by UTF-16 code units, which for the ASCII names the engine accepts
 * is the byte order Redis and PostgreSQL (`COLLATE "C"`) use.
 */

/** Compares two strings by code units. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** A comparator ordering items by a text key. */
export const byText =
  <T>(key: (item: T) => string) =>
  (a: T, b: T): number =>
    compareText(key(a), key(b))

/** Orders dimension keys element by element; a key that is a prefix of the other comes first. */
export function compareKeys(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const order = compareText(a[i]!, b[i]!)
    if (order !== 0) return order
  }
  return a.length - b.length
}
