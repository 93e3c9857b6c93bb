/**
 * The request journal: every call under the API, newest last, bounded (the
 * oldest entries go first), filterable, clearable. It never holds anything
 * from headers, so no credentials. A body is kept only within fixed bounds
 * (64 KiB of JSON, 64 levels of nesting); past them the entry carries a
 * summary of it instead, so no body a client sends can make recording it
 * (or answering `GET /__admin/requests`) throw.
 */
import { formatDateTime } from '../engine/shared/dates.js'
import type { ApiCallRecord } from '../http/hooks.js'

/** Entries kept by default. */
export const DEFAULT_JOURNAL_SIZE = 10_000
/** The largest body kept with an entry, in bytes of JSON. */
export const MAX_JOURNAL_BODY = 64 * 1024
/**
 * The deepest body kept with an entry, in levels of nesting. JSON.stringify
 * recurses, and a few thousand levels (10 KB of `[`) exhaust the stack.
 */
export const MAX_JOURNAL_DEPTH = 64

/** What an entry carries instead of a body the journal does not keep. */
export interface BodySummary {
  /** The body's JSON type. */
  type: 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null'
  /** Bytes of the body as received (its Content-Length), when the request said. */
  bytes?: number
  reason: 'too deep' | 'too large'
}

/** One journal entry: `GET /__admin/requests`. */
export interface JournalEntry extends Omit<ApiCallRecord, 'duration_ms' | 'body_bytes'> {
  id: number
  /** Engine time, `YYYY-MM-DDThh:mm:ss`. */
  at: string
  duration_ms: number
  /** In place of `body`, when the body was past the journal's bounds. */
  body_summary?: BodySummary
}

/** The JSON type of a parsed body. */
function typeOf(value: unknown): BodySummary['type'] {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value as BodySummary['type']
}

/** Whether `value` nests deeper than `limit`; walked without recursion, so any depth is safe to ask about. */
function deeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    if (node === null || typeof node !== 'object') continue
    if (depth > limit) return true
    for (const child of Object.values(node)) stack.push([child, depth + 1])
  }
  return false
}

/** Why a body is not kept as it came, or undefined when it is. */
function whyNotKept(body: unknown): BodySummary['reason'] | undefined {
  if (deeperThan(body, MAX_JOURNAL_DEPTH)) return 'too deep'
  if (Buffer.byteLength(JSON.stringify(body) ?? '') > MAX_JOURNAL_BODY) return 'too large'
  return undefined
}

/** Filters of {@link Journal.list}; every given one must match. */
export interface JournalFilter {
  /** Any letter case. */
  method?: string
  /** The OpenAPI path template, e.g. `/sites/{site_name}`. */
  route?: string
  status?: number
  user?: string
  /** Only the newest `limit` matches. */
  limit?: number
}

/** Query values as over HTTP: strings (in process they may be numbers). */
export function asText(query: object): Record<string, string> {
  return Object.fromEntries(
    Object.entries(query)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, String(v)]),
  )
}

/** The filter a validated journal query stands for. */
export function journalFilter(q: {
  method?: string
  route?: string
  status?: string
  user?: string
  limit?: string
}): JournalFilter {
  return {
    ...(q.method === undefined ? {} : { method: q.method }),
    ...(q.route === undefined ? {} : { route: q.route }),
    ...(q.status === undefined ? {} : { status: Number(q.status) }),
    ...(q.user === undefined ? {} : { user: q.user }),
    ...(q.limit === undefined ? {} : { limit: Number(q.limit) }),
  }
}

export class Journal {
  /** A ring: `entries[(first + i) % size]` is the i-th oldest. */
  private entries: JournalEntry[] = []
  private first = 0
  private nextId = 1

  constructor(
    private readonly now: () => Date,
    readonly size = DEFAULT_JOURNAL_SIZE,
  ) {}

  add(call: ApiCallRecord): void {
    const { body_bytes, ...recorded } = call
    const entry: JournalEntry = { id: this.nextId++, at: formatDateTime(this.now().getTime()), ...recorded }
    entry.duration_ms = Math.round(call.duration_ms * 1000) / 1000
    const reason = entry.body === undefined ? undefined : whyNotKept(entry.body)
    if (reason !== undefined) {
      entry.body_summary = {
        type: typeOf(entry.body),
        ...(body_bytes === undefined ? {} : { bytes: body_bytes }),
        reason,
      }
      delete entry.body
    }
    if (this.entries.length < this.size) {
      this.entries.push(entry)
    } else {
      this.entries[this.first] = entry
      this.first = (this.first + 1) % this.size
    }
  }

  /** Matching entries, oldest first (newest last). */
  list(filter: JournalFilter = {}): JournalEntry[] {
    const method = filter.method?.toUpperCase()
    const ordered = [...this.entries.slice(this.first), ...this.entries.slice(0, this.first)]
    const found = ordered.filter(
      (e) =>
        (method === undefined || e.method === method) &&
        (filter.route === undefined || e.route === filter.route) &&
        (filter.status === undefined || e.status === filter.status) &&
        (filter.user === undefined || e.user === filter.user),
    )
    return filter.limit === undefined ? found : found.slice(Math.max(0, found.length - filter.limit))
  }

  /** How many entries match; `limit` is not a filter here. */
  count(filter: Omit<JournalFilter, 'limit'> = {}): number {
    return this.list(filter).length
  }

  clear(): void {
    this.entries = []
    this.first = 0
  }
}
