/**
 * Where the middleware's matcher comes from: a fixed source, an engine read
 * live, or a remote service polled on a timer. Each keeps its last good
 * matcher when a new source fails, and reports why.
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
    matcher = tryCompile(source, options, report) ?? matcher
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
 * Polls `GET {baseUrl}/agents`. Until the first fetch succeeds the matcher is
 * DEFAULT_AGENTS'; afterwards a failed fetch or a bad source keeps the last
 * good one. Fetches never overlap, and the timer does not keep Node alive.
 */
export function remoteProvider(remote: RemoteAgentsOptions, options: AgentMatcherOptions, report: Report): AgentsProvider {
  let matcher = createAgentMatcher(DEFAULT_AGENTS, options)
  let inFlight: Promise<void> | undefined
  const refresh = (): Promise<void> => {
    inFlight ??= (async () => {
      try {
        const source = await fetchAgents(remote)
        if (source !== matcher.source) matcher = tryCompile(source, options, report) ?? matcher
      } catch (err) {
        report(err as Error)
      } finally {
        inFlight = undefined
      }
    })()
    return inFlight
  }
  const interval = remote.refreshInterval ?? 300_000
  if (!(interval > 0)) throw new TypeError('remote.refreshInterval must be a positive number of milliseconds')
  const timer = setInterval(() => void refresh(), interval)
  timer.unref()
  void refresh()
  return { current: () => matcher, refresh, close: () => clearInterval(timer) }
}
