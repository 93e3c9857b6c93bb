/**
 * JSON Schemas of the Analytics queries (docs/api.md, Analytics). Query values arrive as
 * Express parses them: strings, or arrays when a parameter is repeated, which
 * the `type: 'string'` rules reject. Dates are checked further by
 * parseDateInput, which also rejects impossible dates.
 */
import type { FromSchema } from 'json-schema-to-ts'
import { dateInputSchema as date } from './dates.js'
import { compile } from './validate.js'
import { closedObject } from './closed-object.js'
import type { Named, NamedInput } from './typing.js'

export const siteAnalyticsQuerySchema = closedObject({
  from: date,
  to: date,
  dimension: {
    type: 'string',
    enum: ['system', 'geo'],
    description: 'break the figures down by browser and OS, or by country and region',
  },
  result: {
    type: 'string',
    enum: ['traffic', 'activities'],
    default: 'traffic',
    description: 'visitor figures or activity counts',
  },
  dateGranularity: {
    type: 'string',
    enum: ['DAYS', 'WEEKS', 'MONTHS', 'YEARS'],
    description:
      "today's Duda API: the figures per UTC day, ISO week, month or year of the period, each bucket clipped to it (one call toward the daily limit)",
  },
})
/** Query of Get Site Analytics. */
export type SiteAnalyticsQuery = NamedInput<typeof siteAnalyticsQuerySchema>
/** Validates a Get Site Analytics query; throws InvalidInput naming the parameter. */
export const validateSiteAnalyticsQuery = compile<SiteAnalyticsQuery>(siteAnalyticsQuerySchema, 'query')

export const mostTrafficQuerySchema = closedObject({ from: date, to: date })
/** Query of Get Sites with Most Traffic. */
export type MostTrafficQuery = Named<FromSchema<typeof mostTrafficQuerySchema>>
/** Validates a Get Sites with Most Traffic query; throws InvalidInput naming the parameter. */
export const validateMostTrafficQuery = compile<MostTrafficQuery>(mostTrafficQuerySchema, 'query')
