/**
 * Differential tests: the compiled matcher against `new RegExp(source, 'i').test`
 * on the whole corpus, on generated and adversarial strings, and on
 * generated sources (linear form and arbitrary regexes).
 */
import fc from 'fast-check'
import t from 'tap'
import { checkProperty, replayable } from '../helpers/fuzz-seed.js'
import { DEFAULT_AGENT_NAMES, DEFAULT_AGENTS } from '../../lib/agents/default.js'
import { compileSource } from '../../lib/agents/compile.js'
import { createAgentMatcher } from '../../lib/agents/matcher.js'
import { corpusUserAgents } from '../helpers/agents-corpus.js'
import { notPhones, phones } from '../helpers/agents-fixtures.js'
import { publicUserAgents } from '../helpers/public-ua-corpus.js'

replayable(t, import.meta.url)

const SOURCES = [
  DEFAULT_AGENTS,
  '.*iPhone.*|.*Android.*Mobile.*',
  '.*PPC.*|.*Mobile.*Safari.*|.*Windows.*NT.*Touch.*',
  '.*Android.*?Mobile.*?Safari.*|.*iP(hone|od).*|.*\\bMobi\\b.*',
  'iPhone|Android.+Mobile|^Opera|BlackBerry\\d+',
]

t.test('whole corpora and fixtures: identical verdicts for several sources', async (t) => {
  // The public corpus (bots included) was not used to build DEFAULT_AGENTS or tune the matcher.
  const uas = [...corpusUserAgents, ...publicUserAgents, ...Object.values(phones), ...Object.values(notPhones)]
  t.ok(publicUserAgents.length > 2500, `public corpus: ${publicUserAgents.length} UAs`)
  for (const source of SOURCES) {
    const naive = new RegExp(source, 'i')
    // `trusted`: some of these are general-mode sources, which only an application's own source may be.
    const uncached = createAgentMatcher(source, { cache: false, trusted: true })
    const cached = createAgentMatcher(source, { cache: 100, trusted: true })
    const diff = uas.filter((ua) => uncached(ua) !== naive.test(ua))
    t.same(diff, [], `uncached, ${source.slice(0, 40)}`)
    for (let pass = 0; pass < 2; pass++) {
      t.same(
        uas.filter((ua) => cached(ua) !== naive.test(ua)),
        [],
        `cached pass ${pass + 1}, ${source.slice(0, 40)}`,
      )
    }
  }
})

/** Strings where a naive reimplementation would go wrong. */
const ADVERSARIAL = [
  'a\niPhone',
  'iPhone\n',
  '\niPhone',
  'Android\nMobile',
  'Android\rMobile',
  'Android\u2028Mobile',
  'Android\u2029Mobile',
  'Android\r\nx Android Mobile',
  'Android Mobile\nx',
  'Mobile Android',
  'Mobile\nAndroid Mobile',
  'AndroidMobile',
  'ANDROID mobile',
  'IPHONE',
  'iphone',
  '\u0130phone',
  '\u0131phone',
  'Blac\u212Aberry',
  '\u017Fymbian',
  '\u212AAIOS',
  'kaios',
  'BB10',
  'bb10;',
  'Opera  Mini',
  'Opera\nMini',
  'Opera Mini',
  'Phone; openharmony',
  'Phone;OpenHarmony',
  '',
  '\n',
  '\u0000iPhone',
  'iPh\u0000one',
  '\uD83D\uDE00iPhone',
  '\uD83DiPod',
  'Android' + 'x'.repeat(3000) + 'Mobile',
  'Android' + 'x'.repeat(3000) + '\nMobile',
  'android'.repeat(300) + 'mobile',
  'android\n'.repeat(300) + 'mobile',
  'Mobile'.repeat(300) + 'Android',
  // The trigger matches a piece from its rarest character on, then looks behind for the rest (compile.ts rotate).
  'droid Mobile',
  'ndroid Mobile',
  'Andoid Mobile',
  'xAndroid Mobile',
  'Android',
  'Pod',
  'iPo',
  'bile',
  'IEMobil',
  'Mobi',
  'Opera Mobile',
  '; OpenHarmony',
  'Phone;OpenHarmony; OpenHarmony',
  'Android iPhone',
  'Android\nBB10; Mobile',
]

