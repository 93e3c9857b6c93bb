/**
 * A linear-form source described as data, for a matcher that runs somewhere
 * else: the browser script (lib/redirect/script/) rebuilds compile.ts's
 * verdict from it without ever seeing the source as a regex.
 *
 * Each piece is a quantifier-free run of simple atoms (parse.ts), so a regex
 * made of one piece, or of pieces joined with `|`, cannot backtrack more
 * than its own length at each position: safe to compile anywhere.
 */
import { analyzeAlternative, splitAlternatives } from './parse.js'

/**
 * The alternatives of a linear-form source. `new RegExp(source, 'i').test(s)`
 * is true iff `any` is true, or one of `singles` matches `s` (with the `i`
 * flag), or the pieces of one of `chains` occur in order, without overlap,
 * inside one line of `s` (lines end at `\n`, `\r`, U+2028 and U+2029).
 */
export interface LinearAgents {
  /** An alternative matches the empty string (`.*`, or an empty alternative): every string matches. */
  readonly any: boolean
  /** The one-piece alternatives (`.*iPhone.*` gives `iPhone`), as regex sources. */
  readonly singles: readonly string[]
  /** The alternatives of two pieces or more (`.*Android.*Mobile.*` gives `['Android', 'Mobile']`), as regex sources. */
  readonly chains: readonly (readonly string[])[]
}

/**
 * Describes `source` as {@link LinearAgents}, or returns undefined when it is
 * not a regex (`new RegExp(source, 'i')` throws) or when an alternative is
 * outside the linear form (literal runs and `.*` gaps): such a source has no
 * linear description. Every source the engine serves (validateAgentsSource,
 * never `trusted`) has one.
 */
export function describeLinear(source: string): LinearAgents | undefined {
  try {
    // Compiled, never run: the split below assumes balanced brackets and groups.
    new RegExp(source, 'i')
  } catch {
    return undefined
  }
  const singles: string[] = []
  const chains: string[][] = []
  let any = false
  for (const alt of splitAlternatives(source)) {
    const a = analyzeAlternative(alt)
    if (a.kind === 'general') return undefined
    if (a.pieces.length === 0) any = true
    else if (a.pieces.length === 1) singles.push(a.pieces[0]!.source)
    else chains.push(a.pieces.map((p) => p.source))
  }
  return { any, singles, chains }
}
