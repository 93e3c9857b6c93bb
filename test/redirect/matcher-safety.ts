/**
 * What the matcher refuses (and why), the parser's reading of tricky
 * sources, and the verdict cache.
 */
import t from 'tap'
import { DEFAULT_AGENTS } from '../../lib/agents/default.js'
import { AgentsSourceError, compileAgents, createAgentMatcher } from '../../lib/agents/matcher.js'
import { analyzeAlternative, splitAlternatives, stripWrappers } from '../../lib/agents/parse.js'
import { createEngine } from '../../lib/engine/index.js'

function refusal(fn: () => unknown): AgentsSourceError {
  try {
    fn()
  } catch (err) {
    if (err instanceof AgentsSourceError) return err
    throw err
  }
  throw new Error('expected an AgentsSourceError')
}

t.test('refused sources say why', async (t) => {
  t.equal(refusal(() => createAgentMatcher('.*iPhone.*|.*(Android.*')).reason, 'invalid')
  t.match(refusal(() => createAgentMatcher('[')).message, /not a valid regular expression/)
  t.equal(refusal(() => createAgentMatcher(42 as unknown as string)).reason, 'not-a-string')
  t.equal(refusal(() => createAgentMatcher('.*a.*|'.repeat(20_000))).reason, 'too-long')
  t.equal(refusal(() => createAgentMatcher('.*iPhone.*', { maxSourceLength: 5 })).reason, 'too-long')
})

t.test('catastrophic backtracking is refused by its form, not run on traffic', async (t) => {
  for (const source of ['(a+)+$', '.*(a|aa)*b.*', '.*(x+x+)+y.*', '.*Android.*Mobile.*|(\\w+\\s?)+$']) {
    const err = refusal(() => createAgentMatcher(source))
    t.equal(err.reason, 'not-linear', source)
    t.match(err.message, /outside the linear form/)
  }
})

t.test('a quadratic general-mode source is refused; the same list in the spec form is accepted', async (t) => {
  // `(?:Android).*Mobile` is outside the linear form: as a regex every "android" restarts a scan.
  t.equal(refusal(() => createAgentMatcher('.*iPhone.*|.*(?:Android).*Mobile.*')).reason, 'not-linear')
  t.equal(createAgentMatcher('.*iPhone.*|.*Android.*Mobile.*').mode, 'linear')
})

t.test("issue 23's slow source, which passed the timing probe, is refused everywhere", async (t) => {
  const source = '.*iPhone.*|.*Android.*Mobile.*|(\\d+\\.?)+z'
  t.equal(refusal(() => createAgentMatcher(source)).reason, 'not-linear', 'createAgentMatcher')
  t.equal(refusal(() => compileAgents(source)).reason, 'not-linear', 'compileAgents')
  t.throws(() => createEngine({ agents: source }), { error_code: 'InvalidInput', message: /linear form/ }, 'agents')
  const engine = createEngine()
  t.throws(() => engine.setAgents(source), { error_code: 'InvalidInput', message: /linear form/ }, 'setAgents')
  t.equal(engine.getAgents(), DEFAULT_AGENTS, 'the last good source stays')
  t.equal(createAgentMatcher(source, { trusted: true }).mode, 'general', 'only an own, trusted source may be general')
})

t.test('a huge linear source can still be refused as slow', async (t) => {
  // 3000 chains take about 100 ms per 16 KB probe: far above a 0.5 ms limit on any machine.
  const many = Array.from({ length: 3000 }, (_, i) => `.*n${i}x.*y${i}.*`).join('|')
  t.equal(refusal(() => createAgentMatcher(many, { slowMs: 0.5 })).reason, 'slow')
  t.equal(createAgentMatcher(many, { trusted: true }).mode, 'linear', 'trusted skips the probe')
})

t.test('DEFAULT_AGENTS compiles linear and passes the probe', async (t) => {
  const compiled = compileAgents(DEFAULT_AGENTS)
  t.equal(compiled.mode, 'linear')
  t.equal(compiled.maxLength, Infinity)
})

t.test('top-level split ignores | inside groups, classes and escapes', async (t) => {
  t.same(splitAlternatives('.*a.*|.*(b|c).*|[|]|\\||'), ['.*a.*', '.*(b|c).*', '[|]', '\\|', ''])
  t.same(splitAlternatives('[\\]|]|x'), ['[\\]|]', 'x'])
  t.same(splitAlternatives('[]|x'), ['[]', 'x'], 'in JS [] is an empty class, so ] does not stay inside it')
})

t.test('only real top-level wrappers are stripped', async (t) => {
  const cases: Array<[string, string]> = [
    ['.*iPhone.*', 'iPhone'],
    ['.*?iPhone.*?', 'iPhone'],
    ['.*a\\.*', 'a\\.*'],
    ['.*a[.*]', 'a[.*]'],
    ['.*(a.*)', '(a.*)'],
    ['.*a\\\\.*', 'a\\\\'],
    ['.*', ''],
    ['.*.*', ''],
    ['..*', '.'],
    ['a.+', 'a.+'],
    ['(?<=.*)a', '(?<=.*)a'],
  ]
  for (const [alt, stripped] of cases) t.equal(stripWrappers(alt), stripped, alt)
})

