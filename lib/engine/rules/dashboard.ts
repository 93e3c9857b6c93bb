/**
 * What a sub-account's dashboard shows: its granted sites, and one site's
 * analytics for the last 7, 30 or 90 whole UTC days. Every number is read
 * through the same code as Get Site Analytics (readSiteAnalytics) for the
 * same days, so it equals the API's; these reads never count toward the
 * partner's daily limit.
 *
 * Access is checked on every read: a grant revoked or a site deleted since
 * the last page load is ResourceNotExist at once.
 */
import type { ActivityMetrics, TrafficMetrics } from '../../../types/index.js'
import { invalidInput, notExist } from '../../errors.js'
import { guard } from '../shared/outage.js'
import type { SiteRecord } from '../../store/contract/index.js'
import { readSiteAnalytics } from '../recording/analytics.js'
import type { EngineContext } from '../context.js'
import { DAY_MS, formatDateTime, formatDay, startOfDay } from '../shared/dates.js'
import { contextOf } from '../context-access.js'
import { type DashboardAccount, type SsoLanding, endSession, redeemSsoToken, sessionAccount } from '../auth/sso.js'
import type { Engine } from '../types.js'

export type { DashboardAccount, SsoLanding } from '../auth/sso.js'

/** The periods the site page offers, in days. */
export const PERIODS = [7, 30, 90] as const
/** A period of the site page. */
export type Period = (typeof PERIODS)[number]
/** The period shown when none is asked for. */
export const DEFAULT_PERIOD: Period = 30
/** Rows in the top countries and top browsers lists. */
export const TOP_ROWS = 5

/** A granted site as the dashboard lists it. */
export interface DashboardSite {
  site_name: string
  business_name?: string
  /** The desktop site. */
  original_site_url: string
  published: boolean
  /** `YYYY-MM-DDThh:mm:ss` UTC, while published. */
  last_published_date?: string
}

/** One day of traffic. */
export interface DailyTraffic {
  /** `YYYY-MM-DD` */
  day: string
  visits: number
  unique_visitors: number
  page_views: number
}

/** One row of a top list: a country or browser and its visits over the period. */
export interface TopRow {
  name: string
  visits: number
}

/** Everything the site page shows. */
export interface SiteReport {
  site: DashboardSite
  days: Period
  /** First and last day of the period, `YYYY-MM-DD`, both included. */
  from: string
  to: string
  /** One row per day, oldest first. */
  daily: DailyTraffic[]
  /** Period totals as Get Site Analytics gives them (unique visitors distinct over the period). */
  totals: TrafficMetrics
  activities: ActivityMetrics
  /** Visits by country (all regions summed), most first, ties by name, at most {@link TOP_ROWS}. */
  countries: TopRow[]
  /** Visits by browser (`<name> <major>`, all OSes summed), as countries. */
  browsers: TopRow[]
}

/** The dashboard's view of an engine: what dashboardRouter calls. */
export interface DashboardEngine {
  /** Redeems a sign-in token for a session; Unauthorized when bad, expired or used. */
  signIn(token: unknown): Promise<SsoLanding>
  /** The account of a live session; Unauthorized otherwise. */
  account(session: unknown): Promise<DashboardAccount>
  /** The account's granted sites, by name. */
  sites(account: DashboardAccount): Promise<DashboardSite[]>
  /** One granted site's page; ResourceNotExist when not granted (or gone), InvalidInput for a bad `days`. */
  report(account: DashboardAccount, site_name: string, days: unknown): Promise<SiteReport>
  /** Ends the session. */
  signOut(session: unknown): Promise<void>
}

function toDashboardSite(record: SiteRecord): DashboardSite {
  const site: DashboardSite = {
    site_name: record.site_name,
    original_site_url: record.original_site_url,
    published: record.published_at !== undefined,
  }
  const business = record.site_business_info?.business_name
  if (business !== undefined && business !== '') site.business_name = business
  if (record.published_at !== undefined) site.last_published_date = formatDateTime(record.published_at)
  return site
}

