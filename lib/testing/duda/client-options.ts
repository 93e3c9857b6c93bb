/**
 * What Duda's own Node client (`@dudadev/partner-api`) needs to reach a
 * `startServer({ tls: true })` on whatever port it listens. The client only
 * speaks HTTPS to `env` on port 443, takes no port and no CA, and its one
 * per-call override that reaches the socket is `{ agent }`: so the agent
 * carries both the trust and the port. The client is not a dependency of
 * mobisite; nothing here imports it.
 */
import { Agent, type AgentOptions } from 'node:https'

/** What {@link dudaClientOptions} reads of a started server: `startServer`'s answer fits. */
export interface DudaTargetServer {
  /** The server's origin, `https://host:port` once it serves TLS. */
  readonly url: string
  /** The PEM of the self-signed certificate `startServer({ tls: true })` made. */
  readonly ca?: string | undefined
}

/** How `@dudadev/partner-api` reaches one server: see {@link dudaClientOptions}. */
export interface DudaClientOptions {
  /** The host, for the client's constructor: `new Duda({ user, pass, env })`. */
  env: string
  /**
   * An `https.Agent` trusting the server's certificate (verification stays
   * on) whose default port is the server's: pass it to every call, as the
   * client's per-call override `duda.sites.get({ site_name }, { agent })`.
   */
  agent: Agent
  /** The server's port, which the agent already connects to. */
  port: number
}

/** Wildcard addresses: nothing to connect to, so the client gets `localhost`, a name the self-signed certificate always holds. */
const WILDCARDS = new Set(['0.0.0.0', '::'])

/**
 * Agent whose `toJSON` keeps the client's request log working: the client
 * logs each request, agent included, with JSON.stringify, which throws on a
 * plain Agent once it holds a socket (a circular structure).
 */
class DudaTestAgent extends Agent {
  readonly #target: string

  constructor(options: AgentOptions, target: string, port: number) {
    super(options)
    this.#target = target
    // The client passes no port: Node's https.request then takes the agent's.
    ;(this as unknown as { defaultPort: number }).defaultPort = port
  }

  /** What the client's request log shows for this agent. */
  toJSON(): string {
    return `[https.Agent for ${this.#target}]`
  }
}

/**
 * Everything `@dudadev/partner-api` needs to call a mobisite server started
 * with `startServer({ tls: true })` on its own port, in one call:
 *
 * ```ts
 * const { env, agent } = dudaClientOptions(server)
 * const duda = new Duda({ user, pass, env })
 * await duda.sites.get({ site_name }, { agent })
 * ```
 *
 * `env` is the host the server listens on (`localhost` for a wildcard
 * address); `agent` trusts `server.ca` and connects to the server's port.
 * A server started with its own key pair (`tls: { key, cert }`) has no
 * `server.ca`: pass the certificate that signed it as `agentOptions.ca`.
 * Any other `agentOptions` go to the `https.Agent` too.
 *
 * @param server - What `startServer` answered: its `url` and `ca` are read.
 * @param agentOptions - Options of the agent; `ca` when the server has none.
 * @throws TypeError when the server serves plain HTTP, or its CA is unknown.
 */
export function dudaClientOptions(server: DudaTargetServer, agentOptions: AgentOptions = {}): DudaClientOptions {
  if (typeof server?.url !== 'string') {
    throw new TypeError('dudaClientOptions(server): expected a started server, as startServer() answers it')
  }
  const url = new URL(server.url)
  if (url.protocol !== 'https:') {
    throw new TypeError(
      `dudaClientOptions: ${server.url} serves plain HTTP, and @dudadev/partner-api speaks only HTTPS: ` +
        'start the server with startServer({ tls: true })',
    )
  }
  const ca = server.ca ?? agentOptions.ca
  if (ca === undefined) {
    throw new TypeError(
      `dudaClientOptions: no certificate to trust for ${server.url} (started with its own key pair): ` +
        'pass the one that signed it, dudaClientOptions(server, { ca })',
    )
  }
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const env = WILDCARDS.has(host) ? 'localhost' : host
  const port = url.port === '' ? 443 : Number(url.port)
  const agent = new DudaTestAgent({ ...agentOptions, ca }, `${url.protocol}//${url.host}`, port)
  return { env, agent, port }
}
