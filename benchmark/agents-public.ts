/**
 * The matcher against is-mobile@5 and the naive regex on a corpus nobody
 * tuned DEFAULT_AGENTS to (test/helpers/public-ua-corpus.ts: public lists,
 * bots included), by process CPU time, so that waiting for a core on a busy
 * machine counts for no one. Rounds interleave the contenders; best of the
 * rounds. Called from benchmark/agents.ts.
 */
import { isMobile } from 'is-mobile'
import { DEFAULT_AGENTS } from '../lib/agents/default.js'
import { createAgentMatcher } from '../lib/agents/matcher.js'
import {
  publicBotUserAgents,
  publicBrowserUserAgents,
  publicCorpusSources,
  publicUserAgents,
} from '../test/helpers/public-ua-corpus.js'
import { figure } from './lib/report.js'

const ROUNDS = 15

/** Process CPU time (user + system), in ns. */
function cpuNs(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) * 1000
}

/** CPU ns per UA of `reps` passes over `uas`. */
function cpuPerUa(fn: (ua: string) => boolean, uas: readonly string[], reps: number): number {
  let sink = 0
  const start = cpuNs()
  for (let r = 0; r < reps; r++) for (let i = 0; i < uas.length; i++) if (fn(uas[i] as string)) sink++
  const ns = (cpuNs() - start) / (uas.length * reps)
  if (sink < 0) console.log(sink)
  return ns
}

/** Prints the table and reports the ratio to is-mobile as a figure. */
export function publicCorpus(): void {
  const uas = publicUserAgents
  const naive = new RegExp(DEFAULT_AGENTS, 'i')
  const contenders: Array<{ name: string; fn: (ua: string) => boolean; reps: number }> = [
    { name: 'createAgentMatcher (default: uncached)', fn: createAgentMatcher(DEFAULT_AGENTS), reps: 10 },
    { name: 'is-mobile `isMobile({ ua })`', fn: (ua) => isMobile({ ua }), reps: 10 },
    // About 50 µs a UA: one pass is enough to see it.
    { name: 'naive `new RegExp(src, "i").test`', fn: (ua) => naive.test(ua), reps: 1 },
  ]
  for (const c of contenders) cpuPerUa(c.fn, uas, 1) // warm up before timing
  const best = contenders.map(() => Infinity)
  for (let round = 0; round < ROUNDS; round++) {
    contenders.forEach((c, i) => (best[i] = Math.min(best[i] as number, cpuPerUa(c.fn, uas, c.reps))))
  }
  const expected = uas.map((ua) => naive.test(ua))
  const [matcherNs, isMobileNs] = best as [number, number, number]
  const corpus = `${publicCorpusSources.join(' + ')}: ${uas.length} distinct UAs, ${publicBotUserAgents.length} of them bots`
  console.log(`\n## Per UA, CPU time: public corpus (${corpus}), best of ${ROUNDS} interleaved rounds\n`)
  console.log('| contender | CPU ns/UA | × faster than is-mobile | phones | verdicts ≠ naive |')
  console.log('|---|---:|---:|---:|---:|')
  contenders.forEach((c, i) => {
    const ns = best[i] as number
    const phones = uas.reduce((n, ua) => n + (c.fn(ua) ? 1 : 0), 0)
    const diffs = uas.reduce((n, ua, j) => n + (c.fn(ua) !== expected[j] ? 1 : 0), 0)
    console.log(`| ${c.name} | ${ns.toFixed(1)} | ${(isMobileNs / ns).toFixed(2)} | ${phones} | ${diffs} |`)
  })
  figure({
    group: 'redirect',
    name: 'createAgentMatcher, uncached, public corpus with bots (CPU time)',
    value: Number(matcherNs.toFixed(1)),
    unit: 'ns/UA',
    anchor: 'is-mobile isMobile({ ua })',
    anchorValue: Number(isMobileNs.toFixed(1)),
    ratio: Number((isMobileNs / matcherNs).toFixed(2)),
    target: '>= 2.5',
    note: `${corpus}; DEFAULT_AGENTS; process CPU time, best of ${ROUNDS} interleaved rounds; ratio = is-mobile / matcher`,
  })
  byKind(contenders[0]!.fn)
}

/**
 * The same two contenders on the corpus's bots and on its browsers apart: the
 * matcher scans the two kinds differently (lib/agents/skip-scan.ts), and a
 * redirect mostly judges browsers.
 */
function byKind(matcher: (ua: string) => boolean): void {
  const kinds = [
    ['bots only', publicBotUserAgents],
    ['browsers only', publicBrowserUserAgents],
  ] as const
  for (const [kind, uas] of kinds) {
    let matcherNs = Infinity
    let isMobileNs = Infinity
    for (let round = 0; round < ROUNDS; round++) {
      matcherNs = Math.min(matcherNs, cpuPerUa(matcher, uas, 10))
      isMobileNs = Math.min(
        isMobileNs,
        cpuPerUa((ua) => isMobile({ ua }), uas, 10),
      )
    }
    console.log(
      `| ${kind} (${uas.length} UAs): matcher | ${matcherNs.toFixed(1)} | ${(isMobileNs / matcherNs).toFixed(2)} | | |`,
    )
    figure({
      group: 'redirect',
      name: `createAgentMatcher, uncached, public corpus, ${kind} (CPU time)`,
      value: Number(matcherNs.toFixed(1)),
      unit: 'ns/UA',
      anchor: 'is-mobile isMobile({ ua })',
      anchorValue: Number(isMobileNs.toFixed(1)),
      ratio: Number((isMobileNs / matcherNs).toFixed(2)),
      note: `${uas.length} UAs of the row above; process CPU time, best of ${ROUNDS} interleaved rounds; ratio = is-mobile / matcher`,
    })
  }
}
