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

function pair(ua: string, headers: Record<string, string>): [http.IncomingMessage, http.ServerResponse] {
  const req = new http.IncomingMessage(new net.Socket())
  req.method = 'GET'
  req.url = '/products/42?ref=home'
  req.headers = { host: 'www.example.com', 'user-agent': ua, ...headers }
  Object.setPrototypeOf(req, app.request)
  Object.assign(req, { originalUrl: req.url, app })
  const res = new http.ServerResponse(req)
  Object.setPrototypeOf(res, app.response)
  Object.assign(res, { req, app })
  return [req, res]
}

/**
 * Nanoseconds mobileRedirect adds to a request it passes through (a desktop
 * navigation, or a phone's fetch()), over an empty middleware: the best of
 * 9 interleaved rounds of each, subtracted (best minus best, so one noisy
 * round of either cannot inflate the difference).
 */
export function passThroughCostNs(ua: string, headers: Record<string, string>): number {
  const mw = mobileRedirect({ mobileUrl: 'https://m.example.com' }) as unknown as RequestHandler
  const noop: RequestHandler = (_req, _res, next) => next()
  const pool = Array.from({ length: 64 }, () => pair(ua, headers))
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
  let bestMw = Infinity
  let bestNoop = Infinity
  for (let round = 0; round < 9; round++) {
    bestMw = Math.min(bestMw, time(mw))
    bestNoop = Math.min(bestNoop, time(noop))
  }
  return bestMw - bestNoop
}
