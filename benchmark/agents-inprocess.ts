/**
 * What mobileRedirect adds to a request it passes through, measured
 * in-process: far steadier than anything read over HTTP on a shared machine.
 * Real Express request/response objects (kept hot in a small pool) go through
 * three Express apps, dispatched by Express itself: `bare` (the route only),
 * `empty` (a middleware that only calls next(), then the route) and
 * `redirect` (mobileRedirect mounted with app.use, then the route). The route
 * handler writes nothing, so the difference to `bare` is everything the
 * middleware costs as users mount it, Express's own layer included.
 */
import http from 'node:http'
import net from 'node:net'
import express, { type RequestHandler } from 'express'
import { mobileRedirect } from '../lib/redirect/middleware.js'

const URL = '/products/42?ref=home'

function app(middleware?: RequestHandler): express.Express {
  const site = express()
  if (middleware) site.use(middleware)
  site.get('/{*path}', () => undefined)
  return site
}

function pair(ua: string, headers: Record<string, string>): [http.IncomingMessage, http.ServerResponse] {
  const req = new http.IncomingMessage(new net.Socket())
  req.method = 'GET'
  req.url = URL
  req.headers = { host: 'www.example.com', 'user-agent': ua, ...headers }
  return [req, new http.ServerResponse(req)]
}

const pool = (ua: string, headers: Record<string, string>) => Array.from({ length: 64 }, () => pair(ua, headers))

/** Nanoseconds added per request over the bare app: medians of per-round differences. */
export interface LayerCost {
  /** mobileRedirect mounted with app.use. */
  redirect: number
  /** A middleware that only calls next(): Express's cost of any layer. */
  empty: number
}

const ROUNDS = 21

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number

/**
 * Nanoseconds mobileRedirect adds to a request it passes through (a desktop
 * navigation, or a phone's fetch()), and what an empty middleware adds, each
 * over the bare app. The three apps run back to back in each of 21 rounds
 * (the order alternating), so a slow spell of the machine hits a round's
 * three alike; the difference is taken within each round and its median
 * reported.
 */
export function passThroughCostNs(ua: string, headers: Record<string, string>): LayerCost {
  const apps = {
    bare: app(),
    empty: app((_req, _res, next) => next()),
    redirect: app(mobileRedirect({ mobileUrl: 'https://m.example.com' }) as unknown as RequestHandler),
  }
  // A pool per app: Express gives each request its app's prototypes.
  const pools = { bare: pool(ua, headers), empty: pool(ua, headers), redirect: pool(ua, headers) }
  const time = (handle: express.Express, pairs: ReturnType<typeof pool>): number => {
    const n = 20_000
    const start = process.hrtime.bigint()
    for (let i = 0; i < n; i++) {
      const [req, res] = pairs[i & 63] as [http.IncomingMessage, http.ServerResponse]
      // Each request starts as the HTTP parser leaves it.
      req.url = URL
      res.removeHeader('Vary')
      handle(req, res)
    }
    return Number(process.hrtime.bigint() - start) / n
  }
  const names = ['bare', 'empty', 'redirect'] as const
  for (const name of names) time(apps[name], pools[name]) // warm-up
  const redirect: number[] = []
  const empty: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const ns = { bare: 0, empty: 0, redirect: 0 }
    for (const name of round % 2 === 0 ? names : [...names].reverse()) ns[name] = time(apps[name], pools[name])
    redirect.push(ns.redirect - ns.bare)
    empty.push(ns.empty - ns.bare)
  }
  return { redirect: median(redirect), empty: median(empty) }
}
