/**
 * Date granularity of Get Site Analytics (today's Duda API, the client's
 * `date_granularity`, sent as `dateGranularity`): the period cut into UTC
 * days, ISO weeks (Monday to Sunday), calendar months or years. A bucket is
 * clipped to the period, so its first day is the first day its figures cover.
 */
import { invalidInput } from '../../errors.js'
import { DAY_MS, formatDay, utc } from '../shared/dates.js'

/** The granularities Duda names. */
export type Granularity = 'DAYS' | 'WEEKS' | 'MONTHS' | 'YEARS'

/** At most this many buckets per call: each is one read of the store. */
export const MAX_BUCKETS = 1000

/** The first day (epoch ms) of the bucket after the one holding `day`. */
function nextStart(day: number, granularity: Granularity): number {
  const d = new Date(day)
  switch (granularity) {
    case 'DAYS':
      return day + DAY_MS
    case 'WEEKS':
      // getUTCDay: Sunday 0; ISO weeks start on Monday.
      return day + (7 - ((d.getUTCDay() + 6) % 7)) * DAY_MS
    case 'MONTHS':
      return utc(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
    case 'YEARS':
      return utc(d.getUTCFullYear() + 1, 0, 1)
  }
}

/** Days [from, to] (YYYY-MM-DD) cut into buckets, oldest first; too many is InvalidInput. */
export function bucketsOf(from: string, to: string, granularity: Granularity): { from: string; to: string }[] {
  const end = Date.parse(`${to}T00:00:00Z`)
  const buckets: { from: string; to: string }[] = []
  for (let start = Date.parse(`${from}T00:00:00Z`); start <= end; ) {
    const next = nextStart(start, granularity)
    buckets.push({ from: formatDay(start), to: formatDay(Math.min(next - DAY_MS, end)) })
    if (buckets.length > MAX_BUCKETS)
      throw invalidInput(
        `the period holds more than ${MAX_BUCKETS} ${granularity.toLowerCase()}; ask for a shorter one`,
      )
    start = next
  }
  return buckets
}
