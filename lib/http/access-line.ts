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
  /**
   * Plain text that JSON writes as it is: the observer's ids are letters,
   * digits and `._:@/+=-` only (REQUEST_ID, lib/http/observe.ts), so a line
   * quotes the id without JSON.stringify, which cost about 800 instructions
   * a line (issue 38, callgrind).
   */
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
  destination: { write(line: string): unknown } | AccessLineBunches
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
  /** `,"method":"GET","path":"` */
  readonly beforePath: string
  /** `"},"route":"/api/sites/{site_name}"` */
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
    beforePath: joined(',"method":', JSON.stringify(method), ',"path":"'),
    afterPath: joined('"},"route":', JSON.stringify(route)),
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
 * The `,"user":…` text of each master account seen, up to a bound: callers
 * are a few accounts, and their cached verdicts (lib/http/auth.ts) give the
 * same string each time, so a lookup finds its hash made and skips the
 * JSON.stringify of every line (about 800 instructions, issue 38).
 */
const USER_FIELDS_MAX = 1024
const userFields = new Map<string, string>()

function userField(user: string): string {
  let field = userFields.get(user)
  if (field === undefined) {
    field = joined(',"user":', JSON.stringify(user))
    if (userFields.size < USER_FIELDS_MAX) userFields.set(user, field)
  }
  return field
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
 * `0` to `999`, and `000` to `999` with leading zeros: a number printed with
 * `String` is a call into V8's runtime, about 200 instructions each, and a
 * line printed two (issue 38, callgrind).
 */
const SMALL = Array.from({ length: 1000 }, (_, n) => String(n))
const THREE_DIGITS = SMALL.map((text) => text.padStart(3, '0'))

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
  return (whole < 1000 ? (SMALL[whole] as string) : String(whole)) + (FRACTIONS[micros - whole * 1000] as string)
}

/** The millions of milliseconds of the last time printed, and their text. */
let millionsDone = -1
let millionsText = ''

/**
 * `String(time)` for a time in whole milliseconds since 1970, from two
 * small integers: the time is too large for V8's small integers, so
 * `String` takes the double's shortest-text path, about 800 instructions
 * a line with its allocation (issue 38, callgrind). The millions change
 * once in 17 minutes; the rest is two kept texts of three digits.
 */
export function timeText(time: number): string {
  if (!(time >= 1e6 && Number.isSafeInteger(time))) return String(time)
  const millions = Math.floor(time / 1e6)
  if (millions !== millionsDone) {
    millionsDone = millions
    millionsText = String(millions)
  }
  const rest = time - millions * 1e6
  const thousands = Math.floor(rest / 1000)
  return millionsText + (THREE_DIGITS[thousands] as string) + (THREE_DIGITS[rest - thousands * 1000] as string)
}

/**
 * What `JSON.stringify(text)` writes between its quotes: `text` itself when
 * no character needs an escape, which a scan of a path's few dozen
 * characters finds at a fraction of the builtin's call, about 1,100
 * instructions a line (issue 38, callgrind). The quotes are in the line's
 * kept pieces, so the common case joins nothing. Anything else (quotes,
 * backslashes, controls, non-ASCII) is the builtin's.
 */
export function jsonEscaped(text: string): string {
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at)
    if (code < 0x20 || code === 0x22 || code === 0x5c || code > 0x7e) return JSON.stringify(text).slice(1, -1)
  }
  return text
}

/** The text of one access line, with pino's field order and number formatting, ending in a newline. */
export function formatAccessLine(level: AccessLevel, bindings: string, line: AccessLine, time = Date.now()): string {
  const pieces = piecesOf(line.method, line.route, line.statusCode)
  const id = line.reqId
  const user = line.user === undefined ? '' : userField(line.user)
  const aborted = line.aborted ? ',"aborted":true' : ''
  return (
    `${LEVEL_PREFIXES[level]}${timeText(time)}${bindings},"reqId":"${id}","req":{"id":"${id}"${pieces.beforePath}` +
    `${jsonEscaped(line.path)}${pieces.afterPath}${user}${pieces.beforeTime}${millisecondsText(line.responseTime)}${aborted}${pieces.end}`
  )
}

