/**
 * startServer: a real HTTP server with the API under `/api`, for production
 * use and as a stateful test double in other projects' test suites.
 *
 * The server itself (./start.ts) loads with the first start, so importing
 * the package root does not pay for it; its options are in ./options.ts.
 */
import type { RunningServer, ServerOptions } from './options.js'

export {
  isLoopback,
  type RunningServer,
  type ServerOptions,
  type ServerTimeouts,
  type ShutdownOptions,
} from './options.js'

/** Starts the API on an HTTP server; resolves once it is listening. */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const { serve } = await import('./start.js')
  return serve(options)
}
