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
