/**
 * A pino destination that writes its lines to stdout in batches: a line
 * costs an array push, and the lines go out LOG_BATCH_BYTES at a time, or
 * LOG_FLUSH_MS after the first one waits, through one synchronous write of
 * pino's SonicBoom (which handles partial writes, EAGAIN and EPIPE). No
 * write is ever in flight, so the lines left at exit go out after the
 * others, in order (pino's asynchronous writer would write them beside a
 * write in flight). One write per line cost about 4 % of an API request's
 * CPU; SonicBoom's own `minLength` buffer costs more than an array, since it
 * measures the whole buffer in bytes at every line. A write costs about
 * 2 µs here whatever its size up to some 60 KB (then it grows again):
 * 4,096 characters (about 14 lines) still cost 0.25 µs a line, 32,768 about
 * 0.08, and at most 200 ms of lines wait either way.
 */
import type { DestinationStream } from 'pino'

/** Lines are written once this many characters wait. */
export const LOG_BATCH_CHARS = 32_768
/** Most milliseconds a line waits for others before it is written. */
export const LOG_FLUSH_MS = 200

/** The batching destination in front of `out` (a synchronous stream); call `flush` before exiting. */
export function batchedLines(out: { write(text: string): unknown }): DestinationStream & { flush(): void } {
  let lines: string[] = []
  let chars = 0
  const flush = (): void => {
    if (lines.length === 0) return
    const text = lines.join('')
    lines = []
    chars = 0
    out.write(text)
  }
  setInterval(flush, LOG_FLUSH_MS).unref()
  return {
    write(line: string): void {
      lines.push(line)
      chars += line.length
      if (chars >= LOG_BATCH_CHARS) flush()
    },
    flush,
  }
}
