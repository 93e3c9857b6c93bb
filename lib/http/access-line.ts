/**
 * Access lines formatted by hand, exactly as pino formats them, for a
 * logger that has asked for it with {@link writeAccessLinesTo}: the CLI's,
 * whose options it sets itself (`base` bindings only, no serializers,
 * formatters, mixin, hooks or redaction that this text would skip).
 *
 * Why: `logger.info(fields, msg)` walks the fields, stringifies the nested
 * `req` and `res` objects apart and checks each key for a serializer, about
 * 2 µs of CPU per request here; one template string with the fields in
 * pino's order is a fraction of that (issue 38). A logger someone else
 * built (`startServer({ logger })`, `apiRouter(engine, { logger })`) is
 * never written around: its own options decide its lines.
 */
import type { Logger } from 'pino'

/** A level an access line is written at (pino's numbers: 20, 30, 40, 50). */
export type AccessLevel = 'debug' | 'info' | 'warn' | 'error'

/** What one access line says: docs/operations.md lists the fields. */
export interface AccessLine {
  reqId: string
  method: string
  /** The path without its query string. */
  path: string
  /** The route template, or the mount's label. */
  route: string
  /** The authenticated master account, if any. */
  user: string | undefined
  statusCode: number
  /** Milliseconds, rounded to the microsecond. */
  responseTime: number
  /** The client went away before the whole answer was written. */
  aborted: boolean
}

/** Where a logger's access lines go pre-formatted, and the bindings they carry. */
interface Direct {
  destination: { write(line: string): unknown }
  /** pino's `,"key":value` text of the logger's `base` bindings. */
  bindings: string
}

const direct = new WeakMap<Logger, Direct>()

/**
 * Says that `logger` was made as `pino({ level, base }, destination)` with
 * nothing else set: its access lines may then be formatted here and written
 * to `destination`, byte for byte as pino would write them.
 */
export function writeAccessLinesTo(
  logger: Logger,
  destination: Direct['destination'],
  base: Record<string, string | number>,
): void {
  const text = JSON.stringify(base)
  direct.set(logger, { destination, bindings: text === '{}' ? '' : `,${text.slice(1, -1)}` })
}

/** The start of a line at each level, up to its time. */
const LEVEL_PREFIXES = {
  debug: '{"level":20,"time":',
  info: '{"level":30,"time":',
  warn: '{"level":40,"time":',
  error: '{"level":50,"time":',
} as const

/** The text of a line that its method, route and status decide, around the fields that change. */
interface LinePieces {
  /** `,"method":"GET","path":` */
  readonly beforePath: string
  /** `},"route":"/api/sites/{site_name}"` */
  readonly afterPath: string
  /** `,"res":{"statusCode":200},"responseTime":` */
  readonly beforeTime: string
  /** `,"msg":"GET /api/sites/{site_name} 200"}` and the newline. */
  readonly end: string
}

/**
 * Pieces kept, by route, then by status and method: an app has a few
 * dozen combinations, and a line reuses them rather than stringifying and
 * joining each again (issue 38: the line went from 24 joined parts and 7
 * stringifies to 15 and 2). Bounded whatever labels a router gives; past
 * the bounds a line's pieces are made for it alone.
 */
const PIECES_MAX = 4096
const METHODS_MAX = 64
const piecesByRoute = new Map<string, Map<number, LinePieces>>()
const methodNumbers = new Map<string, number>()
let piecesKept = 0

function piecesOf(method: string, route: string, status: number): LinePieces {
  let methodNumber = methodNumbers.get(method)
  if (methodNumber === undefined && methodNumbers.size < METHODS_MAX) {
    methodNumber = methodNumbers.size
    methodNumbers.set(method, methodNumber)
  }
  let byCode = piecesByRoute.get(route)
  const code = methodNumber === undefined ? -1 : status * METHODS_MAX + methodNumber
  let pieces = byCode?.get(code)
  if (pieces !== undefined) return pieces
  pieces = {
    beforePath: joined(',"method":', JSON.stringify(method), ',"path":'),
    afterPath: joined('},"route":', JSON.stringify(route)),
    beforeTime: joined(',"res":{"statusCode":', String(status), '},"responseTime":'),
    end: joined(',"msg":', JSON.stringify(`${method} ${route} ${status}`), '}\n'),
  }
  if (code >= 0 && piecesKept < PIECES_MAX) {
    if (byCode === undefined) piecesByRoute.set(route, (byCode = new Map()))
    byCode.set(code, pieces)
    piecesKept++
  }
  return pieces
}

/**
 * The parts as one flat string: a join of several parts copies them into
 * one, where a template literal makes a tree of its parts that every later
 * join (the batch of lines, lib/cli/log-batch.ts) would walk again.
 */
function joined(...parts: string[]): string {
  return parts.join('')
}

/** The fraction part of a millisecond count, by microseconds: `''`, `.001`, … `.5`, … `.999` (no trailing zeros). */
const FRACTIONS = Array.from({ length: 1000 }, (_, n) =>
  n === 0 ? '' : `.${String(n).padStart(3, '0').replace(/0+$/, '')}`,
)

/**
 * `String(ms)` for milliseconds rounded to the microsecond, as pino prints
 * them, but made from integers: a double's shortest text (V8's dtoa) cost
 * about 1,300 instructions a line (issue 38). Past about 35 minutes, or for
 * anything odd, it is `String(ms)` itself.
 */
export function millisecondsText(ms: number): string {
  const micros = Math.round(ms * 1000)
  if (!(micros >= 0 && micros < 2 ** 31)) return String(ms)
  const whole = Math.floor(micros / 1000)
  return `${whole}${FRACTIONS[micros - whole * 1000] as string}`
}

/** The text of one access line, with pino's field order and number formatting, ending in a newline. */
export function formatAccessLine(level: AccessLevel, bindings: string, line: AccessLine, time = Date.now()): string {
  const pieces = piecesOf(line.method, line.route, line.statusCode)
  const id = JSON.stringify(line.reqId)
  const user = line.user === undefined ? '' : `,"user":${JSON.stringify(line.user)}`
  const aborted = line.aborted ? ',"aborted":true' : ''
  return (
    `${LEVEL_PREFIXES[level]}${time}${bindings},"reqId":${id},"req":{"id":${id}${pieces.beforePath}` +
    `${JSON.stringify(line.path)}${pieces.afterPath}${user}${pieces.beforeTime}${millisecondsText(line.responseTime)}${aborted}${pieces.end}`
  )
}

/** Writes access lines to `logger`: pre-formatted when it asked for that, else through pino. */
export function accessLineWriter(logger: Logger): (level: AccessLevel, line: AccessLine) => void {
  const to = direct.get(logger)
  if (to !== undefined) return (level, line) => to.destination.write(formatAccessLine(level, to.bindings, line))
  return (level, line) => {
    const fields: Record<string, unknown> = {
      reqId: line.reqId,
      req: { id: line.reqId, method: line.method, path: line.path },
      route: line.route,
    }
    if (line.user !== undefined) fields.user = line.user
    fields.res = { statusCode: line.statusCode }
    fields.responseTime = line.responseTime
    if (line.aborted) fields.aborted = true
    logger[level](fields, `${line.method} ${line.route} ${line.statusCode}`)
  }
}
