/**
 * The request ids the access log and `X-Request-Id` carry (lib/http/observe.ts):
 * `{16 hex digits}-{base-36 counter}`, the counter's text kept in two parts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import t from 'tap'
import { newRequestId, requestIdOf } from '../../lib/http/observe.js'

t.test('the counter counts in base 36, across every change of its upper digits', async (t) => {
  const first = newRequestId()
  const [prefix, start] = first.split('-') as [string, string]
  t.match(prefix, /^[0-9a-f]{16}$/)
  let expected = Number.parseInt(start, 36)
  let wrong = 0
  // Past 36², 2 × 36² and 36³: the digits above the last two change and grow by one.
  for (let i = 0; i < 3 * 36 ** 3; i++) {
    expected++
    if (newRequestId() !== `${prefix}-${expected.toString(36)}`) wrong++
  }
  t.equal(wrong, 0, `${3 * 36 ** 3} ids, each the next number`)
})

t.test('every id given out is text JSON writes as it is, whatever X-Request-Id a client sends', async (t) => {
  // Access lines quote the id without escaping it (lib/http/access-line.ts).
  const sent = [
    undefined,
    'plain-id.1:2@3/4+5=6_7',
    'a"b',
    'a\\b',
    'tab\there',
    '\u0001',
    'é',
    '__proto__',
    '',
    'x'.repeat(128),
    'x'.repeat(129),
    ...Array.from({ length: 128 }, (_, code) => `id${String.fromCharCode(code)}`),
  ]
  for (const given of sent) {
    const echoed: string[] = []
    const req = { headers: given === undefined ? {} : { 'x-request-id': given } } as IncomingMessage
    const res = { setHeader: (_name: string, value: string) => void echoed.push(value) } as unknown as ServerResponse
    const id = requestIdOf(req, res)
    t.equal(JSON.stringify(id), `"${id}"`, `sent ${JSON.stringify(given)}`)
    t.same(echoed, [id], 'and echoed as X-Request-Id')
    if (given !== undefined && /^[A-Za-z0-9._:@/+=-]{1,128}$/.test(given)) t.equal(id, given, 'a plain id is kept')
  }
})
