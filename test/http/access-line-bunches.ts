/**
 * Access lines held unformatted and formatted in bunches
 * (lib/http/access-line.ts, AccessLineBunches): each line is byte for byte
 * the one written at once, with the time its answer closed; every line
 * reaches the destination in the order it was written, access lines or
 * not; a full bunch, a flush and the timer each write what is held, once.
 */
import { pino } from 'pino'
import t from 'tap'
import {
  ACCESS_LINE_BUNCH,
  AccessLineBunches,
  accessLineWriter,
  formatAccessLine,
  writeAccessLinesTo,
  type AccessLine,
} from '../../lib/http/access-line.js'

const BINDINGS = ',"service":"mobisite"'
const FLUSH_MS = 50

/** The lines of a text written, each with its newline: a bunch comes as one text. */
const linesOf = (text: string): string[] => text.match(/[^\n]*\n/g) ?? []

/** A destination that keeps each line, and counts its writes and flushes. */
function recorder(): { write(text: string): void; flush(): void; lines: string[]; writes: number; flushes: number } {
  const out = {
    lines: [] as string[],
    writes: 0,
    flushes: 0,
    write: (text: string) => {
      out.writes++
      out.lines.push(...linesOf(text))
    },
    flush: () => void out.flushes++,
  }
  return out
}

/** The logger the CLI makes, over bunches in front of `out`. */
function bunchedLogger(out: ReturnType<typeof recorder>) {
  const bunches = new AccessLineBunches(out, FLUSH_MS)
  const logger = pino({ level: 'debug', base: { service: 'mobisite' } }, bunches)
  writeAccessLinesTo(logger, bunches, { service: 'mobisite' })
  return { bunches, logger, write: accessLineWriter(logger) }
}

const lineOf = (n: number): AccessLine => ({
  reqId: `req-${n}`,
  method: n % 3 === 0 ? 'POST' : 'GET',
  path: n % 5 === 0 ? `/api/sites/é"${n}` : `/api/sites/s${n}`,
  route: '/api/sites/{site_name}',
  user: n % 2 === 0 ? 'ops' : undefined,
  statusCode: n % 7 === 0 ? 404 : 200,
  responseTime: n / 1000,
  aborted: n % 11 === 0,
})

t.test('each held line is the line written at once, with the time its answer closed', async (t) => {
  const out = recorder()
  const { bunches, write } = bunchedLogger(out)
  const before = Date.now()
  for (let n = 0; n < 10; n++) write(n % 7 === 0 ? 'warn' : 'info', lineOf(n))
  const after = Date.now()
  t.equal(out.lines.length, 0, 'held, not yet formatted')
  bunches.flush()
  t.equal(out.lines.length, 10)
  let differing = 0
  for (let n = 0; n < 10; n++) {
    const time = (JSON.parse(out.lines[n]!) as { time: number }).time
    t.ok(time >= before && time <= after, `line ${n}: the time it was held`)
    if (out.lines[n] !== formatAccessLine(n % 7 === 0 ? 'warn' : 'info', BINDINGS, lineOf(n), time)) differing++
  }
  t.equal(differing, 0, 'byte for byte')
})

t.test('other lines come after the access lines held before them, and before those after', async (t) => {
  const out = recorder()
  const { bunches, logger, write } = bunchedLogger(out)
  write('info', lineOf(1))
  write('info', lineOf(2))
  logger.warn({ store: 'redis' }, 'connection lost')
  write('info', lineOf(3))
  logger.info('shutting down')
  write('debug', lineOf(4))
  bunches.flush()
  t.same(
    out.lines.map((line) => JSON.parse(line) as { reqId?: string; msg: string }).map((l) => l.reqId ?? l.msg),
    ['req-1', 'req-2', 'connection lost', 'req-3', 'shutting down', 'req-4'],
  )
})

t.test(`a full bunch of ${ACCESS_LINE_BUNCH} is formatted at once; a flush writes the rest, once`, async (t) => {
  const out = recorder()
  const { bunches, write } = bunchedLogger(out)
  for (let n = 0; n < ACCESS_LINE_BUNCH - 1; n++) write('info', lineOf(n))
  t.equal(out.lines.length, 0, 'one short of a bunch: all held')
  write('info', lineOf(ACCESS_LINE_BUNCH - 1))
  t.equal(out.lines.length, ACCESS_LINE_BUNCH, 'the bunch is written')
  t.equal(out.writes, 1, 'as one text, in one write')
  for (let n = ACCESS_LINE_BUNCH; n < ACCESS_LINE_BUNCH + 5; n++) write('info', lineOf(n))
  t.equal(out.lines.length, ACCESS_LINE_BUNCH)
  const flushes = out.flushes
  bunches.flush()
  t.equal(out.lines.length, ACCESS_LINE_BUNCH + 5, 'the flush writes the rest')
  t.equal(out.flushes, flushes + 1, 'and flushes the destination behind')
  bunches.flush()
  t.equal(out.lines.length, ACCESS_LINE_BUNCH + 5, 'a second flush writes nothing again')
  t.same(
    out.lines.map((line) => (JSON.parse(line) as { reqId: string }).reqId),
    Array.from({ length: ACCESS_LINE_BUNCH + 5 }, (_, n) => `req-${n}`),
    'every line once, in order',
  )
})

t.test(`a lone line is written and flushed within flushMs (${FLUSH_MS} ms here)`, async (t) => {
  const out = recorder()
  const { write } = bunchedLogger(out)
  write('info', lineOf(1))
  const flushes = out.flushes
  const deadline = Date.now() + 40 * FLUSH_MS
  while (out.lines.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, FLUSH_MS / 5))
  t.equal(out.lines.length, 1, 'the timer formatted it')
  t.ok(out.flushes > flushes, 'and flushed the destination behind')
})

t.test('a write that throws loses the lines it was writing, and never writes one twice', async (t) => {
  const lines: string[] = []
  let failNext = false
  const out = {
    write(line: string) {
      if (failNext) {
        failNext = false
        throw new Error('EIO')
      }
      lines.push(...linesOf(line))
    },
    flush() {},
  }
  const bunches = new AccessLineBunches(out, FLUSH_MS)
  const logger = pino({ level: 'info', base: null }, bunches)
  writeAccessLinesTo(logger, bunches, {})
  const write = accessLineWriter(logger)
  write('info', lineOf(1))
  write('info', lineOf(2))
  failNext = true
  t.throws(() => bunches.flush(), /EIO/)
  write('info', lineOf(3))
  bunches.flush()
  t.same(
    lines.map((line) => (JSON.parse(line) as { reqId: string }).reqId),
    ['req-3'],
    'the lines of the failed write are not written again',
  )
})
