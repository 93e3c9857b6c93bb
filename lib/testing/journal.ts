/**
 * The request journal: every call under the API, newest last, bounded (the
 * oldest entries go first), filterable, clearable. It never holds anything
 * from headers, so no credentials; bodies over 64 KiB are left out.
 */
import { formatDateTime } from '../engine/dates.js'
import type { ApiCallRecord } from '../http/hooks.js'

/** Entries kept by default. */
export const DEFAULT_JOURNAL_SIZE = 10_000
/** The largest body kept with an entry, in bytes of JSON. */
export const MAX_JOURNAL_BODY = 64 * 1024

/** One journal entry: `GET /__admin/requests`. */
export interface JournalEntry extends Omit<ApiCallRecord, 'duration_ms'> {
  id: number
  /** Engine time, `YYYY-MM-DDThh:mm:ss`. */
  at: string
  duration_ms: number
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
    const entry: JournalEntry = { id: this.nextId++, at: formatDateTime(this.now().getTime()), ...call }
    entry.duration_ms = Math.round(call.duration_ms * 1000) / 1000
    if (entry.body !== undefined && Buffer.byteLength(JSON.stringify(entry.body) ?? '') > MAX_JOURNAL_BODY)
      delete entry.body
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
