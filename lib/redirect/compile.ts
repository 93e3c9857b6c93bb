/**
 * Compiles a supported-agents source into a test whose verdict equals
 * `new RegExp(source, 'i').test(ua)`, without ever running the source as-is.
 *
 * Every alternative made of literal runs and `.*` gaps (the spec's form, and
 * all of DEFAULT_AGENTS) becomes the "linear" form: one quantifier-free
 * regex per run, searched left to right with a greedy chain. Each search
 * only moves forward, so the work is linear in the UA length, for any
 * length. Other alternatives keep their regex (wrappers stripped, see
 * parse.ts) and run on the first `maxLength` code units only.
 */
import { analyzeAlternative, splitAlternatives, type Piece } from './parse.js'

/** How a source was compiled: see {@link CompiledAgents.mode}. */
export type AgentsMode = 'linear' | 'general'

/** A compiled source, without cache or safety probe. */
export interface CompiledAgents {
  /** The source, exactly as given. */
  readonly source: string
  /**
   * `linear`: every alternative is in the linear form; the verdict equals the
   * naive regex on every string of any length, in time linear in its length.
   * `general`: some alternatives run as a (wrapper-stripped) regex on the
   * first `maxLength` code units; the verdict equals the naive regex on
   * `ua.slice(0, maxLength)`, so on every UA up to that length.
   */
  readonly mode: AgentsMode
  /** Code units a general-mode regex reads; Infinity in linear mode. */
  readonly maxLength: number
  /** Literal fragments of the source, used to build adversarial probes. */
  readonly fragments: readonly string[]
  /** The verdict for one User-Agent. */
  test(userAgent: string): boolean
}

/** `[\n\r\u2028\u2029]`: what `.` never matches. */
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/g

/** Pieces of one multi-piece alternative, with scratch space for {@link chainMatches}. */
interface Chain {
  readonly regexes: RegExp[]
  readonly lengths: Int32Array
  readonly found: Int32Array
}

/**
 * Compiles `source` (which must already compile as `new RegExp(source, 'i')`).
 * @param maxLength code units given to general-mode alternatives.
 */
export function compileSource(source: string, maxLength: number): CompiledAgents {
  const singles: string[] = []
  const chains: Chain[] = []
  const general: string[] = []
  const fragments = new Set<string>()
  let always = false
  for (const alt of splitAlternatives(source)) {
    const a = analyzeAlternative(alt)
    if (a.kind === 'general') {
      if (a.source === '') always = true
      general.push(a.source)
      for (const f of a.source.match(/[a-z0-9][a-z0-9 ._/-]*/gi) ?? []) fragments.add(f)
      continue
    }
    for (const p of a.pieces) fragments.add(p.source.replace(/\\(.)/g, '$1'))
    if (a.pieces.length === 0) always = true
    else if (a.pieces.length === 1) singles.push((a.pieces[0] as Piece).source)
    else chains.push(makeChain(a.pieces))
  }
  const base = { source, fragments: [...fragments].slice(0, 64) }
  // An alternative that matches the empty string matches every string.
  if (always) return { ...base, mode: 'linear', maxLength: Infinity, test: () => true }

  // Pieces hold no `|` or group, so one-piece alternatives join into one
  // quantifier-free alternation: a single linear scan for all of them.
  const single = singles.length > 0 ? new RegExp(singles.join('|'), 'i') : undefined
  // General alternatives keep their place in one regex: group numbers and
  // backreferences are unchanged, because linear alternatives hold no group.
  const rest = general.length > 0 ? new RegExp(general.join('|'), 'i') : undefined

  const linear = (ua: string): boolean => {
    if (single !== undefined && single.test(ua)) return true
    for (const chain of chains) if (chainMatches(ua, chain)) return true
    return false
  }
  if (rest === undefined) return { ...base, mode: 'linear', maxLength: Infinity, test: linear }
  return {
    ...base,
    mode: 'general',
    maxLength,
    test: (ua) => linear(ua) || rest.test(ua.length > maxLength ? ua.slice(0, maxLength) : ua),
  }
}

function makeChain(pieces: readonly Piece[]): Chain {
  return {
    regexes: pieces.map((p) => new RegExp(p.source, 'gi')),
    lengths: Int32Array.from(pieces, (p) => p.length),
    found: new Int32Array(pieces.length),
  }
}

/**
 * True iff the pieces occur in order, without overlap, inside one line.
 *
 * Greedy is exact: taking the earliest occurrence of each piece after the
 * previous one ends can only leave more room for the next. When a piece's
 * earliest occurrence lies past the end of the line, no later start on that
 * line can do better, so the search moves to the next line.
 *
 * Linear time: `found[i]` caches piece i's earliest start at or after the
 * position last searched from; those positions only grow, so each regex
 * (and the line-terminator search) sweeps the string at most once.
 */
function chainMatches(s: string, chain: Chain): boolean {
  const { regexes, lengths, found } = chain
  const k = regexes.length
  found.fill(-1)
  let lineEnd = -1
  let nextTerminator = -1
  let lineStart = 0
  search: for (;;) {
    let cur = lineStart
    for (let i = 0; i < k; i++) {
      let start = found[i] as number
      if (start < cur) {
        const re = regexes[i] as RegExp
        re.lastIndex = cur
        if (!re.test(s)) return false
        start = re.lastIndex - (lengths[i] as number)
        found[i] = start
      }
      if (i === 0) {
        if (nextTerminator < start) {
          LINE_TERMINATOR.lastIndex = start
          nextTerminator = LINE_TERMINATOR.test(s) ? LINE_TERMINATOR.lastIndex - 1 : s.length
        }
        lineEnd = nextTerminator
      } else if (start >= lineEnd) {
        lineStart = lineEnd + 1
        continue search
      }
      cur = start + (lengths[i] as number)
    }
    return true
  }
}
