/**
 * Response header values written the way Express writes them, so the edge
 * adapter's answers equal the middleware's byte for byte: `Location` as
 * `res.location()` encodes it, `Vary` merged as `res.vary()` merges it, and
 * a `Link` target made safe inside `<…>`. Runtime-neutral.
 */

/**
 * `Location` as Express's `res.location()` writes it (the `encodeurl`
 * package, MIT: characters a URL may not hold are percent-encoded, existing
 * escapes kept, lone surrogates become U+FFFD).
 */
export function encodeLocation(url: string): string {
  return url.replace(SURROGATE, (_, pair: string | undefined) => pair ?? '\uFFFD').replace(UNSAFE, encodeURI)
}
const UNSAFE = /(?:[^\x21\x23-\x3B\x3D\x3F-\x5F\x61-\x7A\x7C\x7E]+|%+(?![0-9A-Fa-f]{2})){1,1024}/g
const SURROGATE = /([\uD800-\uDBFF][\uDC00-\uDFFF])|[\uD800-\uDFFF]/g

/**
 * `existing` with every field of `fields` it lacks appended, compared
 * without letter case; `*` absorbs everything (the `vary` package's rule,
 * which Express's `res.vary()` applies).
 */
export function mergeVary(existing: string | null | undefined, fields: string): string {
  if (existing === undefined || existing === null) return fields
  if (existing === '*') return existing
  const have = fieldsOf(existing.toLowerCase())
  const adding = fieldsOf(fields)
  if (adding.includes('*') || have.includes('*')) return '*'
  let merged = existing
  for (const field of adding) {
    const lower = field.toLowerCase()
    if (have.includes(lower)) continue
    have.push(lower)
    merged = merged ? `${merged}, ${field}` : field
  }
  return merged
}

function fieldsOf(header: string): string[] {
  return header
    .split(',')
    .map((field) => field.trim())
    .filter((field) => field !== '')
}

/** A URL made safe inside `<…>` of a Link header: what could end it, and any non-ASCII, is percent-encoded. */
export function linkTarget(url: string): string {
  return /[<>"\x00-\x20\x7f-\uffff]/.test(url) ? url.replace(/[<>"\x00-\x20\x7f-\u{10FFFF}]/gu, percentEncode) : url
}

function percentEncode(c: string): string {
  try {
    return encodeURIComponent(c)
  } catch {
    return '%EF%BF%BD' // a lone surrogate: U+FFFD, as a URL parser would
  }
}
