/**
 * The collector as the standalone server serves it: `/{site_name}` under its
 * mount point (`/collect`), so a mobile site in any language, or curl, feeds
 * analytics and redirect confirmations over HTTP.
 */
import express, { type Router } from 'express'
import { analyticsCollector, type CollectorEngine, type CollectorOptions } from './index.js'

/** Options of {@link collectRoute}: the collector's, but the site comes from the path. */
export type CollectRouteOptions = Omit<CollectorOptions, 'siteName' | 'site_name' | 'passThrough'>

/**
 * A router answering `GET` and `POST /{site_name}` with 204 at once, also
 * for an unknown site, and recording afterwards (`e=visit` by default, an
 * activity kind, or `e=redirect`). Public, like every analytics beacon: it
 * can be spoofed, and changes nothing but analytics and the site's
 * `last_confirmed_redirected_date`. Other methods get 405 with `Allow`.
 */
export function collectRoute(engine: CollectorEngine, options: CollectRouteOptions = {}): Router {
  const router = express.Router()
  const collect = analyticsCollector(engine, { ...options, siteName: (req) => siteOf(req.params.site_name) })
  router
    .route('/:site_name')
    .get(collect)
    .post(collect)
    .all((_req, res) => {
      res
        .status(405)
        .set('Allow', 'GET, HEAD, POST')
        .json({ error_code: 'MethodNotAllowed', message: 'the collector takes GET or POST' })
    })
  return router
}

function siteOf(param: string | string[] | undefined): string | undefined {
  return typeof param === 'string' ? param : undefined
}
