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

/** The levels an access line is written at, with pino's numbers. */
const LEVEL_NUMBERS = { debug: 20, info: 30, warn: 40, error: 50 } as const

/** A level an access line is written at. */
export type AccessLevel = keyof typeof LEVEL_NUMBERS

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

/** Most strings {@link quotedOnce} keeps: method names and route templates, a fixed set per app. */
const QUOTED_MAX = 256
const quotedTexts = new Map<string, string>()

/**
 * `JSON.stringify(text)`, kept for the strings every line repeats (the
 * method and the route template, and the message made of them): a lookup
 * costs a fraction of a stringify, and three of the seven stringifies a
 * line made were these (about 0.4 µs of its 1.7 here, issue 38). Bounded
 * whatever labels a router gives; past the bound a string is stringified
 * each time.
 */
function quotedOnce(text: string): string {
  let quoted = quotedTexts.get(text)
  if (quoted === undefined) {
    quoted = JSON.stringify(text)
    if (quotedTexts.size < QUOTED_MAX) quotedTexts.set(text, quoted)
  }
  return quoted
}

/** The text of one access line, with pino's field order and number formatting, ending in a newline. */
export function formatAccessLine(level: AccessLevel, bindings: string, line: AccessLine, time = Date.now()): string {
  const id = JSON.stringify(line.reqId)
  const method = quotedOnce(line.method)
  const route = quotedOnce(line.route)
  const user = line.user === undefined ? '' : `,"user":${JSON.stringify(line.user)}`
  const aborted = line.aborted ? ',"aborted":true' : ''
  // Neither needed escaping (the usual case): nor does the message made of them and a number.
  const msg =
    method.length === line.method.length + 2 && route.length === line.route.length + 2
      ? `"${line.method} ${line.route} ${line.statusCode}"`
      : JSON.stringify(`${line.method} ${line.route} ${line.statusCode}`)
  return (
    `{"level":${LEVEL_NUMBERS[level]},"time":${time}${bindings},"reqId":${id},` +
    `"req":{"id":${id},"method":${method},"path":${JSON.stringify(line.path)}},` +
    `"route":${route}${user},"res":{"statusCode":${line.statusCode}},` +
    `"responseTime":${line.responseTime}${aborted},"msg":${msg}}\n`
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
