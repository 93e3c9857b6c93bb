/**
 * `mobisite/edge`: the mobile redirect for any runtime with web `Request`
 * and `Response`: Cloudflare Workers, Vercel and Next.js middleware, Deno,
 * Bun, Hono. The same rules and answers as the Express `mobileRedirect`, with
 * no Node built-in and no express, in a small bundle. See docs/redirect.md,
 * "At the edge".
 * @example
 * ```ts
 * import { createMobileRedirect } from 'mobisite/edge'
 * const redirect = createMobileRedirect({ mobileUrl: 'https://m.example.com' })
 * export default { fetch: (request, env, ctx) => redirect.handle(request, () => fetch(request), ctx) }
 * ```
 */
export { DEFAULT_AGENTS, DEFAULT_AGENT_NAMES } from './agents/default.js'
export {
  AgentsSourceError,
  createAgentMatcher,
  type AgentMatcher,
  type AgentMatcherOptions,
  type AgentsErrorReason,
} from './agents/matcher.js'
export { DEFAULT_SKIP, type OptOutOptions, type RedirectStatus } from './redirect/decision.js'
export {
  createMobileRedirect,
  type EdgeDecision,
  type EdgeMobileRedirect,
  type EdgeRedirectOptions,
  type WaitUntil,
} from './redirect/edge.js'
export type { RemoteAgentsOptions } from './redirect/remote.js'