/** Writes access lines to `logger`: pre-formatted when it asked for that, else through pino. */
export function accessLineWriter(logger: Logger): (level: AccessLevel, line: AccessLine) => void {
  const to = direct.get(logger)
  if (to !== undefined) {
    const { destination, bindings } = to
    if (destination instanceof AccessLineBunches)
      return (level, line) => destination.hold(level, bindings, line, Date.now())
    return (level, line) => destination.write(formatAccessLine(level, bindings, line))
  }
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

/** Access lines a {@link AccessLineBunches} holds before it formats them all. */
export const ACCESS_LINE_BUNCH = 256

/** A destination that writes its lines on and can be told to write out what it holds. */
export interface FlushableDestination {
  write(line: string): unknown
  flush(): void
}

/**
 * A pino destination in front of `out` that holds access lines unformatted
 * and formats them {@link ACCESS_LINE_BUNCH} at a time, and every
 * `flushMs`, into one text written to `out` at once (so one `write` may
 * carry many lines). Each line keeps the time its answer closed. Any other
 * line, and `flush`, first formats the lines held, so every line reaches `out`
 * in the order it was written; `flush` then flushes `out`, so a line waits
 * no more than `flushMs` in all.
 *
 * Why: over HTTP a line formatted between two answers cost about 6.5 µs of
 * CPU, against about 1 µs in a loop (issue 38, benchmark/observation-cost.ts,
 * pinned): the formatter's code and pieces had left the caches by the next
 * answer. Formatted in a bunch, the same lines cost about 3.5 µs.
 *
 * Give it to the logger and to {@link writeAccessLinesTo} both.
 */
export class AccessLineBunches implements FlushableDestination {
  readonly #out: FlushableDestination
  readonly #levels: AccessLevel[] = []
  readonly #bindings: string[] = []
  readonly #lines: Array<AccessLine | undefined> = []
  readonly #times = new Float64Array(ACCESS_LINE_BUNCH)
  #held = 0

  constructor(out: FlushableDestination, flushMs: number) {
    this.#out = out
    setInterval(() => this.flush(), flushMs).unref()
  }

  /** Holds one access line, formatting the bunch once it is full. */
  hold(level: AccessLevel, bindings: string, line: AccessLine, time: number): void {
    const at = this.#held++
    this.#levels[at] = level
    this.#bindings[at] = bindings
    this.#lines[at] = line
    this.#times[at] = time
    if (this.#held === ACCESS_LINE_BUNCH) this.#formatHeld()
  }

  /** Writes a line (pino's) after the access lines held before it. */
  write(line: string): void {
    if (this.#held > 0) this.#formatHeld()
    this.#out.write(line)
  }

  /** Formats the lines held and flushes `out`: at exit, and every `flushMs`. */
  flush(): void {
    if (this.#held > 0) this.#formatHeld()
    this.#out.flush()
  }

  /**
   * The lines held go out as one text, in one write: each write is a call
   * into C++ (Buffer's write, then V8's flatten and encode), and one per
   * bunch spares each line the call's own cost (issue 38, callgrind).
   *
   * Tried and measured worse (issue 38): putting each line's bytes into the
   * batch from JS (the kept pieces as bytes, the ids, path and numbers byte
   * by byte). A JS byte loop ran at about 1.8 ns a byte here, a line so made
   * took 2.3 times as long as these joins, and the CLI's request counted
   * about 10,000 instructions more. V8's join, flatten and encode are copies
   * in C++ that JS cannot beat. Fewer, longer joins (the pieces merged per
   * user, each line's start kept per millisecond) were about 15 % faster in
   * a loop but left the request's count where it was.
   */
  #formatHeld(): void {
    const held = this.#held
    // Counted out first: a write that throws must not leave lines to be written twice.
    this.#held = 0
    let text = ''
    for (let at = 0; at < held; at++) {
      const line = this.#lines[at] as AccessLine
      this.#lines[at] = undefined
      text += formatAccessLine(this.#levels[at] as AccessLevel, this.#bindings[at] as string, line, this.#times[at])
    }
    this.#out.write(text)
  }
}
