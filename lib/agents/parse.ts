/**
 * Reads a supported-agents regex source the way the JavaScript RegExp parser
 * does (no `u`/`v` flag, Annex B syntax), just far enough to take each
 * top-level alternative apart.
 *
 * Why stripping is sound: `new RegExp(src, 'i').test(s)` is true iff some
 * top-level alternative matches at some position of `s`. For an alternative
 * `.*R`, a match starting at p means R matches at some q >= p; conversely a
 * match of R at q is a match of `.*R` at q (the `.*` takes nothing). So a
 * leading `.*` (or `.*?`) never changes the verdict. A trailing one can always
 * match the empty string, so it never does either. Assertions and
 * lookbehinds inside R read the input, not what `.*` consumed, and `.*` holds
 * no capture group, so group numbers and backreferences are unchanged.
 *
 * A `.*` in the middle is different: it cannot cross a line terminator
 * (`\n`, `\r`, U+2028, U+2029), so `A.*B` needs A and B on the same line.
 * The linear form in matcher.ts keeps exactly that rule.
 */

/** One fixed-length, quantifier-free run of atoms between `.*` gaps. */
export interface Piece {
  /** The regex source of the run, copied verbatim from the agents source. */
  readonly source: string
  /** Code units matched: every atom of a piece matches exactly one. */
  readonly length: number
  /** The source of its last atom (one character, `.`, or an escape). */
  readonly last: string
}

/**
 * A top-level alternative:
 * - `pieces`: `.*`-separated runs that each match one code unit per atom and
 *   never a line terminator; the alternative matches iff they occur in order,
 *   without overlap, on one line. No pieces: it matches every string.
 * - `general`: anything else, with its top-level `.*` wrappers stripped.
 */
export type Alternative =
  | { readonly kind: 'pieces'; readonly pieces: readonly Piece[] }
  | { readonly kind: 'general'; readonly source: string }

const LINE_TERMINATORS = '\n\r\u2028\u2029'

/**
 * Splits a source at its top-level `|`. The source must already compile
 * (`new RegExp(source, 'i')`): brackets and parentheses are then balanced.
 */
export function splitAlternatives(source: string): string[] {
  const out: string[] = []
  let start = 0
  for (const bar of topLevel(source, '|')) {
    out.push(source.slice(start, bar))
    start = bar + 1
  }
  out.push(source.slice(start))
  return out
}

/**
 * Where `char` stands as itself at the top level of a source: not escaped,
 * not in a class, not in a group. Read token by token, so `\\|` and `[|]` do
 * not count.
 */
function topLevel(source: string, char: string): number[] {
  const at: number[] = []
  let depth = 0
  for (let i = 0; i < source.length; i++) {
    const c = source[i]
    if (c === '\\') i++
    else if (c === '[') i = classEnd(source, i)
    else if (c === '(') depth++
    else if (c === ')') depth--
    else if (c === char && depth === 0) at.push(i)
  }
  return at
}

/** Index of the `]` closing the class opened at `open` (JS: `[]` is empty, `]` first does not count as literal). */
function classEnd(source: string, open: number): number {
  for (let i = open + 1; i < source.length; i++) {
    const c = source[i]
    if (c === '\\') i++
    else if (c === ']') return i
  }
  return source.length
}

/** Classifies one top-level alternative (see {@link Alternative}). */
export function analyzeAlternative(alt: string): Alternative {
  const pieces = linearPieces(alt)
  if (pieces !== undefined) return { kind: 'pieces', pieces }
  return { kind: 'general', source: stripWrappers(alt) }
}

/**
 * The pieces of an alternative made only of "simple" atoms and `.*` gaps
 * (`.+` counts as `.` followed by a gap), or undefined when anything else
 * appears. Simple atoms match exactly one code unit and never a line
 * terminator: a plain character, an escaped punctuation character, `.`,
 * `\d`, `\w`. Bailing out is always safe: the alternative then runs as a regex.
 */
function linearPieces(alt: string): Piece[] | undefined {
  const pieces: Piece[] = []
  let text = ''
  let length = 0
  let last = ''
  let i = 0
  while (i < alt.length) {
    const atom = simpleAtom(alt, i)
    if (atom === undefined) return undefined
    i += atom.length
    const next = alt[i]
    if ((next === '*' || next === '+') && atom === '.') {
      // `.+` is `..*`: one more code unit of the piece, then a gap.
      if (next === '+') {
        text += atom
        length++
        last = atom
      }
      i += alt[i + 1] === '?' ? 2 : 1
      if (length > 0) pieces.push({ source: text, length, last })
      text = ''
      length = 0
      continue
    }
    if (next === '*' || next === '+' || next === '?' || next === '{') return undefined
    text += atom
    length++
    last = atom
  }
  if (length > 0) pieces.push({ source: text, length, last })
  return pieces
}

/** The source text of the simple atom at `i`, or undefined. */
function simpleAtom(alt: string, i: number): string | undefined {
  const c = alt[i]
  if (c === undefined) return undefined
  if (c === '\\') {
    const n = alt[i + 1]
    if (n === undefined) return undefined
    if (n === 'd' || n === 'w') return c + n
    // Identity escapes of ASCII punctuation and space are literal in every
    // Annex B context; letters and digits are classes, assertions, or
    // backreferences, so they are left to the general path.
    return /^[ -/:-@[-`{-~]$/.test(n) ? c + n : undefined
  }
  if (c === '.') return c
  if ('^$*+?()[]{}|'.includes(c)) return undefined
  const code = c.charCodeAt(0)
  if (code < 0x20 || code === 0x7f || LINE_TERMINATORS.includes(c)) return undefined
  return c
}

/**
 * Removes a top-level leading `.*`/`.*?` and a trailing one. The trailing
 * `.` must start an atom: `\.*` (escaped dot) and `[.*]` are not wrappers,
 * so the alternative is scanned token by token.
 */
export function stripWrappers(alt: string): string {
  let body = alt
  const lead = /^\.\*\??/.exec(body)
  if (lead !== null) body = body.slice(lead[0].length)
  const lastDot = topLevel(body, '.').at(-1) ?? -1
  if (lastDot >= 0) {
    const tail = body.slice(lastDot)
    if (tail === '.*' || tail === '.*?') body = body.slice(0, lastDot)
  }
  return body
}

/**
 * The literal text a piece source starts with, up to its first atom that is
 * not one plain ASCII character (`.`, `\d`, `\w`, non-ASCII), or undefined
 * when that text is empty. A piece escapes only punctuation ({@link simpleAtom}).
 */
export function literalPrefix(source: string): string | undefined {
  let text = ''
  for (let i = 0; i < source.length; i++) {
    let c = source[i] as string
    if (c === '\\') {
      c = source[++i] as string
      if (c === 'd' || c === 'w') break
    } else if (c === '.') break
    if (c.charCodeAt(0) >= 128) break
    text += c
  }
  return text === '' ? undefined : text
}
