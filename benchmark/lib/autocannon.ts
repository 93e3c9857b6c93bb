/**
 * autocannon, typed once for every benchmark. autocannon ships no TypeScript
 * types; each benchmark used to declare the part it used, and the copies
 * drifted apart. This is the union of those parts, and the one check every
 * throughput figure needs.
 */
import { createRequire } from 'node:module'

/** One request of the sequence each connection sends in turn (the `requests` option). */
export interface CannonRequest {
  method?: string
  path?: string
  body?: string
  headers?: Record<string, string>
  /** Called before each send; what it returns is sent. `context` belongs to the connection. */
  setupRequest?: (req: CannonRequest, context: Record<string, unknown>) => CannonRequest
}

/** The options the benchmarks pass. */
export interface CannonOptions {
  url: string
  connections: number
  /** Seconds to run; `amount` stops after that many requests instead. */
  duration?: number
  amount?: number
  /** Requests per second over all connections; unset, as fast as the server answers. */
  overallRate?: number
  method?: string
  headers?: Record<string, string>
  requests?: CannonRequest[]
}

/** The parts of autocannon's result the benchmarks read. */
export interface CannonResult {
  /** `average`: requests per second over the run; `total`: requests answered. */
  requests: { average: number; total: number }
  /** Seconds the run lasted. */
  duration: number
  non2xx: number
  errors: number
  timeouts: number
  statusCodeStats: Record<string, { count: number }>
}

/** Runs one load and resolves with its result (autocannon's promise form). */
export const autocannon = createRequire(import.meta.url)('autocannon') as (opts: CannonOptions) => Promise<CannonResult>

/**
 * Returns `r`, or throws when any request failed or was answered other than
 * 2xx: a server that answers errors answers fast, and its req/s would read
 * as a win. `label` names the run in the error.
 */
export function checked(r: CannonResult, label: string): CannonResult {
  if (r.errors > 0 || r.non2xx > 0) throw new Error(`${label}: ${r.errors} errors, ${r.non2xx} non-2xx`)
  return r
}

/** Runs one load and returns its req/s, throwing as `checked` does. */
export async function rps(opts: CannonOptions, label: string): Promise<number> {
  return checked(await autocannon(opts), label).requests.average
}
