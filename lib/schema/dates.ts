/**
 * The date formats of the API, as JSON Schema. Dates in are UTC
 * `YYYY-MM-DD` (the start of that day) or `YYYY-MM-DDThh:mm:ss`; dates out are
 * always `YYYY-MM-DDThh:mm:ss`, UTC, with no zone and no milliseconds.
 */

/** The pattern of an input date; impossible dates (2025-02-30) are refused after it. */
export const DATE_INPUT_PATTERN = '^(\\d{4})-(\\d{2})-(\\d{2})(?:T(\\d{2}):(\\d{2}):(\\d{2}))?$'

/** A date query parameter. */
export const dateInputSchema = {
  type: 'string',
  pattern: DATE_INPUT_PATTERN,
  description: 'a UTC date YYYY-MM-DD or YYYY-MM-DDThh:mm:ss',
} as const

/** A date the API answers with. */
export const dateTimeOutputSchema = {
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$',
  description: 'a UTC date and time YYYY-MM-DDThh:mm:ss',
} as const