/** Escapes everything outside printable ASCII: TAP output must stay one line per assertion. */
const printable = (s: string): string =>
  s.replace(/[^ -~]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

t.test('adversarial strings: identical verdicts', async (t) => {
  for (const source of SOURCES) {
    const naive = new RegExp(source, 'i')
    const m = compileSource(source, Infinity)
    for (const s of ADVERSARIAL)
      t.equal(m.test(s), naive.test(s), `${source.slice(0, 30)} on ${printable(s.slice(0, 40))}`)
  }
})

/** Pieces of UA text and the characters that trip up case folding and `.`. */
const UA_TOKENS = [
  'iPhone',
  'IPHONE',
  'iphon',
  'Android',
  'andr',
  'Mobile',
  'mobile',
  'Mobi',
  'Opera Mini',
  'Opera Mobi',
  'BB10;',
  'BB10',
  'BlackBerry',
  'KAIOS',
  'MIDP',
  'Symbian',
  'Windows Phone',
  'IEMobile',
  'iPod',
  'Phone; OpenHarmony',
  'Mozilla/5.0 (',
  'Linux; ',
  'Safari/537.36',
  ' ',
  ';',
  'x',
  '\n',
  '\r',
  '\u2028',
  '\u2029',
  '\u0130',
  '\u0131',
  '\u212A',
  '\u017F',
  '\uD83D',
]
const uaString = fc.array(fc.constantFrom(...UA_TOKENS), { maxLength: 24 }).map((a) => a.join(''))

t.test('generated UAs: DEFAULT_AGENTS and the other sources agree with the naive regex', async (t) => {
  for (const source of SOURCES) {
    const naive = new RegExp(source, 'i')
    const m = compileSource(source, Infinity)
    checkProperty(
      import.meta.url,
      fc.property(uaString, (s) => m.test(s) === naive.test(s)),
      { numRuns: 1500 },
    )
  }
  t.pass('1500 generated UAs per source')
})

// Linear-form sources: literal runs (with escapes, `.`, `\d`, `\w`) and `.*`/`.+` gaps.
// ASCII only in the source (subjects hold non-ASCII letters): see docs/redirect.md, "Non-ASCII sources".
const atom = fc.constantFrom(
  'a',
  'z',
  'b',
  'A',
  'k',
  's',
  'S',
  'i',
  ' ',
  ';',
  '/',
  '\\.',
  '\\(',
  '\\-',
  '\\ ',
  '.',
  '\\d',
  '\\w',
  '1',
)
const piece = fc.array(atom, { minLength: 1, maxLength: 3 }).map((a) => a.join(''))
const gap = fc.constantFrom('.*', '.*?', '.+', '.+?')
const linearAlt = fc
  .tuple(
    fc.boolean(),
    fc.array(piece, { minLength: 0, maxLength: 3 }),
    fc.array(gap, { minLength: 3, maxLength: 3 }),
    fc.boolean(),
  )
  .map(([lead, pieces, gaps, trail]) => (lead ? '.*' : '') + pieces.join(gaps[0]) + (trail ? (gaps[1] as string) : ''))
const linearSource = fc.array(linearAlt, { minLength: 1, maxLength: 4 }).map((a) => a.join('|'))
const subjectChar = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('a', 'b', 'A', 'k', 's') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'B',
      'Z',
      '@',
      '[',
      'K',
      'S',
      '\u017F',
      '\u212A',
      '\u0130',
      'i',
      'I',
      ' ',
      ';',
      '/',
      '.',
      '(',
      '-',
      '1',
      '_',
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom('\n', '\r', '\u2028', '\u2029') },
)
const subject = fc.array(subjectChar, { maxLength: 30 }).map((a) => a.join(''))

t.test('generated linear-form sources: identical verdicts', async (t) => {
  let linear = 0
  checkProperty(
    import.meta.url,
    fc.property(linearSource, fc.array(subject, { minLength: 1, maxLength: 8 }), (source, strings) => {
      const naive = new RegExp(source, 'i')
      const m = compileSource(source, Infinity)
      if (m.mode === 'linear') linear++
      return strings.every((s) => m.test(s) === naive.test(s))
    }),
    { numRuns: 1500 },
  )
  t.equal(linear, 1500, 'every generated source took the linear path')
})

// Arbitrary regexes: groups, classes, anchors, lookarounds, backreferences,
// escaped dots and classes that look like wrappers. Quantifiers stay bounded
// so the naive reference stays fast on short strings.
const generalAtom = fc.constantFrom(
  'a',
  'b',
  'A',
  '.',
  '.*',
  '.*?',
  '.+',
  '\\.*',
  '[.*]',
  '[^a]',
  '[a-c]',
  '\\d',
  '\\s',
  '\\S',
  '\\b',
  '\\B',
  '^',
  '$',
  '(a|b)',
  '(?:.*)',
  '(.*)',
  '(?=a)',
  '(?!b)',
  '(?<=a)',
  '(?<!b)',
  '\\1',
  'a?',
  'b{0,2}',
  '(a)',
  '(?<n>b)',
  '\\k<n>',
  '\\n',
  '[\\n]',
  '\\u2028',
  '\\x41',
  '\\/',
  '{',
  '}',
  ']',
  '|',
  '\u017F',
  '\u212A',
)
const generalSource = fc.array(generalAtom, { minLength: 1, maxLength: 7 }).map((a) => a.join(''))

t.test('generated arbitrary sources: identical verdicts (general mode where needed)', async (t) => {
  let general = 0
  let valid = 0
  checkProperty(
    import.meta.url,
    fc.property(generalSource, fc.array(subject, { minLength: 1, maxLength: 6 }), (source, strings) => {
      let naive: RegExp
      try {
        naive = new RegExp(source, 'i')
      } catch {
        return true
      }
      valid++
      const m = compileSource(source, Infinity)
      if (m.mode === 'general') general++
      return strings.every((s) => m.test(s) === naive.test(s))
    }),
    { numRuns: 2500 },
  )
  t.ok(valid > 1000, `${valid} valid sources tried`)
  t.ok(general > 300, `${general} of them in general mode`)
})

