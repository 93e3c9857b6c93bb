/**
 * Mobile redirect: the Express middleware that sends phone visitors of a
 * desktop site to its mobile site.
 * See docs/redirect.md.
 */
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
