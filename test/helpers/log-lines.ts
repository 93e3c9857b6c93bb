/**
 * A pino logger whose lines a test reads: every line written, parsed, in order.
 */
import { Writable } from 'node:stream'
import { type Logger, pino } from 'pino'

/** A logger at `level` and the lines it has written so far, parsed, and as written (`text`). */
export function capturedLogger(level = 'info'): {
  logger: Logger
  lines: Record<string, unknown>[]
  text: string[]
} {
  const lines: Record<string, unknown>[] = []
  const text: string[] = []
  const logger = pino(
    { level },
    new Writable({
      write(chunk, _encoding, done) {
        text.push(String(chunk))
        lines.push(JSON.parse(String(chunk)) as Record<string, unknown>)
        done()
      },
    }),
  )
  return { logger, lines, text }
}
