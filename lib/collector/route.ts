/**
 * The collector as the standalone server serves it: `/{site_name}` under its
 * mount point (`/collect`), so a mobile site in any language, or curl, feeds
 * analytics and redirect confirmations over HTTP.
 *
 * One plain handler rather than a Router with a route: a beacon is the
 * busiest request a server gets, and a nested Router's dispatch cost about
 * 4 % of its throughput (benchmark/ingest.ts).
 */
import type { RequestHandler } from 'express'
import { analyticsCollector, type CollectorEngine, type CollectorOptions } from './index.js'
import { mountedPath } from '../http/express-compat.js'

/** Options of {@link collectRoute}: the collector's, but the site comes from the path. */
export type CollectRouteOptions = Omit<CollectorOptions, 'siteName' | 'site_name' | 'passThrough'>

const METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST'])

/** The segment of a mounted path `/{segment}` (a trailing slash allowed); undefined for any other path. */
function segmentOf(path: string): string | undefined {
  const end = path.length > 1 && path.endsWith('/') ? path.length - 1 : path.length
  const slash = path.indexOf('/', 1)
  if (end < 2 || path[0] !== '/' || (slash !== -1 && slash < end)) return undefined
  return path.slice(1, end)
}

/** The site a path names, percent-decoded; undefined when it is not valid percent-encoding (an unknown site). */
function siteOf(path: string): string | undefined {
  const segment = segmentOf(path)
  if (segment === undefined || !segment.includes('%')) return segment
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

/**
 * A handler answering `GET`, `HEAD` and `POST /{site_name}` with 204 at once,
 * also for an unknown site, and recording afterwards (`e=visit` by default,
 * an activity kind, or `e=redirect`). Public, like every analytics beacon: it
 * can be spoofed, and changes nothing but analytics and the site's
 * `last_confirmed_redirected_date`. Other methods get 405 with `Allow`; other
 * paths go to `next()`.
 */
export function collectRoute(engine: CollectorEngine, options: CollectRouteOptions = {}): RequestHandler {
  const collect = analyticsCollector(engine, { ...options, siteName: (req) => siteOf(mountedPath(req)) })
  return (req, res, next) => {
    if (segmentOf(mountedPath(req)) === undefined) return next()
    if (METHODS.has(req.method)) return collect(req, res, next)
    res
      .status(405)
      .set('Allow', 'GET, HEAD, POST')
      .json({ error_code: 'MethodNotAllowed', message: 'the collector takes GET or POST' })
  }
}