t.test('alternatives: linear pieces or general', async (t) => {
  t.same(analyzeAlternative('.*Android.*Mobile.*'), {
    kind: 'pieces',
    pieces: [
      { source: 'Android', length: 7, last: 'd' },
      { source: 'Mobile', length: 6, last: 'e' },
    ],
  })
  t.same(analyzeAlternative('.*BB10;.*'), { kind: 'pieces', pieces: [{ source: 'BB10;', length: 5, last: ';' }] })
  t.same(analyzeAlternative('.*Opera\\ Mini.*'), {
    kind: 'pieces',
    pieces: [{ source: 'Opera\\ Mini', length: 10, last: 'i' }],
  })
  t.same(analyzeAlternative('a.+b'), {
    kind: 'pieces',
    pieces: [
      { source: 'a.', length: 2, last: '.' },
      { source: 'b', length: 1, last: 'b' },
    ],
  })
  t.same(analyzeAlternative('.*x\\..*y\\d.*'), {
    kind: 'pieces',
    pieces: [
      { source: 'x\\.', length: 2, last: '\\.' },
      { source: 'y\\d', length: 2, last: '\\d' },
    ],
  })
  t.same(analyzeAlternative('.*'), { kind: 'pieces', pieces: [] })
  for (const general of [
    '.*iP(hone|od).*',
    '.*^iPhone.*',
    '.*a?.*',
    '.*\\bMobi.*',
    '.*[Ii]Phone.*',
    '.*a{2}.*',
    '.*\\n.*',
    '.*\n.*',
    '.*\\1.*',
  ]) {
    t.equal(analyzeAlternative(general).kind, 'general', general)
  }
})

t.test('an empty alternative matches everything, as the naive regex does', async (t) => {
  for (const source of ['', '.*iPhone.*|', '.*', 'x|.*']) {
    const m = createAgentMatcher(source)
    t.equal(m('curl/8'), true, JSON.stringify(source))
    t.equal(new RegExp(source, 'i').test('curl/8'), true)
  }
})

t.test('cache: auto puts an LRU in front of general-mode sources only', async (t) => {
  const linear = createAgentMatcher(DEFAULT_AGENTS)
  linear('curl/8')
  t.equal(linear.cacheSize, 0, 'a linear verdict is cheaper than a lookup')
  const general = createAgentMatcher('.*iP(hone|od).*', { trusted: true })
  t.equal(general.mode, 'general')
  general('curl/8')
  general('curl/8')
  t.equal(general.cacheSize, 1)
  t.equal(general('Mozilla/5.0 (iPod touch; CPU iPhone OS 12_5_7 like Mac OS X)'), true)
  t.equal(general('curl/8'), false)
})

t.test('cache: verdicts are cached up to its size; long UAs bypass it', async (t) => {
  const m = createAgentMatcher(DEFAULT_AGENTS, { cache: 2, cacheKeyMaxLength: 50 })
  const short = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4)'
  const long = 'Mozilla/5.0 (Linux; Android 14) ' + 'x'.repeat(100) + ' Mobile Safari'
  t.equal(m.cacheSize, 0)
  for (let i = 0; i < 3; i++) t.equal(m(short), true)
  t.equal(m.cacheSize, 1, 'one entry for a repeated UA')
  t.equal(m(long), true)
  t.equal(m.cacheSize, 1, 'a UA over cacheKeyMaxLength is judged but not cached')
  t.equal(m('curl/8'), false)
  t.equal(m('Wget/1.21'), false)
  t.equal(m.cacheSize, 2, 'bounded by the cache size')
  t.equal(m(short), true, 'an evicted verdict is recomputed')
  const uncached = createAgentMatcher(DEFAULT_AGENTS, { cache: false })
  t.equal(uncached(short), true)
  t.equal(uncached.cacheSize, 0)
})

t.test('a source more than V8 compiles is refused as invalid, by the matcher and by the engine', async (t) => {
  const huge = `.*${'x'.repeat(32_770)}.*`
  const err = refusal(() => createAgentMatcher(huge))
  t.equal(err.reason, 'invalid')
  t.match(err.message, /cannot be compiled: Regular expression too large/)
  t.ok(err.message.length < 200, 'the message does not carry the source')
  t.equal(
    refusal(() => createAgentMatcher(huge, { trusted: true })).reason,
    'invalid',
    'trusted too: no request compiles it',
  )
  const engine = createEngine()
  t.throws(() => engine.setAgents(huge), { error_code: 'InvalidInput', message: /cannot be compiled/ })
  t.equal(engine.getAgents(), DEFAULT_AGENTS)
})
