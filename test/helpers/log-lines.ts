/**
 * A pino logger whose lines a test reads: every line written, parsed, in order.
 */
import { Writable } from 'node:stream'
import { type Logger, pino } from 'pino'

/** A logger at `level` and the lines it has written so far, parsed. */
export function capturedLogger(level = 'info'): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = []
  const logger = pino(
    { level },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)) as Record<string, unknown>)
        done()
      },
    }),
  )
  return { logger, lines }
}
