/**
 * The edge accepts and refuses exactly the agents sources Node does: each
 * source of the table goes through `createAgentMatcher` in Node and in the
 * bundle of lib/edge.ts inside workerd and edge-runtime, and the outcome
 * (the refusal's `reason`, or the mode and the verdicts on a set of UAs)
 * must be the same everywhere.
 */
import { Miniflare, type MiniflareOptions } from 'miniflare'
import t from 'tap'
import { DEFAULT_AGENTS } from '../../lib/agents/default.js'
import { AgentsSourceError, createAgentMatcher } from '../../lib/agents/matcher.js'
import { notPhones, phones } from '../helpers/agents-fixtures.js'
import { bundleEdge, edgeVm } from '../helpers/edge-runtimes.js'

/** One source of the table: what it is, the value, and createAgentMatcher options if any. */
interface SourceRow {
  name: string
  source: unknown
  options?: { slowMs: number }
}

/** The sources, by what they are. Values that are not strings travel as JSON, as a served body would. */
const SOURCES: SourceRow[] = [
  { name: 'DEFAULT_AGENTS', source: DEFAULT_AGENTS },
  { name: 'spec form', source: '.*iPhone.*|.*Android.*Mobile.*' },
  { name: 'chains', source: '.*Android.*Mobile.*|.*Opera.*Mini.*Presto.*|.*BB10;.*' },
  { name: 'names without wrappers', source: 'iPhone|Windows Phone|KAIOS' },
  { name: 'gaps and escapes', source: '.*iPhone\\ OS.*|.*Android.+Mobile.*|.*Phone\\;.*' },
  { name: '.* only', source: '.*' },
  { name: 'empty', source: '' },
  { name: 'one custom name', source: '.*EdgeTestPhone.*' },
  { name: 'invalid: open group', source: '.*(iPhone.*' },
  { name: 'invalid: open class', source: '[a-' },
  { name: 'invalid: nothing to repeat', source: '*iPhone' },
  { name: 'non-linear: nested quantifier', source: '(a+)+$' },
  { name: 'non-linear: group', source: '.*iP(hone|od).*' },
  { name: 'non-linear: class', source: '.*[Ii]Phone.*' },
  { name: 'non-linear: anchor', source: '^Opera' },
  { name: 'non-linear: issue 23', source: '.*iPhone.*|.*Android.*Mobile.*|(\\d+\\.?)+z' },
  { name: 'non-linear: lookahead', source: '.*Android(?!.*Tablet).*' },
  { name: 'non-linear: backreference', source: '.*(a)\\1.*' },
  { name: 'not a string: number', source: 42 },
  { name: 'not a string: null', source: null },
  { name: 'not a string: object', source: { source: '.*iPhone.*' } },
  { name: 'not a string: array', source: ['.*iPhone.*'] },
  { name: 'too long (65,537)', source: `.*${'x'.repeat(65_535)}` },
  {
    name: 'at the length limit (65,536)',
    source: `.*${'a'.repeat(21_840)}.*|.*${'b'.repeat(21_840)}.*|.*${'c'.repeat(21_842)}.*`,
  },
  {
    // Well over any limit of the probe in Node (about 20 ms here): `slow` in every runtime whose clock runs.
    name: '3,000 chains, slowMs 1',
    source: Array.from({ length: 3000 }, (_, i) => `.*A${i.toString(36)}.*B${i.toString(36)}.*`).join('|'),
    options: { slowMs: 1 },
  },
  {
    // Within maxSourceLength, but more than V8 compiles: refused as invalid, never thrown raw.
    name: 'a literal of 32,770 characters',
    source: `.*${'x'.repeat(32_770)}.*`,
  },
]

/** UAs every accepted source is asked about. */
const UAS = [
  ...Object.values(phones),
  ...Object.values(notPhones),
  'EdgeTestPhone/1.0',
  'aaaaaaaaaaaaaaaaaaaaaaaa!',
  '',
]

/** The outcome of one source, as every runtime reports it. */
interface Outcome {
  reason: string
  mode?: string
  verdicts?: boolean[]
}

/** What createAgentMatcher makes of each source: the same code in Node and in the runtimes. */
const JUDGE = `(createAgentMatcher, AgentsSourceError, rows, uas) => rows.map(({ source, options }) => {
  try {
    const m = createAgentMatcher(source, options)
    return { reason: 'ok', mode: m.mode, verdicts: uas.map((ua) => m(ua)) }
  } catch (e) {
    return { reason: e instanceof AgentsSourceError ? e.reason : 'thrown ' + e.name + ': ' + e.message.slice(-40) }
  }
})`

type Judge = (
  create: typeof createAgentMatcher,
  error: typeof AgentsSourceError,
  rows: Array<Pick<SourceRow, 'source' | 'options'>>,
  uas: string[],
) => Outcome[]

/**
 * What the runtimes get: the rows without their names. Outside the `slow`
 * row the probe's limit is generous: workerd and edge-runtime time it on
 * the wall clock, which counts a preemption on a busy machine, and those
 * rows are about what the structure decides.
 */
const sources = SOURCES.map(({ source, options }) => ({ source, options: options ?? { slowMs: 250 } }))

t.test('Node, workerd and edge-runtime judge every source alike', async (t) => {
  const inNode = (new Function(`return ${JUDGE}`)() as Judge)(createAgentMatcher, AgentsSourceError, sources, UAS)

  const edge = await bundleEdge('esm')
  const mf = new Miniflare({
    compatibilityDate: '2025-01-01',
    modulesRoot: '/worker',
    modules: [
      {
        type: 'ESModule',
        path: '/worker/worker.js',
        contents: `import { createAgentMatcher, AgentsSourceError } from './edge.js'
          const judge = ${JUDGE}
          export default { async fetch(request) {
            const { sources, uas } = await request.json()
            return Response.json(judge(createAgentMatcher, AgentsSourceError, sources, uas))
          } }`,
      },
      { type: 'ESModule', path: '/worker/edge.js', contents: edge.code },
    ],
  } as MiniflareOptions)
  t.teardown(() => mf.dispose())
  const res = await mf.dispatchFetch('http://sources.invalid/', {
    method: 'POST',
    body: JSON.stringify({ sources, uas: UAS }),
  })
  const inWorkerd = (await res.json()) as Outcome[]

  const { vm } = await edgeVm()
  vm.context.__input = JSON.stringify({ sources, uas: UAS })
  const inVm = JSON.parse(
    vm.evaluate<string>(`(() => { const { sources, uas } = JSON.parse(__input)
      return JSON.stringify((${JUDGE})(mobisiteEdge.createAgentMatcher, mobisiteEdge.AgentsSourceError, sources, uas)) })()`),
  ) as Outcome[]

  t.comment(SOURCES.map(({ name }, i) => `${name}: ${inNode[i]?.reason}`).join('\n'))
  SOURCES.forEach(({ name }, i) => {
    t.same(inWorkerd[i], inNode[i], `${name}: workerd as Node`)
    t.same(inVm[i], inNode[i], `${name}: edge-runtime as Node`)
  })
  // Every refusal is an AgentsSourceError with a reason; the table has each reason the structure decides.
  const REASONS = ['invalid', 'not-a-string', 'not-linear', 'ok', 'slow', 'too-long']
  SOURCES.forEach(({ name }, i) => {
    const reason = inNode[i]?.reason as string
    t.ok(REASONS.includes(reason), `${name}: ${reason}`)
  })
  t.same([...new Set(inNode.map((o) => o.reason).filter((r) => REASONS.includes(r)))].sort(), REASONS)
})
