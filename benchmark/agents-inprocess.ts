/**
 * The middleware's own CPU cost per pass-through request, measured
 * in-process: far steadier than req/s on a shared machine. Real Express
 * request/response objects (kept hot in a small pool) go through
 * mobileRedirect and through an empty middleware; the difference is its cost.
 */
import http from 'node:http'
import net from 'node:net'
import express, { type RequestHandler } from 'express'
import { mobileRedirect } from '../lib/redirect/middleware.js'

const app = express()

function pair(ua: string): [http.IncomingMessage, http.ServerResponse] {
  const req = new http.IncomingMessage(new net.Socket())
  req.method = 'GET'
  req.url = '/products/42?ref=home'
  req.headers = { host: 'www.example.com', 'user-agent': ua, accept: 'text/html' }
  Object.setPrototypeOf(req, app.request)
  Object.assign(req, { originalUrl: req.url, app })
  const res = new http.ServerResponse(req)
  Object.setPrototypeOf(res, app.response)
  Object.assign(res, { req, app })
  return [req, res]
}

/** Nanoseconds mobileRedirect adds to a desktop (pass-through) request, best of 5 runs. */
export function passThroughCostNs(desktopUa: string): number {
  const mw = mobileRedirect({ mobileUrl: 'https://m.example.com' }) as unknown as RequestHandler
  const noop: RequestHandler = (_req, _res, next) => next()
  const pool = Array.from({ length: 64 }, () => pair(desktopUa))
  const time = (fn: RequestHandler): number => {
    const n = 100_000
    const next = (): void => undefined
    const start = process.hrtime.bigint()
    for (let i = 0; i < n; i++) {
      const [req, res] = pool[i & 63] as [http.IncomingMessage, http.ServerResponse]
      fn(req as express.Request, res as express.Response, next)
      res.removeHeader('Vary') // each request starts without one
    }
    return Number(process.hrtime.bigint() - start) / n
  }
  let best = Infinity
  for (let round = 0; round < 5; round++) best = Math.min(best, time(mw) - time(noop))
  return best
}
