/**
 * The request ids the access log and `X-Request-Id` carry (lib/http/observe.ts):
 * `{16 hex digits}-{base-36 counter}`, the counter's text kept in two parts.
 */
import t from 'tap'
import { newRequestId } from '../../lib/http/observe.js'

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
