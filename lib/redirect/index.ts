/**
 * Mobile redirect: the supported-agents list, its fast matcher, and the
 * Express middleware that sends phone visitors to the mobile site.
 * See docs/redirect.md.
 */
export { DEFAULT_AGENTS, DEFAULT_AGENT_NAMES } from './agents.js'
export {
  AgentsSourceError,
  compileAgents,
  createAgentMatcher,
  type AgentMatcher,
  type AgentMatcherOptions,
  type AgentsErrorReason,
  type AgentsMode,
  type CompiledAgents,
} from './matcher.js'
export {
  DEFAULT_SKIP,
  mobileRedirect,
  type MobileRedirectHandler,
  type MobileRedirectOptions,
  type MobisiteVerdict,
  type OptOutOptions,
} from './middleware.js'
export type { AgentsEngine } from './providers.js'
export { fetchAgents, type RemoteAgentsOptions } from './remote.js'
