/**
 * The CLI's access lines are formatted by hand (lib/http/access-line.ts):
 * they must be byte for byte what pino writes for the same fields, and a
 * logger that did not ask for it must still get its lines through pino.
 */
import t from 'tap'
import { pino } from 'pino'
import {
  accessLineWriter,
  formatAccessLine,
  millisecondsText,
  jsonEscaped,
  timeText,
  writeAccessLinesTo,
  type AccessLevel,
  type AccessLine,
} from '../../lib/http/access-line.js'

const TIME = 1_795_000_000_123
const BASE = { service: 'mobisite' }

/** A pino logger made as the CLI makes its own, with a fixed clock, writing into `out`. */
function cliLikeLogger(out: string[]) {
  return pino(
    { level: 'debug', base: BASE, timestamp: () => `,"time":${TIME}` },
    { write: (text: string) => void out.push(text) },
  )
}

const plain: AccessLine = {
  reqId: '3f9c0a1b2c4d5e6f-1a',
  method: 'GET',
  path: '/api/sites/logged-site',
  route: '/api/sites/{site_name}',
  user: 'ops',
  statusCode: 200,
  responseTime: 0.412,
  aborted: false,
}

const lines: Array<[string, AccessLevel, AccessLine]> = [
  ['a plain answer', 'info', plain],
  ['no user, a client error', 'warn', { ...plain, user: undefined, statusCode: 404, route: '(unmatched)' }],
  ['a server error, the client gone', 'error', { ...plain, statusCode: 500, aborted: true }],
  ['a probe at debug', 'debug', { ...plain, user: undefined, path: '/healthz', route: '/healthz' }],
  ['a whole-number time', 'info', { ...plain, responseTime: 3 }],
  ['quotes, backslashes and controls', 'warn', { ...plain, path: '/a"b\\c\u0001d\te' }],
  ['non-ASCII and a long path', 'info', { ...plain, path: `/é/${'x'.repeat(80)}`, user: 'üser' }],
  ['ordinary names that look special', 'info', { ...plain, user: '__proto__', path: '/constructor' }],
  ['a route label that needs escaping', 'info', { ...plain, route: '/a"b\\c' }],
  ['a method and route never seen before', 'info', { ...plain, method: 'PROPFIND', route: '/dav/{path}' }],
]

t.test('each line equals the one pino writes for the same fields', async (t) => {
  for (const [what, level, line] of lines) {
    const viaPino: string[] = []
    accessLineWriter(cliLikeLogger(viaPino))(level, line)
    t.equal(viaPino.length, 1, `${what}: pino wrote one line`)
    t.equal(formatAccessLine(level, ',"service":"mobisite"', line, TIME), viaPino[0], what)
  }
})

t.test('lines past the kept pieces are still written as pino writes them', async (t) => {
  const viaPino: string[] = []
  const write = accessLineWriter(cliLikeLogger(viaPino))
  let differing = 0
  // The formatter keeps the pieces of 4,096 method, route and status combinations and numbers
  // 64 methods, and the user fields of 1,024 accounts: 5,000 lines of 70 methods, 50 routes (a
  // quote in each tenth), 100 statuses and 1,100 users (some needing escapes, some none) go past all.
  for (let i = 0; i < 5000; i++) {
    const route = i % 10 === 0 ? `/r"${i % 50}` : `/r/${i % 50}/{x}`
    const user = i % 11 === 0 ? undefined : i % 7 === 0 ? `ü"\\${i % 1100}` : `u${i % 1100}`
    const line = { ...plain, method: `M${i % 70}`, route, user, statusCode: 100 + Math.floor(i / 50) }
    write('info', line)
    if (formatAccessLine('info', ',"service":"mobisite"', line, TIME) !== viaPino.at(-1)) differing++
    // The same combination again, now from the kept pieces where it was kept.
    if (formatAccessLine('info', ',"service":"mobisite"', line, TIME) !== viaPino.at(-1)) differing++
  }
  t.equal(viaPino.length, 5000)
  t.equal(differing, 0, 'every line equal, below and past the bounds')
})

