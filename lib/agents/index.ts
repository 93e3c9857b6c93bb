/**
 * The supported-agents source: DEFAULT_AGENTS, its validation and the
 * compiled matcher. Used by the engine (GET /agents) and by mobileRedirect,
 * so both accept exactly the same sources.
 */
export { DEFAULT_AGENTS, DEFAULT_AGENT_NAMES } from './default.js'
export {
  AgentsSourceError,
  compileAgents,
  createAgentMatcher,
  type AgentMatcher,
  type AgentMatcherOptions,
  type AgentsErrorReason,
  type AgentsMode,
  type CompiledAgents,
  validateAgentsSource,
} from './matcher.js'