/** The sites granted to the account that still exist and are its owner's, by name. */
async function grantedSites(ctx: EngineContext, account: DashboardAccount): Promise<SiteRecord[]> {
  const names = (await ctx.store.listGrants(account.owner, account.account_name)) ?? []
  const records = await ctx.store.getSites(names)
  return records.filter((r): r is SiteRecord => r !== undefined && r.owner === account.owner)
}

/** `days` as a query gives it: absent → 30; "7", "30", "90" (or those numbers); anything else InvalidInput. */
export function periodOf(days: unknown): Period {
  if (days === undefined) return DEFAULT_PERIOD
  const n = typeof days === 'string' && /^\d{1,2}$/.test(days) ? Number(days) : days
  const period = PERIODS.find((p) => p === n)
  if (period === undefined) throw invalidInput(`days must be one of ${PERIODS.join(', ')}`)
  return period
}

/** Sums visits by one part of a dimension's rows, then keeps the top rows. */
function top(rows: { name: string; visits: number }[]): TopRow[] {
  const sums = new Map<string, number>()
  for (const { name, visits } of rows) sums.set(name, (sums.get(name) ?? 0) + visits)
  return [...sums]
    .map(([name, visits]) => ({ name, visits }))
    .filter((row) => row.visits > 0)
    .sort((a, b) => b.visits - a.visits || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, TOP_ROWS)
}

async function report(
  ctx: EngineContext,
  account: DashboardAccount,
  site_name: string,
  daysQuery: unknown,
): Promise<SiteReport> {
  const days = periodOf(daysQuery)
  const name = String(site_name)
  const site = (await grantedSites(ctx, account)).find((s) => s.site_name === name)
  if (site === undefined) throw notExist(`site ${name} is not available to this account`)
  const today = startOfDay(ctx.now().getTime())
  const dayList = Array.from({ length: days }, (_, i) => formatDay(today - (days - 1 - i) * DAY_MS))
  const from = dayList[0]!
  const to = dayList[days - 1]!
  const [perDay, totals, activities, geo, system] = await Promise.all([
    Promise.all(dayList.map((day) => readSiteAnalytics(ctx, name, day, day, 'traffic'))),
    readSiteAnalytics(ctx, name, from, to, 'traffic'),
    readSiteAnalytics(ctx, name, from, to, 'activities'),
    readSiteAnalytics(ctx, name, from, to, 'traffic', 'geo'),
    readSiteAnalytics(ctx, name, from, to, 'traffic', 'system'),
  ])
  return {
    site: toDashboardSite(site),
    days,
    from,
    to,
    daily: perDay.map((m, i) => ({
      day: dayList[i]!,
      visits: m.VISITS,
      unique_visitors: m.UNIQUE_VISITORS,
      page_views: m.PAGE_VIEWS,
    })),
    totals,
    activities,
    countries: top(
      geo.map((row) => ({ name: (row.dimension as { country: string }).country, visits: row.data.VISITS })),
    ),
    browsers: top(
      system.map((row) => ({ name: (row.dimension as { browser: string }).browser, visits: row.data.VISITS })),
    ),
  }
}

/** A store outage is ServiceUnavailable here too, as for every engine call. */
function guarded<A extends unknown[], R>(work: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return (...args) => guard(() => work(...args))
}

/** The dashboard operations of an engine made by createEngine. */
export function dashboardOf(engine: Engine): DashboardEngine {
  const ctx = contextOf(engine)
  return {
    signIn: guarded((token) => redeemSsoToken(ctx, token)),
    account: guarded((session) => sessionAccount(ctx, session)),
    sites: guarded(async (account) => (await grantedSites(ctx, account)).map(toDashboardSite)),
    report: guarded((account, site_name, days) => report(ctx, account, site_name, days)),
    signOut: guarded((session) => endSession(ctx, session)),
  }
}
