/**
 * Reading the command line of `mobisite` against the flag table of
 * flags.ts: node:util parseArgs (strict), then each flag not given from its
 * environment twin. A mistake is a {@link UsageError} (exit code 2) that
 * names the nearest known flag.
 */
import { parseArgs } from 'node:util'
import { FLAGS } from './flags.js'

/** A command-line mistake: exit code 2. */
export class UsageError extends Error {}

/** Parsed flags, by flag name; a flag not given falls back to its environment twin. */
export type FlagValues = Record<string, string | boolean | string[] | undefined>

const TRUE = new Set(['1', 'true', 'yes', 'on'])
const FALSE = new Set(['0', 'false', 'no', 'off'])

/** A boolean environment variable; anything but the usual words is a usage error. */
function envBoolean(name: string, value: string): boolean {
  const v = value.toLowerCase()
  if (TRUE.has(v)) return true
  if (FALSE.has(v)) return false
  throw new UsageError(`${name} must be 1/true or 0/false (got ${JSON.stringify(value)})`)
}

/** Parses argv (without node and the script) against {@link FLAGS}, then fills in the environment twins. */
export function parseFlags(argv: readonly string[], env: NodeJS.ProcessEnv): FlagValues {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {}
  for (const flag of FLAGS) {
    options[flag.name] = {
      type: flag.type,
      ...(flag.short ? { short: flag.short } : {}),
      ...(flag.multiple ? { multiple: true } : {}),
    }
    if (flag.negatable) options[`no-${flag.name}`] = { type: 'boolean' }
  }
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true })
  } catch (error) {
    throw new UsageError(usageReason(error))
  }
  const [command, ...rest] = parsed.positionals
  if (command !== undefined && command !== 'serve') throw new UsageError(`unknown command ${JSON.stringify(command)}`)
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`)
  const values: FlagValues = {}
  for (const flag of FLAGS) {
    let value = parsed.values[flag.name] as string | boolean | string[] | undefined
    if (flag.negatable && parsed.values[`no-${flag.name}`] === true) value = false
    if (value === '' && flag.type === 'string') throw new UsageError(`--${flag.name} needs a value`)
    const fromEnv = flag.env === undefined ? undefined : env[flag.env]
    if (value === undefined && fromEnv !== undefined && fromEnv !== '') {
      value = flag.type === 'boolean' ? envBoolean(flag.env!, fromEnv) : fromEnv
    }
    values[flag.name] = value
  }
  return values
}

/**
 * Edit distance between two strings, a swap of neighbours counting as one
 * edit (optimal string alignment): `--prot` is one edit from `--port`.
 */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) d[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1)
      d[i]![j] = best
    }
  }
  return d[a.length]![b.length]!
}

/** The known flag closest to a mistyped one (`--prot` gives `--port`), or undefined when none is close. */
export function nearestFlag(typed: string): string | undefined {
  const name = typed.replace(/^-+/, '').split('=')[0]!.toLowerCase()
  const known = FLAGS.flatMap((flag) => [flag.name, ...(flag.negatable ? [`no-${flag.name}`] : [])])
  let best: { name: string; distance: number } | undefined
  for (const candidate of known) {
    const distance = editDistance(name, candidate)
    if (best === undefined || distance < best.distance) best = { name: candidate, distance }
  }
  // Close enough to be a typo: at most 2 edits, and fewer than half the typed name.
  if (best === undefined || best.distance > 2 || best.distance * 2 >= name.length) return undefined
  return `--${best.name}`
}

/** parseArgs' error as one line, in the words of this CLI. */
function usageReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  const code = (error as { code?: string }).code
  const option = /'(-{1,2}[^' ]+)/.exec(message)?.[1]
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const near = option === undefined ? undefined : nearestFlag(option)
    return `unknown option ${option ?? message}${near === undefined ? '' : `; did you mean ${near}?`}`
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    if (/argument missing/.test(message)) return `${option?.split(',')[0] ?? 'an option'} needs a value`
    return `${option ?? 'an option'} takes no value`
  }
  return message.split('\n')[0]!
}
