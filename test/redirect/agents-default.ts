import t from 'tap'
import { DEFAULT_AGENT_NAMES, DEFAULT_AGENTS } from '../../lib/agents/default.js'
import { createAgentMatcher } from '../../lib/agents/matcher.js'
import { corpus, corpusVersion, score } from '../helpers/agents-corpus.js'
import { knownDisagreements, notPhones, phones } from '../helpers/agents-fixtures.js'

const isPhone = createAgentMatcher(DEFAULT_AGENTS)

t.test('DEFAULT_AGENTS is in the spec form: wildcard-wrapped names alternated with |', async (t) => {
  const alternatives = DEFAULT_AGENTS.split('|')
  t.equal(alternatives.length, DEFAULT_AGENT_NAMES.length)
  for (const alt of alternatives) t.match(alt, /^\.\*[^|()[\]]+\.\*$/, alt)
  t.doesNotThrow(() => new RegExp(DEFAULT_AGENTS, 'i'))
  t.equal(isPhone.mode, 'linear', 'compiles entirely to the linear form')
})

t.test(`precision and recall on user-agents@${corpusVersion} (phones = "mobile")`, async (t) => {
  t.equal(corpusVersion, '2.1.198', 'the figures in docs/redirect.md are for this version')
  const c = score(isPhone)
  t.comment(
    `rows ${corpus.length}: tp ${c.tp} fp ${c.fp} fn ${c.fn} tn ${c.tn}; precision ${c.precision}, recall ${c.recall}`,
  )
  t.same(
    c.disagreements.map((d) => `${d.row.deviceCategory} -> ${d.predicted}: ${d.row.userAgent}`),
    [],
    'no row disagrees with its label',
  )
  t.equal(c.precision, 1)
  t.equal(c.recall, 1)
  t.ok(
    corpus.some((r) => r.deviceCategory === 'tablet' && /Mobile\//.test(r.userAgent)),
    'the corpus has iPads saying Mobile/…, and they are not redirected',
  )
})

t.test('no name matches a known desktop or tablet UA', async (t) => {
  const others = [
    ...corpus.filter((r) => r.deviceCategory !== 'mobile').map((r) => r.userAgent),
    ...Object.values(notPhones),
  ]
  for (const name of DEFAULT_AGENT_NAMES) {
    const one = new RegExp(`.*${name}.*`, 'i')
    const hits = others.filter((ua) => one.test(ua))
    t.same(hits, [], `${name} matches no desktop or tablet`)
  }
  t.ok(/.*PPC.*/i.test(notPhones['PPC Mac Safari'] as string), 'the fixtures do catch an unsafe name like PPC')
})

t.test('fixtures: phones redirect, everything else does not', async (t) => {
  for (const [name, ua] of Object.entries(phones)) t.equal(isPhone(ua), true, name)
  for (const [name, ua] of Object.entries(notPhones)) t.equal(isPhone(ua), false, name)
})

t.test('known disagreements behave as documented', async (t) => {
  for (const d of knownDisagreements) {
    t.equal(isPhone(d.ua), d.redirected, `${d.name}: ${d.why}`)
    t.not(d.redirected, d.device === 'phone', `${d.name} really is a disagreement`)
  }
})

t.test('every name earns its place: each matches at least one phone fixture or corpus phone', async (t) => {
  const phoneUas = [
    ...corpus.filter((r) => r.deviceCategory === 'mobile').map((r) => r.userAgent),
    ...Object.values(phones),
  ]
  for (const name of DEFAULT_AGENT_NAMES) {
    const one = new RegExp(name, 'i')
    t.ok(
      phoneUas.some((ua) => one.test(ua)),
      name,
    )
  }
})
