/**
 * MemoryStore's analytics operations: each finds the site and records or
 * reads in the same synchronous step. The day buckets, rankings and visitor
 * sets behind them are in analytics-buckets.ts.
 */
import type { ActivityEvent, VisitEvent } from '../contract/index.js'
import { isVisit, retentionStart } from '../shared/analytics-rows.js'
import type { AnalyticsStore } from '../contract/analytics.js'
import type { MemoryData } from './data.js'

/** The analytics methods of the Store contract, in memory. */
export function memoryAnalytics(data: MemoryData): AnalyticsStore {
  /** Finds the event's site and records the event under its owner, in one synchronous step. */
  const record = <E extends { site_name: string }>(event: E, add: (event: E, owner: string) => void) => {
    data.ensureOpen()
    const site = data.sites.get(event.site_name)
    if (site === undefined) return undefined
    add(event, site.owner)
    return { owner: site.owner, build: site.build }
  }

  const addVisit = (visit: VisitEvent, owner: string) => data.analytics.recordVisit(visit, owner)
  const addActivity = (activity: ActivityEvent, owner: string) => data.analytics.recordActivity(activity, owner)

  return {
    async recordVisit(visit) {
      return record(visit, addVisit)
    },

    async recordActivity(activity) {
      return record(activity, addActivity)
    },

    async recordEvents(events, options) {
      data.ensureOpen()
      const first = retentionStart(options.today, options.retentionDays)
      if (first !== undefined) data.analytics.dropBefore(first)
      const cap = options.maxDimensionValues
      // One synchronous pass: the batch is atomic as a whole, each event with the read of its site.
      return events.map((event) => {
        const site = data.sites.get(event.site_name)
        if (site === undefined) return undefined
        if (first === undefined || event.day >= first) {
          if (isVisit(event)) data.analytics.recordVisit(event, site.owner, cap)
          else data.analytics.recordActivity(event, site.owner, cap)
        }
        return { owner: site.owner, build: site.build }
      })
    },

    async siteTraffic(site_name, from, to, dimension) {
      data.ensureOpen()
      return data.analytics.siteTraffic(site_name, from, to, dimension)
    },

    async siteActivities(site_name, from, to, dimension) {
      data.ensureOpen()
      return data.analytics.siteActivities(site_name, from, to, dimension)
    },

    async mostTraffic(owner, from, to, limit) {
      data.ensureOpen()
      return data.analytics.mostTraffic(owner, from, to, limit)
    },
  }
}
