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
import { browserShaped, skipScan } from './skip-scan.js'

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

/** A multi-piece alternative, compiled for {@link chainMatches}. */
interface Chain {
  /** Source of the first piece. */
  readonly first: string
  /** The first piece, sticky, with its length: "does it match right here?" */
  readonly headAt: { readonly re: RegExp; readonly length: number }
  /** The first piece (global, so a search can start anywhere). */
  readonly head: RegExp
  /** Each later piece, or a line terminator. */
  readonly rest: RegExp[]
  /** The whole chain on any later line, in one search: see {@link makeChain}. */
  readonly laterLines: RegExp
  /** The source of the first piece's last atom. */
  readonly last: string
}

/**
 * Compiles `source` (which must already compile as `new RegExp(source, 'i')`).
 * @param maxLength code units given to general-mode alternatives.
 */
export function compileSource(source: string, maxLength: number): CompiledAgents {
  const singles: string[] = []
  const singleLengths: number[] = []
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
    else if (a.pieces.length === 1) {
      singles.push((a.pieces[0] as Piece).source)
      singleLengths.push((a.pieces[0] as Piece).length)
    } else chains.push(makeChain(a.pieces))
  }
  const base = { source, fragments: [...fragments].slice(0, 64) }
  // An alternative that matches the empty string matches every string.
  if (always) return { ...base, mode: 'linear', maxLength: Infinity, test: () => true }

  // Pieces hold no `|` or group, so one-piece alternatives join into one
  // quantifier-free alternation: a single linear scan for all of them.
  const single = singles.length > 0 ? regex(singles.join('|'), 'i') : undefined
  // Every match needs a one-piece alternative or the first piece of a chain,
  // so one scan for any of them settles every desktop UA at once. It is a
  // global regex read through test() and lastIndex, which allocates nothing
  // (exec would build a match array on every phone): the match ends at
  // lastIndex, and a chain's first piece has a fixed length, so a sticky
  // test just before lastIndex tells whether a chain may have started
  // there. If none did, a one-piece name matched: a verdict.
  const names = [...singles, ...chains.map((c) => c.first)]
  const trigger = regex(names.join('|'), 'gi')
  // Finds the trigger's leftmost match faster than the regex in UAs not shaped like a browser's.
  const skip = skipScan(trigger, names)
  const find = (ua: string): number => {
    if (skip !== undefined && !browserShaped(ua)) return skip(ua)
    trigger.lastIndex = 0
    return trigger.test(ua) ? trigger.lastIndex : -1
  }
  const heads = chains.map((c) => c.headAt)
  const headEnds = lastCodeUnits(chains.map((c) => c.last))
  // The leftmost trigger match starts at most this far before lastIndex, and
  // no chain's first piece occurs before that start: chain searches begin there.
  const longest = Math.max(...singleLengths, ...chains.map((c) => c.headAt.length))
  // General alternatives keep their place in one regex: group numbers and
  // backreferences are unchanged, because linear alternatives hold no group.
  const rest = general.length > 0 ? regex(general.join('|'), 'i') : undefined

  const linear =
    chains.length === 0
      ? (ua: string): boolean => single !== undefined && find(ua) >= 0
      : (ua: string): boolean => {
          const end = find(ua)
          if (end < 0) return false
          // A match ending in a code unit no chain's first piece ends in is
          // a one-piece name: decided without running the sticky tests.
          if (headEnds !== undefined && headEnds[ua.charCodeAt(end - 1)] !== 1) return true
          let chainHead = -1
          for (let i = 0; i < heads.length; i++) {
            const head = heads[i] as { re: RegExp; length: number }
            head.re.lastIndex = end - head.length
            if (head.re.test(ua)) {
              chainHead = i
              break
            }
          }
          if (chainHead < 0) return true
          // Usually the chain goes on from the first piece just found. If it
          // does not, the general search below decides, from every start.
          if (chainMatches(ua, chains[chainHead] as Chain, end, true)) return true
          const from = end > longest ? end - longest : 0
          for (let i = 0; i < chains.length; i++) if (chainMatches(ua, chains[i] as Chain, from)) return true
          return single?.test(ua) === true
        }
  if (rest === undefined) return { ...base, mode: 'linear', maxLength: Infinity, test: linear }
  return {
    ...base,
    mode: 'general',
    maxLength,
    test: (ua) => linear(ua) || rest.test(ua.length > maxLength ? ua.slice(0, maxLength) : ua),
  }
}

