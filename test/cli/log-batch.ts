/**
 * The CLI's stdout batch (lib/cli/log-batch.ts): every line comes out whole,
 * in order and byte for byte, through pino's own destination as the CLI
 * makes it; a batch never passes LOG_BATCH_BYTES or splits a line; a line
 * too long for a batch goes out alone, after the lines before it; the timer
 * writes a lone line; and nothing is written twice.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import t from 'tap'
import { batchedLines, bytesInto, LOG_BATCH_BYTES, LOG_FLUSH_MS } from '../../lib/cli/log-batch.js'

/** A destination that keeps a copy of each write. */
function recorder(): { write(bytes: Buffer): void; writes: Buffer[]; text(): string } {
  const writes: Buffer[] = []
  return {
    writes,
    write: (bytes) => void writes.push(Buffer.from(bytes)),
    text: () => Buffer.concat(writes).toString('utf8'),
  }
}

/** A line of `length` UTF-16 units ending in a newline, numbered so order shows. */
const lineOf = (n: number, length: number, fill = 'x'): string => {
  const head = `{"n":${n},"pad":"`
  return `${head}${fill.repeat(length - head.length - 3)}"}\n`
}

t.test('through pino.destination as the CLI makes it: the bytes of every line, in order, after flush', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mobisite-log-batch-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'out.log')
  const out = batchedLines(bytesInto(pino.destination({ dest: file, sync: true, contentMode: 'buffer' })))
  const lines = [
    '{"msg":"plain"}\n',
    '{"msg":"café ünïcödé"}\n',
    '{"msg":"emoji 😀 and CJK 漢字"}\n',
    '{"msg":"__proto__","constructor":1}\n',
  ]
  for (let i = 0; i < 3000; i++) lines.push(lineOf(i, 200 + (i % 97), i % 5 === 0 ? 'é' : 'x'))
  for (const line of lines) out.write(line)
  t.ok(readFileSync(file).length > 0, 'lines past a batch went out before the flush')
  out.flush()
  t.equal(readFileSync(file, 'utf8'), lines.join(''), 'the file holds every line, byte for byte, in order')
  out.flush()
  t.equal(readFileSync(file, 'utf8'), lines.join(''), 'a second flush writes nothing')
  const logger = pino({ level: 'info', base: { service: 'mobisite' } }, out)
  logger.info({ site: 'ünï' }, 'through pino')
  out.flush()
  const last = readFileSync(file, 'utf8').split('\n').at(-2)!
  t.match(JSON.parse(last), { level: 30, service: 'mobisite', site: 'ünï', msg: 'through pino' })
})

t.test('a batch never passes LOG_BATCH_BYTES nor splits a line', async (t) => {
  const out = recorder()
  const batch = batchedLines(out)
  // A line joins the batch while the bytes so far plus its own worst case (3 a unit) fit.
  const unit = 256
  const perBatch = Math.floor((LOG_BATCH_BYTES - 3 * unit) / unit) + 1
  const lines = Array.from({ length: perBatch * 3 + 5 }, (_, i) => lineOf(i, unit))
  for (const line of lines) batch.write(line)
  t.equal(out.writes.length, 3, `${perBatch} ASCII lines of ${unit} units to a batch`)
  batch.flush()
  t.equal(out.writes.length, 4)
  for (const bytes of out.writes) {
    t.ok(bytes.length <= LOG_BATCH_BYTES, `${bytes.length} bytes`)
    t.equal(bytes.at(-1), 0x0a, 'each write ends at a line end')
  }
  t.equal(out.text(), lines.join(''))
})

t.test(
  'at the boundary: a line whose worst case just fits joins the batch; one unit more starts the next',
  async (t) => {
    const first = lineOf(0, LOG_BATCH_BYTES / 4)
    const room = (LOG_BATCH_BYTES - first.length) / 3
    const fits = recorder()
    const exact = batchedLines(fits)
    exact.write(first)
    exact.write(lineOf(1, room))
    t.equal(fits.writes.length, 0, 'bytes so far + 3 × the next line’s units = LOG_BATCH_BYTES: still one batch')
    exact.flush()
    t.equal(fits.writes.length, 1)
    t.equal(fits.text(), first + lineOf(1, room))

    const over = recorder()
    const past = batchedLines(over)
    past.write(first)
    past.write(lineOf(1, room + 1))
    t.equal(over.writes.length, 1, 'one unit more: the first line goes out first')
    t.equal(over.text(), first)
    past.flush()
    t.equal(over.text(), first + lineOf(1, room + 1))
  },
)

t.test('a line longer than a batch goes out alone, after the lines waiting before it', async (t) => {
  const out = recorder()
  const batch = batchedLines(out)
  const huge = lineOf(1, LOG_BATCH_BYTES * 2, 'ü')
  batch.write(lineOf(0, 100))
  batch.write(huge)
  batch.write(lineOf(2, 100))
  t.equal(out.writes.length, 2, 'the waiting line, then the long one')
  t.equal(out.writes[1]!.toString('utf8'), huge)
  batch.flush()
  t.equal(out.text(), lineOf(0, 100) + huge + lineOf(2, 100))
})

t.test(`a lone line goes out within LOG_FLUSH_MS (${LOG_FLUSH_MS} ms) without a flush`, async (t) => {
  const out = recorder()
  const batch = batchedLines(out)
  batch.write('{"msg":"alone"}\n')
  t.equal(out.writes.length, 0, 'not at once')
  const deadline = Date.now() + 20 * LOG_FLUSH_MS
  while (out.writes.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, LOG_FLUSH_MS / 4))
  t.equal(out.text(), '{"msg":"alone"}\n', 'the timer wrote it')
})
