/**
 * A Wu–Manber skip scan for the trigger alternation of compile.ts: it finds
 * the same leftmost match, with the same end, as the global regex, reading
 * about one code unit in three on text without a name.
 *
 * Why a second scan: V8's own scan of a 13-name alternation costs about
 * 1 ns per character on browser UAs, whose digits, capitals and punctuation
 * its Boyer–Moore lookahead skips, but about 2 ns on the lowercase words and
 * URLs of bots and tools, where almost every character could start a name.
 * A Wu–Manber step (two code units, one table read) costs the same on both.
 * So compile.ts gives browser-shaped UAs ({@link browserShaped}: `Mozilla/5.0 (`
 * and a platform such as `Windows`, `Macintosh`, `X11`, `Linux`, `iPhone`)
 * to the regex and the rest to the skip scan. The choice changes the speed
 * only, never the match: benchmark/agents-public.ts measures both kinds.
 */

import { literalPrefix } from './parse.js'

/** The end of the leftmost trigger match in a User-Agent, or -1. */
export type FindEnd = (userAgent: string) => number

/** Two code units, each folded onto ASCII by its low 7 bits, as one table index. */
const BIGRAMS = 1 << 14

/**
 * Candidates the sticky regex may refuse before the scan hands the rest of
 * the UA to the global regex. Each refusal is a regex call (some 20 ns), so
 * a UA crafted to be all near-misses would otherwise cost one per few code
 * units; real UAs refuse a handful at most.
 */
const MAX_MISSES = 8

/** The longest window the tables use. */
const MAX_WINDOW = 32

/** Above this many zero-shift bigrams, most windows would be verified: the skip scan would only cost. */
const MAX_ZERO_SHIFTS = 1024

/**
 * The skip scan for `trigger` (a global, case-insensitive alternation of
 * `names`, each a piece source of parse.ts), or undefined where it cannot
 * gain: a name that starts with fewer than 3 plain ASCII characters, or so
 * many names that most windows would need the regex anyway.
 */
export function skipScan(trigger: RegExp, names: readonly string[]): FindEnd | undefined {
  const prefixes = names.map((name) => literalPrefix(name))
  if (prefixes.length === 0 || prefixes.some((p) => p === undefined)) return undefined
  // Capped so that every shift fits a byte; longer windows would skip little more.
  const window = Math.min(MAX_WINDOW, ...prefixes.map((p) => (p as string).length))
  if (window < 3) return undefined
  const tables = shiftTables(
    prefixes.map((p) => (p as string).slice(0, window)),
    window,
  )
  if (tables === undefined) return undefined
  const { shift, starts } = tables
  // The same alternation, sticky: "does a name start right here?", answered as the global regex would.
  const at = new RegExp(trigger.source, 'iy')
  return (ua) => {
    const n = ua.length
    let end = window - 1
    let misses = 0
    while (end < n) {
      const step = shift[((ua.charCodeAt(end - 1) & 127) << 7) | (ua.charCodeAt(end) & 127)] as number
      if (step !== 0) {
        end += step
        continue
      }
      const start = end - window + 1
      if (starts[((ua.charCodeAt(start) & 127) << 7) | (ua.charCodeAt(start + 1) & 127)] === 1) {
        if (++misses > MAX_MISSES) {
          // Text made of near-misses: the regex is cheaper from here. No name starts earlier.
          trigger.lastIndex = start
          return trigger.test(ua) ? trigger.lastIndex : -1
        }
        at.lastIndex = start
        if (at.test(ua)) return at.lastIndex
      }
      end++
    }
    return -1
  }
}

/**
 * `Mozilla/5.0 (` (or any 12 code units and `(`), then a capital or `i`:
 * the shape of browser UAs, which V8's scan reads fastest.
 */
export function browserShaped(ua: string): boolean {
  const platform = ua.charCodeAt(13)
  return ua.charCodeAt(12) === 40 && (platform < 91 || platform === 105)
}

/**
 * Wu–Manber's tables for windows of `window` code units, blocks of two:
 * `shift` is how far the window's end can move when its last two code units
 * are a given bigram (0: a prefix may end here), `starts` marks the bigrams
 * a prefix starts with (a cheap check before the sticky regex). Both hold
 * every case of each ASCII letter, as the `i` flag matches them. A
 * non-ASCII code unit never matches an ASCII one under `i` without `u`, so
 * folding it onto ASCII by its low bits can only shorten a shift or add a
 * candidate that the regex then refuses: never skip a match.
 */
function shiftTables(
  prefixes: readonly string[],
  window: number,
): { shift: Uint8Array; starts: Uint8Array } | undefined {
  const shift = new Uint8Array(BIGRAMS).fill(window - 1)
  const starts = new Uint8Array(BIGRAMS)
  let zeros = 0
  for (const prefix of prefixes) {
    for (let j = 0; j + 1 < window; j++) {
      const distance = window - 2 - j
      for (const index of bigramIndexes(prefix[j] as string, prefix[j + 1] as string)) {
        if (distance < (shift[index] as number)) {
          if (distance === 0 && ++zeros > MAX_ZERO_SHIFTS) return undefined
          shift[index] = distance
        }
        if (j === 0) starts[index] = 1
      }
    }
  }
  return { shift, starts }
}

/** The table indexes of every case of the bigram `a b`. */
function bigramIndexes(a: string, b: string): number[] {
  const indexes: number[] = []
  for (const x of new Set([a.toLowerCase(), a.toUpperCase()]))
    for (const y of new Set([b.toLowerCase(), b.toUpperCase()])) indexes.push((x.charCodeAt(0) << 7) | y.charCodeAt(0))
  return indexes
}