/**
 * A RegExp compiled now: V8 compiles a regex on its first run, and one too
 * large for it (a literal of some 32,000 characters) throws only then. Run
 * once here, the error comes from compiling the source, never from a request.
 */
function regex(source: string, flags: string): RegExp {
  const re = new RegExp(source, flags)
  re.test('')
  re.lastIndex = 0
  return re
}

function makeChain(pieces: readonly Piece[]): Chain {
  const [head, ...tail] = pieces as [Piece, ...Piece[]]
  // `(?=(.*?P))\k` takes the text up to the first P on the line and never
  // gives it back (a lookahead is atomic): the greedy chain of
  // chainMatches, as one regex anchored at each line start. One search then
  // covers every later line, linear in their length, where a line-by-line
  // restart cost two searches per line ("Android\n" repeated, then
  // "Mobile"). The leading `(?=.*?P1)` only lets V8 skip a line without the
  // first piece before any capture work (1.5x on many empty lines).
  const atomic = pieces.map((p, i) => `(?=(.*?${p.source}))\\${i + 1}`).join('')
  return {
    first: head.source,
    headAt: { re: regex(head.source, 'iy'), length: head.length },
    head: regex(head.source, 'gi'),
    // A piece never matches a line terminator, so "the piece or a line
    // terminator, whichever comes first" is one scan that also says whether
    // the line ended before the piece.
    rest: tail.map((p) => regex(`${p.source}|[\\n\\r\\u2028\\u2029]`, 'gi')),
    laterLines: regex(`^(?=.*?${head.source})${atomic}`, 'gim'),
    last: head.last,
  }
}

/**
 * A table of the code units (below 128) that atoms with these sources match
 * under the `i` flag, or undefined when one of them is not a plain ASCII
 * character (`.`, `\d`, `\w`, non-ASCII), for which the table would not be exact.
 * Without the `u` flag, case folding never maps a non-ASCII code unit to an
 * ASCII one, so an ASCII letter matches exactly its two cases.
 */
function lastCodeUnits(atoms: readonly string[]): Uint8Array | undefined {
  const table = new Uint8Array(128)
  for (const atom of atoms) {
    const char = atom.length === 2 && atom[0] === '\\' && !/[dw]/.test(atom[1]!) ? atom[1]! : atom
    if (char.length !== 1 || char === '.' || char.charCodeAt(0) >= 128) return undefined
    table[char.toLowerCase().charCodeAt(0)] = 1
    table[char.toUpperCase().charCodeAt(0)] = 1
  }
  return table
}

/**
 * True iff the pieces occur in order, without overlap, inside one line.
 *
 * Greedy is exact: taking the earliest occurrence of each piece after the
 * previous one ends can only leave more room for the next. When the line
 * ends before the next piece, no later start on that line can do better, so
 * the search moves on to the later lines, all in one `laterLines` search.
 *
 * Linear time: each search on the first line starts where the previous one
 * stopped, and `laterLines` reads each later line a bounded number of times
 * (once per piece plus its atomic re-reads).
 *
 * With `headEndsAtStart`, the caller has found the first piece ending at
 * `start`, and the chain goes on from there: a true answer is then still a
 * match, but a false one only says "not from this occurrence".
 */
function chainMatches(s: string, chain: Chain, start: number, headEndsAtStart = false): boolean {
  const { head, rest } = chain
  let cur = start
  if (!headEndsAtStart) {
    head.lastIndex = start
    if (!head.test(s)) return false
    cur = head.lastIndex
  }
  for (let i = 0; i < rest.length; i++) {
    const re = rest[i] as RegExp
    re.lastIndex = cur
    if (!re.test(s)) return false
    cur = re.lastIndex
    const c = s.charCodeAt(cur - 1)
    if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) {
      // `cur` follows a line terminator, so `^` matches there.
      chain.laterLines.lastIndex = cur
      return chain.laterLines.test(s)
    }
  }
  return true
}
