/**
 * Near misses, as WireMock's users know them: for each API call that matched
 * no route (404, 405) or was refused for the shape of its request (400, 413
 * and 415 answers of InvalidInput and UnsupportedMediaType), the route it
 * came nearest to and why it missed.
 *
 * Nearness is an edit distance over path segments: a route's parameter
 * matches any one segment, a literal costs the share of its characters that
 * differ (so `site` is near `sites`), a missing or extra segment costs one,
 * and another method costs half a segment. Ties go to the route table's order.
 */
import { ROUTES, SERVICE_ROUTES } from '../http/routes.js'
import { templateOf } from '../http/hooks.js'
import type { JournalEntry } from './journal.js'

/** One call that missed, with the route it came nearest to and why. */
export interface NearMiss {
  request: JournalEntry
  /** Absent only when no route is near at all. */
  nearest?: { method: string; route: string }
  reason: string
}

interface Candidate {
  method: string
  route: string
  /** Segments after the leading '/'; null for a parameter. */
  segments: (string | null)[]
}

const CANDIDATES: readonly Candidate[] = [...ROUTES, ...SERVICE_ROUTES].map((route) => ({
  method: route.method,
  route: templateOf(route.path),
  segments: route.path
    .split('/')
    .slice(1)
    .map((part) => (part.startsWith(':') ? null : part)),
}))

/** Codes a call gets for the shape of its request rather than for what it asked. */
const SHAPE_CODES: ReadonlySet<string> = new Set(['InvalidInput', 'UnsupportedMediaType'])

/** Whether the journal entry is a miss: no route, or a request refused for its shape. */
export function isMiss(entry: JournalEntry): boolean {
  if (entry.status === 404 || entry.status === 405) return entry.route === undefined
  return entry.error_code !== undefined && SHAPE_CODES.has(entry.error_code) && entry.status !== 0
}

/** Levenshtein distance of two strings. */
function chars(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    row = next
  }
  return row[b.length]!
}

/** What one path segment costs against a route's segment. */
function segmentCost(actual: string, wanted: string | null): number {
  if (wanted === null) return actual === '' ? 1 : 0
  if (actual === wanted) return 0
  return chars(actual, wanted) / Math.max(actual.length, wanted.length)
}

/** Edit distance of the path's segments to a route's. */
function pathDistance(actual: readonly string[], wanted: readonly (string | null)[]): number {
  let row = Array.from({ length: wanted.length + 1 }, (_, j) => j)
  for (let i = 1; i <= actual.length; i++) {
    const next = [i]
    for (let j = 1; j <= wanted.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + segmentCost(actual[i - 1]!, wanted[j - 1]!))
    row = next
  }
  return row[wanted.length]!
}

function segmentsOf(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path
  return trimmed.split('/').slice(1)
}

/** The route nearest to a method and path, and its distance. */
function nearestTo(method: string, path: string): { candidate: Candidate; distance: number } | undefined {
  const actual = segmentsOf(path)
  let best: { candidate: Candidate; distance: number } | undefined
  for (const candidate of CANDIDATES) {
    const methodCost = candidate.method === method || (candidate.method === 'GET' && method === 'HEAD') ? 0 : 0.5
    const distance = pathDistance(actual, candidate.segments) + methodCost
    if (best === undefined || distance < best.distance) best = { candidate, distance }
  }
  return best
}

/** In words, how the path differs from the route's. */
function pathDifference(path: string, candidate: Candidate): string | undefined {
  const actual = segmentsOf(path)
  if (actual.length !== candidate.segments.length) {
    return `the path has ${actual.length} segment${actual.length === 1 ? '' : 's'}, the route ${candidate.segments.length}`
  }
  const differing = candidate.segments.flatMap((wanted, i) =>
    segmentCost(actual[i]!, wanted) > 0 ? [`"${actual[i]}" where the route has "${wanted ?? 'a value'}"`] : [],
  )
  return differing.length > 0 ? differing.join(', ') : undefined
}

/** Why the call missed, with the route it came nearest to. */
export function nearMiss(entry: JournalEntry): NearMiss {
  const { method, path } = entry
  if (entry.route !== undefined) {
    const reason = `${entry.error_code}: ${entry.error_message ?? 'the request was refused'}`
    return { request: entry, nearest: { method: method === 'HEAD' ? 'GET' : method, route: entry.route }, reason }
  }
  if (entry.status === 405) {
    const served = CANDIDATES.filter((c) => pathDistance(segmentsOf(path), c.segments) === 0)
    const first = served[0]
    if (first !== undefined) {
      const methods = served.map((c) => c.method).join(', ')
      return {
        request: entry,
        nearest: { method: first.method, route: first.route },
        reason: `${first.route} does not take ${method}; it takes ${methods}`,
      }
    }
  }
  const best = nearestTo(method, path)
  if (best === undefined) return { request: entry, reason: `no route is near ${method} ${path}` }
  const { candidate } = best
  const parts = [pathDifference(path, candidate)]
  if (candidate.method !== method && !(candidate.method === 'GET' && method === 'HEAD'))
    parts.push(`the route takes ${candidate.method}, not ${method}`)
  const differences = parts.filter((part) => part !== undefined).join('; ')
  const reason =
    entry.status === 404 || entry.status === 405
      ? `no route at ${method} ${path}; nearest is ${candidate.method} ${candidate.route}: ${differences}`
      : `${entry.error_code}: ${entry.error_message ?? 'the request was refused'}`
  return { request: entry, nearest: { method: candidate.method, route: candidate.route }, reason }
}

/** Every miss of the journal, oldest first, each with its nearest route and why. */
export function nearMisses(entries: readonly JournalEntry[]): NearMiss[] {
  return entries.filter(isMiss).map(nearMiss)
}
