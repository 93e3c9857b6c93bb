import fc from 'fast-check'
import t from 'tap'
import { checkProperty, replayable } from '../helpers/fuzz-seed.js'
import UAParser from 'ua-parser-js'
import UserAgent from 'user-agents'
import { systemOf, userAgentParserReady } from '../../lib/engine/recording/user-agent.js'

replayable(t, import.meta.url)

// ua-parser-js loads on first use; these tests call the reducer directly.
await userAgentParserReady('load')

t.test('reduces real User-Agents to "<browser> <major>" and the OS name', async (t) => {
  const cases: [string, string, string][] = [
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
      'Mobile Safari 17',
      'iOS',
    ],
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36',
      'Chrome 120',
      'Android',
    ],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0', 'Firefox 121', 'Windows'],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.91',
      'Edge 120',
      'Mac OS',
    ],
  ]
  for (const [ua, browser, os] of cases) t.strictSame(systemOf(ua), { browser, os }, browser)
})

t.test('what cannot be told is Unknown', async (t) => {
  for (const ua of [undefined, '', 'curl/8.4.0', 'garbage'])
    t.strictSame(systemOf(ua), { browser: 'Unknown', os: 'Unknown' }, String(ua))
})

t.test('the cache answers exactly what the parser would', async (t) => {
  const direct = (ua: string) => {
    const parsed = new UAParser(ua).getResult()
    const name = parsed.browser.name
    return {
      browser: name ? (parsed.browser.major ? `${name} ${parsed.browser.major}` : name) : 'Unknown',
      os: parsed.os.name || 'Unknown',
    }
  }
  const real = Array.from({ length: 200 }, () => new UserAgent().toString())
  const ua = fc.oneof(
    fc.constantFrom(...real),
    // Beyond 500 characters the parser trims leading space and cuts: padding on either side must not fool the cache.
    fc
      .tuple(fc.constantFrom(...real), fc.nat(700), fc.nat(700))
      .map(([u, before, after]) => ' '.repeat(before) + u + 'x'.repeat(after)),
    fc.string({ maxLength: 40 }),
  )
  // Two calls on the same string must give the very same object: the second comes from the cache.
  const cached = (s: string): boolean => {
    const first = systemOf(s)
    return first === systemOf(s)
  }
  checkProperty(
    import.meta.url,
    fc.property(ua, (s) => JSON.stringify(systemOf(s)) === JSON.stringify(direct(s)) && cached(s)),
    { numRuns: 2000 },
  )
  t.pass('2,000 User-Agents agreed with an uncached parse, and repeats come from the cache')
})
