/**
 * One validation of agents sources: the engine (createEngine's `agents`,
 * setAgents, hence GET /agents) and createAgentMatcher accept exactly the
 * same sources, so the service never serves a source the middleware would
 * silently refuse.
 */
import request from 'supertest'
import t from 'tap'
import express from 'express'
import { DEFAULT_AGENTS } from '../../lib/agents/default.js'
import { AgentsSourceError, createAgentMatcher } from '../../lib/agents/matcher.js'
import { createEngine } from '../../lib/engine/index.js'
import { apiRouter } from '../../lib/http/router.js'

/** A spec-form source of exactly `length` characters: `.*Phone0.*|.*Phone1.*|…|.*aaa….*`. */
const longSource = (length: number): string => {
  let source = ''
  for (let i = 0; source.length + 40 < length; i++) source += `.*Phone${i}.*|`
  return `${source}.*${'a'.repeat(length - source.length - 4)}.*`
}

/** Sources at and around every limit, and of every refusal reason. */
const cases: Array<[label: string, source: unknown]> = [
  ['DEFAULT_AGENTS', DEFAULT_AGENTS],
  ['a spec-form source', '.*iPhone.*|.*Android.*Mobile.*'],
  ['a general-mode source', '.*iP(hone|od).*|^Opera'],
  ['65,536 characters (the limit)', longSource(65_536)],
  ['65,537 characters', longSource(65_537)],
  ['70,000 characters', longSource(70_000)],
  ['not a regex', '.*(iPhone.*'],
  ['dangerously slow', '.*(a|aa)*b.*'],
  ['catastrophic', '(a+)+$'],
  ['a number', 42],
  ['null', null],
]

function matcherVerdict(source: unknown): string {
  try {
    createAgentMatcher(source as string)
    return 'accepted'
  } catch (err) {
    return `refused: ${(err as AgentsSourceError).reason}`
  }
}

/** The engine's verdict through createEngine and through setAgents, which must agree. */
function engineVerdict(source: unknown): string {
  const refused = (work: () => unknown): boolean => {
    try {
      work()
      return false
    } catch (err) {
      t.equal((err as { error_code?: string }).error_code, 'InvalidInput', 'the engine refuses with InvalidInput')
      return true
    }
  }
  const bySet = refused(() => createEngine().setAgents(source as string))
  // createEngine reads a null or undefined `agents` as "the default".
  if (source !== null && refused(() => createEngine({ agents: source as string })) !== bySet)
    return 'createEngine and setAgents disagree'
  return bySet ? 'refused' : 'accepted'
}

t.test('the engine and the matcher accept exactly the same sources', async (t) => {
  for (const [label, source] of cases) {
    const m = matcherVerdict(source)
    const e = engineVerdict(source)
    t.equal(e, m === 'accepted' ? 'accepted' : 'refused', `${label}: matcher ${m}, engine ${e}`)
  }
  t.equal(longSource(65_536).length, 65_536)
  t.equal(matcherVerdict(longSource(65_536)), 'accepted', 'n accepted')
  t.equal(matcherVerdict(longSource(65_537)), 'refused: too-long', 'n + 1 refused')
  t.equal(matcherVerdict(longSource(70_000)), 'refused: too-long')
})

t.test("the engine says why, in the matcher's words", async (t) => {
  t.throws(() => createEngine({ agents: longSource(70_000) }), {
    name: 'ServiceError',
    error_code: 'InvalidInput',
    message: /70000 characters; the limit is 65536/,
  })
  t.throws(() => createEngine().setAgents('.*(a|aa)*b.*'), { error_code: 'InvalidInput', message: /linear form/ })
  t.throws(() => createAgentMatcher(7 as unknown as string), AgentsSourceError)
})

t.test('GET /agents never serves a source the middleware would refuse', async (t) => {
  const engine = createEngine()
  t.teardown(() => engine.close())
  await engine.addMasterAccount({ user: 'alice', password: 'pw' })
  const app = express().use(apiRouter(engine))
  const get = () => request(app).get('/agents').auth('alice', 'pw')
  engine.setAgents('.*iPhone.*')
  t.equal((await get()).body, '.*iPhone.*')
  t.throws(() => engine.setAgents(longSource(70_000)))
  t.throws(() => engine.setAgents('.*(a|aa)*b.*'))
  const served = (await get()).body as string
  t.equal(served, '.*iPhone.*', 'the last accepted source is still served')
  t.doesNotThrow(() => createAgentMatcher(served))
})
