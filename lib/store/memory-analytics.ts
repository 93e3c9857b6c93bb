/**
 * PLACEHOLDER — being written for the analytics issue (#3). MemoryStore
 * delegates its analytics methods here.
 */
import type { ActivityEvent, ActivityTotals, Dimension, PeriodRow, TrafficTotals, VisitEvent } from './contract.js'

/** In-memory analytics: one day bucket per site. */
export class MemoryAnalytics {
  recordVisit(_visit: VisitEvent): void {
    throw new Error('not implemented yet')
  }
  recordActivity(_activity: ActivityEvent): void {
    throw new Error('not implemented yet')
  }
  siteTraffic(_site: string, _from: string, _to: string, _dimension?: Dimension): PeriodRow<TrafficTotals>[] {
    throw new Error('not implemented yet')
  }
  siteActivities(_site: string, _from: string, _to: string, _dimension?: Dimension): PeriodRow<ActivityTotals>[] {
    throw new Error('not implemented yet')
  }
  mostTraffic(_owner: string, _from: string, _to: string, _limit: number): { site_name: string; data: TrafficTotals }[] {
    throw new Error('not implemented yet')
  }
  /** Forgets everything recorded for the site (Delete Site). */
  dropSite(_owner: string, _site: string): void {}
}
