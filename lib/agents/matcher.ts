/**
 * The public face of the agents matcher: validation, the safety probe, and
 * the verdict cache in front of the compiled form (compile.ts).
 */
import { compileSource, type AgentsMode, type CompiledAgents } from './compile.js'
import { DEFAULT_AGENTS } from './default.js'
import { probeSource } from './probe.js'
import { VerdictCache } from './verdict-cache.js'

export type { AgentsMode, CompiledAgents } from './compile.js'

/** Options of {@link createAgentMatcher} and {@link compileAgents}. */
export interface AgentMatcherOptions {
  /**
   * A bounded verdict cache (second-chance, LRU-like: verdict-cache.ts): a size in entries, `false` for none, or `auto`
   * (the default): 10000 entries in front of a general-mode source, none in
   * front of a linear-form one. Why: looking a new string up hashes all of
   * it, which costs more than the linear verdict itself, and every request
   * brings a new string (docs/redirect.md has the measurements).
   */
  cache?: number | false | 'auto'
  /** UAs longer than this (code units) are judged but not cached, which bounds the cache's memory. Default 512. */
  cacheKeyMaxLength?: number
  /**
   * Code units of the UA that a general-mode source (one not in the spec's
   * `.*name.*` form) reads; see {@link CompiledAgents.mode}. Linear-form
   * sources always read the whole UA. Default 16384 (Node's default limit
   * for all request headers together).
   */
  maxLength?: number
  /** A source whose slowest adversarial probe UA takes longer than this is rejected as `slow`. Default 10 ms. */
  slowMs?: number
  /** Sources longer than this are rejected as `too-long`. Default 65536. */
  maxSourceLength?: number
  /**
   * For sources you wrote yourself only: accept a general-mode source (one
   * outside the linear form, matched by a regex on the first `maxLength`
   * code units) and skip the timing probe. Default false: such a source is
   * refused as `not-linear`. The engine and remote sources never set it.
   */
  trusted?: boolean
}

/**
 * Why a source was refused: see {@link AgentsSourceError}. `not-linear`: an
 * alternative is outside the linear form (literal runs and `.*` gaps), so
 * its matching could not be done in linear time (ReDoS). `fetch`: the
 * remote `GET /agents` failed (network, timeout, status, body), so there was
 * no source to judge.
 */
export type AgentsErrorReason = 'not-a-string' | 'too-long' | 'invalid' | 'not-linear' | 'slow' | 'fetch'

/** A supported-agents source that was refused; `reason` says why, `message` in words. */
export class AgentsSourceError extends Error {
  /** Machine-readable cause. */
  readonly reason: AgentsErrorReason
  /** The refused source (truncated to 200 characters). */
  readonly source: string

  constructor(reason: AgentsErrorReason, message: string, source: unknown, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'AgentsSourceError'
    this.reason = reason
    this.source = typeof source === 'string' ? source.slice(0, 200) : String(source)
  }
}

/** A verdict function with what it was built from. */
export interface AgentMatcher {
  /** True when the UA should be redirected: equals `new RegExp(source, 'i').test(userAgent)`. */
  (userAgent: string): boolean
  /** The source it was compiled from. */
  readonly source: string
  /** `linear` or `general`: see {@link CompiledAgents.mode}. */
  readonly mode: AgentsMode
  /** The compiled form, without the cache. */
  readonly compiled: CompiledAgents
  /** Verdicts currently cached (0 without a cache). */
  readonly cacheSize: number
}

const DEFAULTS = { cache: 10_000, cacheKeyMaxLength: 512, maxLength: 16_384, slowMs: 10, maxSourceLength: 65_536 }

/**
 * Sources that passed, keyed by the options that judged them and the
 * source. The engine (setAgents) and every matcher built from the same
 * source share one probe, the only costly step; compiling again is cheap
 * and gives each matcher its own function.
 */
const accepted = new Set<string>()
const ACCEPTED_MAX = 8

/**
 * Validates, compiles and probes a source, without a cache.
 * @throws AgentsSourceError when the source is not a string, too long, not a
 * valid regex, or dangerously slow on adversarial UAs.
 */
export function compileAgents(source: unknown, options: AgentMatcherOptions = {}): CompiledAgents {
  if (typeof source === 'string') {
    const key = `${options.maxLength ?? ''}|${options.slowMs ?? ''}|${options.maxSourceLength ?? ''}|${options.trusted === true}|${source}`
    if (accepted.has(key)) return compileSource(source, options.maxLength ?? DEFAULTS.maxLength)
    const compiled = judgeSource(source, options)
    if (accepted.size >= ACCEPTED_MAX) accepted.delete(accepted.values().next().value as string)
    accepted.add(key)
    return compiled
  }
  return judgeSource(source, options)
}

