/**
 * startServer: a real HTTP server with the API under `/api`, for production
 * use and as a stateful test double in other projects' test suites.
 */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { createEngine } from './engine/index.js'
import type { Engine } from './engine/types.js'
import { dashboardRouter, type DashboardRouterOptions } from './dashboard/index.js'
import { apiRouter, type ApiRouterOptions } from './http/router.js'
import { collectRoute } from './collector/route.js'
import { limitedServer, type ServerTimeouts } from './server-limits.js'

export type { ServerTimeouts } from './server-limits.js'

/** Options of {@link startServer}. */
export interface ServerOptions {
  /** The engine to serve. Default: `createEngine()` (memory store, system clock). */
  engine?: Engine
  /** Default 0: a free port chosen by the system. */
  port?: number
  /** Default '127.0.0.1'. */
  host?: string
  /** Passed to apiRouter. */
  router?: ApiRouterOptions
  /** Passed to dashboardRouter, mounted at `/dashboard`. */
  dashboard?: DashboardRouterOptions
  /** Deadlines for slow clients. Default: headers 10 s, whole request 30 s, idle keep-alive 5 s. */
  timeouts?: ServerTimeouts
  /** Most open connections; more are closed at once. Default 1024. */
  maxConnections?: number
}

/** A running server. */
export interface RunningServer {
  /** Like `http://127.0.0.1:PORT`; the API is under `${url}/api`, the sub-account dashboard under `${url}/dashboard`. */
  url: string
  /** The engine being served (the given one or the default). */
  engine: Engine
  /** The Node HTTP server (its timeouts and connection cap are set as the options say). */
  server: Server
  /** Stops accepting connections, ends idle keep-alive ones, and resolves when closed. Does not close the engine. */
  close(): Promise<void>
}

/** Starts the API on an HTTP server; resolves once it is listening. */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const engine = options.engine ?? createEngine()
  const app = express()
  app.disable('x-powered-by')
  app.use('/api', apiRouter(engine, options.router))
  app.use('/collect', collectRoute(engine))
  app.use('/dashboard', dashboardRouter(engine, options.dashboard))
  const host = options.host ?? '127.0.0.1'
  const server = limitedServer(app, options.timeouts, options.maxConnections)
  server.listen(options.port ?? 0, host)
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve)
    server.once('error', reject)
  })
  const { port } = server.address() as AddressInfo
  const shownHost = host.includes(':') ? `[${host}]` : host
  let closing: Promise<void> | undefined
  return {
    url: `http://${shownHost}:${port}`,
    engine,
    server,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()))
        server.closeIdleConnections()
      })
      return closing
    },
  }
}
