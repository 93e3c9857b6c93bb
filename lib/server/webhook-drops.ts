/**
 * How the standalone server reports webhook deliveries the test double
 * drops unsent: a counter in `/metrics` (when metrics are on) and a warning
 * in the log, at most one line per 10 s (with the number dropped since the
 * line before), so that a receiver that hangs cannot flood the log either.
 */
import type { Logger } from 'pino'
import type { Registry } from 'prom-client'
import { instrumentsFor } from '../http/metrics.js'

/** The shortest time between two log lines about drops. */
export const DROP_LOG_INTERVAL_MS = 10_000

/** The drop listener of a server with this logger and registry (either may be absent). */
export function webhookDropReporter(
  logger: Logger | undefined,
  registry: Registry | undefined,
  now: () => number = Date.now,
): (reason: string) => void {
  const count = registry === undefined ? undefined : instrumentsFor(registry).countWebhookDrops()
  let lastLine = Number.NEGATIVE_INFINITY
  let unreported = 0
  return (reason) => {
    count?.()
    unreported++
    if (logger === undefined || now() - lastLine < DROP_LOG_INTERVAL_MS) return
    logger.warn({ dropped: unreported, reason }, 'webhook deliveries dropped unsent')
    lastLine = now()
    unreported = 0
  }
}