/**
 * The one validation of a supported-agents source, shared by the engine
 * (`createEngine({ agents })`, `setAgents`, so `GET /agents`) and
 * {@link createAgentMatcher}: both accept exactly the same sources.
 * @throws AgentsSourceError (see {@link compileAgents}).
 */
export function validateAgentsSource(source: unknown): string {
  compileAgents(source)
  return source as string
}

function judgeSource(source: unknown, options: AgentMatcherOptions): CompiledAgents {
  if (typeof source !== 'string') {
    throw new AgentsSourceError('not-a-string', `agents source must be a string, got ${typeof source}`, source)
  }
  const maxSourceLength = options.maxSourceLength ?? DEFAULTS.maxSourceLength
  if (source.length > maxSourceLength) {
    throw new AgentsSourceError(
      'too-long',
      `agents source has ${source.length} characters; the limit is ${maxSourceLength}`,
      source,
    )
  }
  try {
    new RegExp(source, 'i')
  } catch (err) {
    throw new AgentsSourceError(
      'invalid',
      `agents source is not a valid regular expression: ${(err as Error).message}`,
      source,
      { cause: err },
    )
  }
  const maxLength = options.maxLength ?? DEFAULTS.maxLength
  let compiled: CompiledAgents
  try {
    compiled = compileSource(source, maxLength)
  } catch (err) {
    // A valid source can still be more than V8 compiles (a literal of some 32,000 characters).
    const why = (err as Error).message.split(': ').at(-1)
    throw new AgentsSourceError('invalid', `agents source cannot be compiled: ${why}`, source, { cause: err })
  }
  // Structural, so exact: only the linear form is known to match in linear time. A timing probe
  // cannot tell a regex that backtracks exponentially on some input it did not try.
  if (compiled.mode !== 'linear' && options.trusted !== true) {
    throw new AgentsSourceError(
      'not-linear',
      'agents source is outside the linear form: every alternative must be literal text and `.*` gaps ' +
        '(like `.*iPhone.*|.*Android.*Mobile.*`), whose matching takes linear time; groups, classes, ' +
        'quantifiers and anchors could backtrack for seconds on a crafted User-Agent',
      source,
    )
  }
  // DEFAULT_AGENTS is ours and measured in benchmark/agents.ts; probing it on every engine start only costs.
  // Only a linear source gets here (see probe.ts), which reads the whole UA: probe the longest one.
  if (options.trusted !== true && source !== DEFAULT_AGENTS) {
    const slowMs = options.slowMs ?? DEFAULTS.slowMs
    const probe = probeSource(compiled, DEFAULTS.maxLength, slowMs)
    if (!probe.ok) {
      throw new AgentsSourceError(
        'slow',
        `agents source is dangerously slow: a ${DEFAULTS.maxLength}-character probe UA took ${probe.worstMs.toFixed(1)} ms; the limit is ${slowMs} ms`,
        source,
      )
    }
  }
  return compiled
}

/**
 * Compiles a supported-agents source (such as the string served by
 * `GET /agents`) into a fast matcher, with a verdict cache in front
 * where it pays (see {@link AgentMatcherOptions.cache}). Its verdict is
 * identical to `new RegExp(source, 'i').test(userAgent)`, for every string
 * when the source is in the linear form (the spec's `.*name.*|…` form,
 * {@link DEFAULT_AGENTS}); see docs/redirect.md for the general case.
 * @throws AgentsSourceError (see {@link compileAgents}).
 * @example
 * ```ts
 * const isPhone = createAgentMatcher('.*iPhone.*|.*Android.*Mobile.*')
 * isPhone(req.get('user-agent') ?? '')
 * ```
 */
export function createAgentMatcher(source: string, options: AgentMatcherOptions = {}): AgentMatcher {
  const compiled = compileAgents(source, options)
  const test = compiled.test
  const option = options.cache ?? 'auto'
  const size = option === 'auto' ? (compiled.mode === 'general' ? DEFAULTS.cache : false) : option
  let matcher: (ua: string) => boolean = test
  let cache: VerdictCache | undefined
  if (size !== false && size > 0) {
    const verdicts = (cache = new VerdictCache(size))
    const keyMax = options.cacheKeyMaxLength ?? DEFAULTS.cacheKeyMaxLength
    matcher = (ua) => {
      if (ua.length > keyMax) return test(ua)
      let verdict = verdicts.get(ua)
      if (verdict === undefined) {
        verdict = test(ua)
        verdicts.set(ua, verdict)
      }
      return verdict
    }
  }
  return Object.defineProperties(matcher, {
    source: { value: source, enumerable: true },
    mode: { value: compiled.mode, enumerable: true },
    compiled: { value: compiled },
    cacheSize: { get: () => cache?.size ?? 0 },
  }) as AgentMatcher
}
