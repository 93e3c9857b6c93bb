/**
 * A desktop site for middleware tests: `mobileRedirect` in front of a
 * catch-all that echoes the verdict the middleware left on `req`.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import express, { type Express } from 'express'
import {
  mobileRedirect,
  type MobileRedirectHandler,
  type MobileRedirectOptions,
} from '../../lib/redirect/middleware.js'

export { notPhones, phones } from './agents-fixtures.js'

/** An app with the middleware and the handle to control it. */
export interface RedirectApp {
  app: Express
  mw: MobileRedirectHandler
}

/**
 * Builds the app. `before` runs ahead of the middleware (to set headers
 * the middleware must merge with).
 */
export function redirectApp(options: MobileRedirectOptions, before?: express.RequestHandler): RedirectApp {
  const app = express()
  if (before !== undefined) app.use(before)
  const mw = mobileRedirect(options)
  app.use(mw)
  app.use((req, res) => {
    res.json({ page: req.originalUrl, method: req.method, mobisite: req.mobisite ?? null })
  })
  return { app, mw }
}

/** Serves `app` on 127.0.0.1 at an ephemeral port. */
export async function listen(app: Express): Promise<{ port: number; close: () => Promise<void> }> {
  const server = http.createServer(app)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    port,
    close: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  }
}

/** A raw request with any request target (supertest always sends origin-form). */
export function rawGet(port: number, target: string, headers: Record<string, string>): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: target, method: 'GET', headers }, (res) => {
      res.resume()
      resolve(res)
    })
    req.on('error', reject)
    req.end()
  })
}