t.test('linear form is exact on strings of any length (no cap)', async (t) => {
  const m = createAgentMatcher(DEFAULT_AGENTS)
  const filler = 'x'.repeat(1 << 20)
  t.equal(m(filler + 'iPhone'), true, 'iPhone after 1 MiB')
  t.equal(m('Android' + filler + 'Mobile'), true, 'Android … 1 MiB … Mobile on one line')
  t.equal(m('Android' + filler + '\nMobile'), false, 'a line break in between')
  t.equal(m('Android\n' + filler + 'Android Mobile'), true, 'a later line')
  t.equal(m(filler), false)
})

t.test('a chain that fails on its first line is searched on every later line', async (t) => {
  // Eleven pieces: the later-lines regex refers to its groups as \\1 to \\11.
  const source = Array.from({ length: 11 }, (_, i) => String.fromCharCode(97 + i)).join('.*')
  const naive = new RegExp(source, 'i')
  const m = compileSource(source, Infinity)
  t.equal(m.mode, 'linear')
  const all = 'a b c d e f g h i j k'
  const cases = [
    `abc\n${all}`,
    `${all.slice(0, -1)}\r\n${all}`,
    `a\r\n\r\n${all.toUpperCase()}`,
    `a\u2028b c d e f g h i j\u2029${all.slice(2)}`,
    `a\n${all.slice(0, -1)}\nk`,
    `a\n${'a\n'.repeat(1000)}${all}`,
  ]
  for (const s of cases) t.equal(m.test(s), naive.test(s), printable(s.slice(0, 40)))
  t.equal(m.test(cases[0] as string), true)
  t.equal(m.test(cases[4] as string), false)
})

t.test('general mode reads the first maxLength code units: verdict = naive on the capped input', async (t) => {
  const source = '.*(iPhone|Android).*'
  const naive = new RegExp(source, 'i')
  const m = compileSource(source, 16)
  t.equal(m.mode, 'general')
  checkProperty(
    import.meta.url,
    fc.property(uaString, (s) => m.test(s) === naive.test(s.slice(0, 16))),
    { numRuns: 500 },
  )
  t.equal(m.test('x'.repeat(20) + 'iPhone'), false, 'iPhone past the cap is not seen')
  t.equal(naive.test('x'.repeat(20) + 'iPhone'), true, '(the naive regex on the full string would see it)')
})

t.test('the i flag without u: a source character matches its own ASCII cases, never another code unit', async (t) => {
  // What a folded table assumes (compile.ts lastCodeUnits): `ſ`, `ı` upper-case to ASCII, yet match nothing ASCII.
  const all = Array.from({ length: 0x10000 }, (_, u) => String.fromCharCode(u)).join('')
  for (const c of new Set(DEFAULT_AGENT_NAMES.join('').replace(/[.*]/g, ''))) {
    const found = (all.match(new RegExp(c, 'gi')) ?? []).sort().join('')
    t.equal(found, [...new Set([c.toLowerCase(), c.toUpperCase()])].sort().join(''), printable(c))
  }
})

// Whole names (1 in 3) or parts of them, at random cases, with look-alikes (ſ, ı upper-case to ASCII; Kelvin K, İ).
const [PLAIN, ALIKE] = ['sSkKiI', '\u017F\u017F\u212A\u212A\u0131\u0130']
const nameBit = fc
  .tuple(fc.constantFrom(...DEFAULT_AGENT_NAMES.flatMap((n) => n.split('.*'))), fc.nat(20), fc.nat(20), fc.integer())
  .map(([name, from, cut, bits]) => {
    const part = from % 3 === 0 ? name : name.slice(from % name.length, name.length - (cut % name.length))
    const cased = [...part].map((c, i) => ((bits >> (i % 30)) & 1 ? c.toUpperCase() : c.toLowerCase())).join('')
    const at = cut % Math.max(cased.length, 1),
      swap = bits < 0 ? PLAIN.indexOf(cased[at] ?? '-') : -1
    return swap < 0 ? cased : cased.slice(0, at) + ALIKE[swap] + cased.slice(at + 1)
  })
const between = fc.constantFrom('', '', ' ', ';', 'x', '/', '\n', '\r', '\u2028', '\u2029', '\u00e9', '\uD83D')
const edgeUa = fc.array(fc.tuple(between, nameBit), { maxLength: 6 }).map((a) => a.flat().join(''))

t.test('generated edge strings: the default matcher agrees with the naive regex', async (t) => {
  const [naive, m] = [new RegExp(DEFAULT_AGENTS, 'i'), createAgentMatcher(DEFAULT_AGENTS)]
  const variants = (s: string, end: string): string[] => [s, s.slice(0, 3), s.slice(-3), s.slice(0, -1), s + end]
  checkProperty(
    import.meta.url,
    fc.property(edgeUa, nameBit, (s, end) => variants(s, end).every((x) => m(x) === naive.test(x))),
    { numRuns: 4000 },
  )
  t.pass('4000 strings, each also cut to 3 units (shorter than any name) at both ends, and with a name at the end')
})
