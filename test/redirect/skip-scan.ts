/**
 * The skip scan in front of the trigger alternation (lib/agents/skip-scan.ts):
 * it must find the global regex's leftmost match and its end on every
 * string, take over only where it can gain, and hand near-miss floods back
 * to the regex. The verdicts are checked through createAgentMatcher.
 */
import fc from 'fast-check'
import t from 'tap'
import { DEFAULT_AGENT_NAMES, DEFAULT_AGENTS } from '../../lib/agents/default.js'
import { createAgentMatcher } from '../../lib/agents/matcher.js'
import { browserShaped, skipScan } from '../../lib/agents/skip-scan.js'
import { checkProperty, replayable } from '../helpers/fuzz-seed.js'
import { publicBotUserAgents } from '../helpers/public-ua-corpus.js'

replayable(t, import.meta.url)

/** The trigger names compile.ts gives the scan: one-piece names and each chain's first piece. */
const DEFAULT_NAMES = DEFAULT_AGENT_NAMES.map((name) => name.split('.*')[0] as string)

/** The global regex's answer: the end of the leftmost match, or -1. */
function regexEnd(names: readonly string[], s: string): number {
  const re = new RegExp(names.join('|'), 'gi')
  return re.test(s) ? re.lastIndex : -1
}

function scanFor(names: readonly string[]) {
  return skipScan(new RegExp(names.join('|'), 'gi'), names)
}

t.test('DEFAULT_AGENTS gets the skip scan; sources it cannot help keep the regex', async (t) => {
  t.type(scanFor(DEFAULT_NAMES), 'function', 'DEFAULT_AGENTS: 13 names, windows of 4')
  t.type(scanFor(['abc', 'Opera\\ Mini']), 'function', 'an escaped space is plain text')
  t.equal(scanFor(['ab', 'iPhone']), undefined, 'a name under 3 characters: shifts of 1 skip nothing')
  t.equal(scanFor(['.Phone', 'iPod']), undefined, 'a name starting with `.`')
  t.equal(scanFor(['\\dPhone', 'iPod']), undefined, 'a name starting with \\d')
  t.equal(scanFor(['\u00e9Phone', 'iPod']), undefined, 'a name starting with a non-ASCII character')
  t.equal(scanFor([]), undefined, 'no names')
  // 30 × 30 names ending in distinct bigrams, each a zero shift: most windows would go to the regex.
  const chars = [...'abcdefghijklmnopqrstuvwxyz0123']
  const crowd = chars.flatMap((a) => chars.map((b) => `x${a}${b}`))
  t.equal(scanFor(crowd), undefined, `${crowd.length} names: too many zero shifts`)
})

t.test('the leftmost match and its end, as the global regex finds them', async (t) => {
  const scan = scanFor(DEFAULT_NAMES)!
  const cases = [
    '',
    'iPh',
    'iPod',
    'IPOD',
    'xiPod',
    'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
    'Mozilla/5.0 (compatible; Googlebot/2.1) Android 6.0.1; Nexus 5X) Mobile Safari',
    // Overlapping candidates: the earlier start wins, then the first alternative there.
    'iPiPhone',
    'BlackBB10;',
    'Windows Phone; OpenHarmony',
    'Opera Mobi Opera Mini',
    // A name at the very end, and one cut short by the end.
    `${'x'.repeat(37)}KAIOS`,
    `${'x'.repeat(37)}KAIO`,
    // Non-ASCII units that fold onto a name's bigrams by their low 7 bits, and case-folding lookalikes.
    '\u0169\u0150hone iPhone',
    '\u0130Phone \u0131Pod \u212Aaios \u017Fymbian',
    'Android\nMobile',
  ]
  for (const s of cases) t.equal(scan(s), regexEnd(DEFAULT_NAMES, s), JSON.stringify(s.slice(0, 60)))
  const bots = publicBotUserAgents.filter((ua) => scan(ua) !== regexEnd(DEFAULT_NAMES, ua))
  t.same(bots, [], `${publicBotUserAgents.length} public bot UAs`)
})

t.test('a flood of near-misses goes back to the regex, and still finds a name after it', async (t) => {
  const scan = scanFor(DEFAULT_NAMES)!
  for (const unit of ['iPhoiPho', 'mobimobi', 'anodanod', 'BlacBlac']) {
    const flood = unit.repeat(2048)
    t.equal(scan(flood), -1, `${unit} repeated: no name`)
    const then = `${flood}Symbian`
    t.equal(scan(then), then.length, `${unit} repeated, then a name`)
    t.equal(createAgentMatcher(DEFAULT_AGENTS, { cache: false })(then), true)
  }
  // Whichever candidate the regex takes over at, a name right there is found, and where it ends.
  for (let misses = 0; misses <= 20; misses++) {
    for (const name of ['iPhone', 'iPod', 'BB10;']) {
      const s = `${'iPhox'.repeat(misses)}${name}`
      t.equal(scan(s), regexEnd(DEFAULT_NAMES, s), `${misses} near-misses, then ${name}`)
    }
  }
})

t.test('browser-shaped UAs go to the regex, the rest to the skip scan: the verdict is the same', async (t) => {
  t.ok(browserShaped('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36'))
  t.ok(browserShaped('Mozilla/5.0 (iPhone; CPU iPhone OS 18_7 like Mac OS X)'))
  t.notOk(browserShaped('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'))
  t.notOk(browserShaped('curl/8.5.0'))
  t.notOk(browserShaped(''))
  const naive = new RegExp(DEFAULT_AGENTS, 'i')
  const isPhone = createAgentMatcher(DEFAULT_AGENTS, { cache: false })
  const bodies = [
    'Linux; Android 14; Pixel 8) Mobile',
    'compatible; MSIE 9.0; Windows Phone OS 7.5',
    'X11; Linux x86_64)',
  ]
  for (const body of bodies) {
    for (const ua of [`Mozilla/5.0 (${body}`, `Mozilla/5.0 (${body.toLowerCase()}`, body]) {
      t.equal(isPhone(ua), naive.test(ua), ua)
    }
  }
})

/** Pieces of names, their case flips, aliases by low bits, and what separates words in a UA. */
const TOKENS = [
  ...DEFAULT_NAMES.flatMap((n) => [n, n.slice(0, 3), n.slice(1), n.toUpperCase(), n.toLowerCase()]),
  'Mozilla/5.0 (',
  'compatible; ',
  'bot',
  'http://',
  ' ',
  ';',
  '\n',
  '\u2028',
  '\u0169',
  '\u01d0',
  '\u0130',
  '\u212A',
]
const subject = fc.array(fc.constantFrom(...TOKENS), { maxLength: 20 }).map((a) => a.join(''))

t.test('generated strings: the skip scan ends where the regex does, and verdicts equal the naive regex', async (t) => {
  const sources = [
    DEFAULT_AGENTS,
    '.*iPhone.*|.*Android.*Mobile.*',
    '.*BB10;.*|.*MIDP.*|.*Opera\\ Mini.*',
    '.*Phone.*|.*Pho.*Android.*',
  ]
  for (const source of sources) {
    const names = source.split('|').map((alt) => alt.split('.*').filter(Boolean)[0] as string)
    const scan = scanFor(names)!
    const naive = new RegExp(source, 'i')
    const isPhone = createAgentMatcher(source, { cache: false })
    checkProperty(
      import.meta.url,
      fc.property(subject, (s) => scan(s) === regexEnd(names, s) && isPhone(s) === naive.test(s)),
      { numRuns: 1000 },
    )
  }
  t.pass('1000 generated strings per source')
})
