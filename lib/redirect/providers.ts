/**
 * Where the redirect's matcher comes from: a fixed source, an engine read
 * live, or a remote service. Each keeps its last good matcher when a new
 * source fails, and reports why. Runtime-neutral but for
 * {@link timedRemoteProvider}'s timer, which only the Node adapter uses.
 */
import type { Engine } from '../engine/types.js'
import { DEFAULT_AGENTS } from '../agents/default.js'
import { createAgentMatcher, type AgentMatcher, type AgentMatcherOptions } from '../agents/matcher.js'
import { fetchAgents, type RemoteAgentsOptions } from './remote.js'

/** The part of an engine the middleware uses. */
export type AgentsEngine = Pick<Engine, 'getAgents' | 'confirmRedirect'>

/** Supplies the current matcher on every request. */
export interface AgentsProvider {
  /** The matcher to use now; never throws. */
  current(): AgentMatcher
  /** Fetch or re-read the source now; resolves when done (never rejects). */
  refresh(): Promise<void>
  /** Stops any timer. */
  close(): void
}

type Report = (error: Error) => void

/** Compiles `source`, or reports and returns undefined. */
function tryCompile(source: unknown, options: AgentMatcherOptions, report: Report): AgentMatcher | undefined {
  try {
    return createAgentMatcher(source as string, options)
  } catch (err) {
    report(err as Error)
    return undefined
  }
}

/** A fixed source: refused at construction if it is bad (a programming error). */
export function staticProvider(source: string, options: AgentMatcherOptions): AgentsProvider {
  const matcher = createAgentMatcher(source, options)
  return { current: () => matcher, refresh: async () => undefined, close: () => undefined }
}

/**
 * Follows `engine.getAgents()` on every request. The string is compared with
 * the last one seen (usually the same object, so the comparison is a pointer
 * check) and compiled only when it changes; a bad one is reported once.
 */
export function engineProvider(engine: AgentsEngine, options: AgentMatcherOptions, report: Report): AgentsProvider {
  let matcher = createAgentMatcher(DEFAULT_AGENTS, options)
  let seen: string | undefined
  let readFailed = false
  const read = (): void => {
    let source: string
    try {
      source = engine.getAgents()
      readFailed = false
    } catch (err) {
      if (!readFailed) report(err as Error)
      readFailed = true
      return
    }
    if (source === seen) return
    seen = source
    if (source === matcher.source) return
    matcher = tryCompile(source, { ...options, trusted: false }, report) ?? matcher
  }
  read()
  return {
    current: () => {
      read()
      return matcher
    },
    refresh: async () => read(),
    close: () => undefined,
  }
}

/**
 * The agents of a remote service, `GET {baseUrl}/agents`, without a clock
 * of its own: {@link timedRemoteProvider} (Node) polls it on a timer, and the
 * edge adapter asks it on requests (no timer may run at a Worker's module
 * scope). Until the first fetch succeeds the matcher is DEFAULT_AGENTS';
 * afterwards a failed fetch or a bad source keeps the last good one. A
 * refused source is remembered: the same string served again is neither
 * compiled (its probe costs CPU) nor reported again, until the service
 * serves something else. Fetches never overlap.
 */
export interface RemoteSource {
  /** The matcher to use now. */
  current(): AgentMatcher
  /** Fetches now, or joins the fetch in flight; never rejects. */
  refresh(): Promise<void>
  /**
   * How long to wait before the next fetch: the interval, or after failures
   * twice as long each time (at most {@link MAX_BACKOFF_MS}, or the interval
   * if longer).
   */
  nextWait(): number
}

/** Builds a {@link RemoteSource}; checks `refreshInterval`. */
export function remoteSource(remote: RemoteAgentsOptions, options: AgentMatcherOptions, report: Report): RemoteSource {
  const interval = remote.refreshInterval ?? 300_000
  if (!(interval > 0)) throw new TypeError('remote.refreshInterval must be a positive number of milliseconds')
  let matcher = createAgentMatcher(DEFAULT_AGENTS, options)
  let refused: string | undefined
  let failures = 0
  let inFlight: Promise<void> | undefined
  const accept = (source: string): void => {
    if (source === matcher.source || source === refused) return
    // A served source is never the application's own: `trusted` never applies to it.
    const next = tryCompile(source, { ...options, trusted: false }, report)
    if (next === undefined) refused = source
    else [matcher, refused] = [next, undefined]
  }
  return {
    current: () => matcher,
    refresh: () => {
      inFlight ??= (async () => {
        try {
          accept(await fetchAgents(remote))
          failures = 0
        } catch (err) {
          failures++
          report(err as Error)
        } finally {
          inFlight = undefined
        }
      })()
      return inFlight
    },
    nextWait: () =>
      failures === 0 ? interval : Math.min(interval * 2 ** (failures - 1), Math.max(interval, MAX_BACKOFF_MS)),
  }
}

/**
 * Polls a {@link remoteSource} on a timer: at start, then after each
 * {@link RemoteSource.nextWait} with ±10 % jitter, so a fleet of desktop
 * servers does not retry in step. The timer does not keep Node alive.
 */
export function timedRemoteProvider(
  remote: RemoteAgentsOptions,
  options: AgentMatcherOptions,
  report: Report,
): AgentsProvider {
  const source = remoteSource(remote, options, report)
  let timer: ReturnType<typeof setTimeout> | undefined
  let closed = false
  const schedule = (): void => {
    if (closed) return
    timer = setTimeout(() => void source.refresh().then(schedule), source.nextWait() * (0.9 + Math.random() * 0.2))
    timer.unref()
  }
  void source.refresh().then(schedule)
  return {
    current: source.current,
    refresh: source.refresh,
    close: () => {
      closed = true
      clearTimeout(timer)
    },
  }
}

/** The longest wait between failed fetches (unless the interval itself is longer): one hour. */
export const MAX_BACKOFF_MS = 3_600_000