t.test('paths are quoted as JSON.stringify quotes them, whatever their characters', async (t) => {
  let differing = 0
  // Every UTF-16 code unit, lone surrogates included, alone and inside a plain path.
  for (let code = 0; code <= 0xffff; code++) {
    const unit = String.fromCharCode(code)
    for (const path of [unit, `/api/sites/a${unit}b`])
      if (`"${jsonEscaped(path)}"` !== JSON.stringify(path)) differing++
  }
  for (const path of ['', '/', '/api/sites/__proto__', '/a?b=c&d', '/😀', `/${'x'.repeat(20_000)}`])
    if (`"${jsonEscaped(path)}"` !== JSON.stringify(path)) differing++
  t.equal(differing, 0)
})

t.test('the fields are those docs/operations.md lists', async (t) => {
  const parsed = JSON.parse(formatAccessLine('error', '', { ...plain, aborted: true }, TIME)) as object
  t.same(Object.keys(parsed), [
    'level',
    'time',
    'reqId',
    'req',
    'route',
    'user',
    'res',
    'responseTime',
    'aborted',
    'msg',
  ])
  t.match(parsed, {
    level: 50,
    req: { id: plain.reqId, method: 'GET', path: plain.path },
    res: { statusCode: 200 },
    msg: 'GET /api/sites/{site_name} 200',
  })
})

t.test('only a logger that asked has its lines written around pino', async (t) => {
  const viaPino: string[] = []
  const direct: string[] = []
  const asked = cliLikeLogger(viaPino)
  writeAccessLinesTo(asked, { write: (text: string) => direct.push(text) }, BASE)
  accessLineWriter(asked)('info', plain)
  t.equal(viaPino.length, 0, 'not through pino')
  t.equal(direct.length, 1, 'straight to its destination')
  t.match(JSON.parse(direct[0]!), { level: 30, service: 'mobisite', reqId: plain.reqId, time: Number })

  // Someone else's logger may redact, serialize or format: its own options decide.
  const theirs: string[] = []
  const redacting = pino(
    { base: null, redact: ['user'], timestamp: false },
    { write: (text: string) => void theirs.push(text) },
  )
  accessLineWriter(redacting)('info', plain)
  t.match(JSON.parse(theirs[0]!), { user: '[Redacted]', reqId: plain.reqId })
  t.equal(direct.length, 1, 'nothing else went the direct way')

  const bare: string[] = []
  writeAccessLinesTo(redacting, { write: (text: string) => bare.push(text) }, {})
  accessLineWriter(redacting)('info', plain)
  t.match(bare[0], /^\{"level":30,"time":\d+,"reqId":/, 'no bindings: the fields follow the time')
})

t.test('times are printed as pino prints them, from integers', async (t) => {
  // Every microsecond up to 5 s, and the odd values that take String() itself.
  let differing = 0
  for (let micros = 0; micros <= 5_000_000; micros++) {
    const ms = Math.round(micros) / 1000
    if (millisecondsText(ms) !== String(ms)) differing++
  }
  t.equal(differing, 0, 'every microsecond from 0 to 5 s')
  for (const ms of [2_147_483.647, 2_147_483.648, 86_400_000.5, -1, Number.NaN, 1e21, 0.0004, 0.0005]) {
    t.equal(millisecondsText(Math.round(ms * 1000) / 1000), String(Math.round(ms * 1000) / 1000), `${ms}`)
  }
  for (const responseTime of [0, 0.001, 0.01, 0.1, 1.5, 12.345, 999.999, 60_000.25]) {
    const viaPino: string[] = []
    accessLineWriter(cliLikeLogger(viaPino))('info', { ...plain, responseTime })
    t.equal(formatAccessLine('info', ',"service":"mobisite"', { ...plain, responseTime }, TIME), viaPino[0])
  }
})

t.test('clock times are printed as String prints them, past every carry of the six low digits', async (t) => {
  let differing = 0
  for (const millions of [1, 9, 10, 1_795_000, 1_795_999, 9_007_199]) {
    for (const rest of [0, 1, 9, 10, 99_999, 100_000, 999_998, 999_999]) {
      const time = millions * 1e6 + rest
      if (timeText(time) !== String(time)) differing++
    }
  }
  // A day of lines, a few milliseconds apart, in one process: the kept millions change under it.
  for (let time = 1_795_000_000_000; time < 1_795_086_400_000; time += 7_919)
    if (timeText(time) !== String(time)) differing++
  t.equal(differing, 0)
  for (const odd of [0, 999_999, -1, 1_795_000_000_000.5, 2 ** 53, 2 ** 53 + 2, Number.NaN, Number.POSITIVE_INFINITY])
    t.equal(timeText(odd), String(odd), `${odd}: String itself`)
})
