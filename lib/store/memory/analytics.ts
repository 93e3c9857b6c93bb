/**
 * MemoryStore's analytics operations: each finds the site and records or
 * reads in the same synchronous step. The day buckets, rankings and visitor
 * sets behind them are in analytics-buckets.ts.
 */
import type { AnalyticsOps } from '../shared/composed-store.js'
import type { MemoryData } from './data.js'

/** The analytics methods of the Store contract, in memory. */
export function memoryAnalytics(data: MemoryData): AnalyticsOps {
  return {
    async recordVisit(visit) {
      data.ensureOpen()
      const site = data.sites.get(visit.site_name)
      if (site === undefined) return undefined
      data.analytics.recordVisit(visit, site.owner)
      return { owner: site.owner, build: site.build }
    },

    async recordActivity(activity) {
      data.ensureOpen()
      const site = data.sites.get(activity.site_name)
      if (site === undefined) return undefined
      data.analytics.recordActivity(activity, site.owner)
      return { owner: site.owner, build: site.build }
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
