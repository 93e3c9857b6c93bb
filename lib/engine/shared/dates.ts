/**
 * Dates in and out of the API (UTC `YYYY-MM-DD` or `YYYY-MM-DDThh:mm:ss` in,
 * `YYYY-MM-DDThh:mm:ss` out) and the default periods of the listings and analytics.
 */
import { invalidInput } from '../../errors.js'
import { DATE_INPUT_PATTERN } from '../../schema/dates.js'

const DAY_MS = 86_400_000
const INPUT = new RegExp(DATE_INPUT_PATTERN)

/** `YYYY-MM-DDThh:mm:ss` in UTC, no zone, no milliseconds. */
export function formatDateTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19)
}

/** `YYYY-MM-DD` of the UTC day holding `ms`. */
export function formatDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

/** Epoch ms of the start of the UTC day holding `ms`. */
export function startOfDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS
}

/**
 * `Date.UTC` (month from 0) taking the year as given: `Date.UTC` itself reads
 * years 0 to 99 as 1900 to 1999, which made 0050-06-01 "not a real date".
 */
export function utc(year: number, month: number, day: number, hours = 0, minutes = 0, seconds = 0): number {
  const date = new Date(0)
  date.setUTCFullYear(year, month, day)
  date.setUTCHours(hours, minutes, seconds, 0)
  return date.getTime()
}

/**
 * Parses `YYYY-MM-DDThh:mm:ss` or `YYYY-MM-DD` (start of that UTC day) as UTC.
 * Anything else, or an impossible date such as 2025-02-30, is InvalidInput
 * naming the parameter.
 */
export function parseDateInput(value: unknown, name: string): number {
  const m = typeof value === 'string' ? INPUT.exec(value) : null
  if (!m) throw invalidInput(`${name} must be a UTC date YYYY-MM-DD or YYYY-MM-DDThh:mm:ss`)
  const [y, mo, d, h = '0', mi = '0', s = '0'] = m.slice(1).map((part) => part ?? '0') as string[]
  const ms = utc(+y!, +mo! - 1, +d!, +h, +mi, +s)
  const back = new Date(ms)
  const valid =
    back.getUTCFullYear() === +y! &&
    back.getUTCMonth() === +mo! - 1 &&
    back.getUTCDate() === +d! &&
    back.getUTCHours() === +h &&
    back.getUTCMinutes() === +mi &&
    back.getUTCSeconds() === +s
  if (!valid || +y! < 1) throw invalidInput(`${name} is not a real date: ${value as string}`)
  return ms
}

/** A closed period [from, to] in epoch ms. */
export interface Period {
  from: number
  to: number
}

/**
 * Resolves optional `from`/`to` query values into a period: `to` defaults to
 * now, `from` to `defaultDays` days before `to`. from after to is InvalidInput.
 */
export function resolvePeriod(query: { from?: unknown; to?: unknown }, now: Date, defaultDays: number): Period {
  const to = query.to === undefined ? now.getTime() : parseDateInput(query.to, 'to')
  const from = query.from === undefined ? to - defaultDays * DAY_MS : parseDateInput(query.from, 'from')
  if (from > to) {
    // Without `to` the period ends now: say so rather than name a parameter the caller never sent.
    throw invalidInput(
      query.to === undefined
        ? `from must not be after now (${formatDateTime(to)}), where the period ends when to is not given`
        : 'from must not be after to',
    )
  }
  return { from, to }
}

/** Seconds from `ms` to the next UTC midnight (Retry-After of the daily limit). */
export function secondsToNextUtcDay(ms: number): number {
  return Math.max(1, Math.ceil((startOfDay(ms) + DAY_MS - ms) / 1000))
}

export { DAY_MS }
