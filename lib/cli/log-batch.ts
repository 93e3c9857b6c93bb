/**
 * A pino destination that writes its lines to stdout in batches: each line
 * is encoded into a byte buffer as it arrives, and the buffer goes out when
 * the next line might not fit, or LOG_FLUSH_MS after the first line waits,
 * through one synchronous write of pino's SonicBoom (which handles partial
 * writes, EAGAIN and EPIPE). No write is ever in flight, so the lines left
 * at exit go out after the others, in order (pino's asynchronous writer
 * would write them beside a write in flight).
 *
 * Why bytes and not an array of lines joined at the flush: over HTTP the
 * join cost 0.8 µs a line (issue 38, `--cpu-prof` of the CLI), four times
 * what it costs in a microbenchmark, since by the flush the lines had aged
 * out of the young generation; SonicBoom then encoded the joined text
 * again. Encoding each line at once, while it is young, does both in one
 * pass and keeps no string alive. One write per line cost about 4 % of an
 * API request's CPU; a write costs about 2 µs here whatever its size up to
 * some 60 KB, so 64 KB at a time costs a few hundredths of a µs a line.
 */
import type { DestinationStream, Logger } from 'pino'
import { AccessLineBunches, writeAccessLinesTo } from '../http/access-line.js'

/** The batch's size in bytes: lines are written before the next one could overflow it. */
export const LOG_BATCH_BYTES = 65_536
/** Most milliseconds a line waits for others before it is written. */
export const LOG_FLUSH_MS = 200

/** A UTF-16 code unit takes at most 3 bytes of UTF-8 (a surrogate pair takes 4 for its 2). */
const MAX_BYTES_PER_UNIT = 3

/** Where a batch goes: a synchronous stream that takes bytes. */
export interface ByteSink {
  write(bytes: Buffer): unknown
}

/**
 * pino's destination made with `contentMode: 'buffer'`, as a {@link ByteSink}:
 * SonicBoom takes Buffers as they are in that mode, though its types name only strings.
 */
export function bytesInto(destination: { write(text: string): unknown }): ByteSink {
  return destination as unknown as ByteSink
}

/** The batching destination in front of `out`; call `flush` before exiting. */
export function batchedLines(out: ByteSink): DestinationStream & { flush(): void } {
  let batch = Buffer.allocUnsafeSlow(LOG_BATCH_BYTES)
  let used = 0
  const flush = (): void => {
    if (used === 0) return
    const bytes = batch.subarray(0, used)
    // A new buffer rather than the same one refilled: a destination that fails a write may keep it.
    batch = Buffer.allocUnsafeSlow(LOG_BATCH_BYTES)
    used = 0
    out.write(bytes)
  }
  setInterval(flush, LOG_FLUSH_MS).unref()
  return {
    write(line: string): void {
      const most = line.length * MAX_BYTES_PER_UNIT
      if (used + most > LOG_BATCH_BYTES) {
        flush()
        if (most > LOG_BATCH_BYTES) return void out.write(Buffer.from(line, 'utf8'))
      }
      used += batch.write(line, used, 'utf8')
    },
    flush,
  }
}

/**
 * The CLI's logger: pino with `level` and the `service` binding and nothing
 * else, writing to `dest` (a file descriptor or path) in batches, its access
 * lines formatted in bunches (lib/http/access-line.ts). Call `flush` before
 * exiting.
 */
export async function cliLogger(level: string, dest: number | string): Promise<{ logger: Logger; flush(): void }> {
  const { pino } = await import('pino')
  const batch = batchedLines(bytesInto(pino.destination({ dest, sync: true, contentMode: 'buffer' })))
  // Access lines wait unformatted and are formatted in bunches, in order with the others.
  const destination = new AccessLineBunches(batch, LOG_FLUSH_MS)
  const base = { service: 'mobisite' }
  const logger = pino({ level, base }, destination)
  // Nothing else is set on it: its access lines can skip pino's field walk.
  writeAccessLinesTo(logger, destination, base)
  return { logger, flush: () => destination.flush() }
}
