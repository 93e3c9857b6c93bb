/**
 * `mobileRedirect`: the one line a desktop site adds so phone visitors land
 * on its mobile site. A thin Express adapter over the runtime-neutral
 * decision (decision.ts): it reads `req`, writes `res`, and starts
 * confirmations with `setImmediate`. It runs on every request of someone
 * else's site, so the hot path is a cached verdict, a few header reads and
 * no allocation beyond the decision and the response headers.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express'
import type { Registry } from 'prom-client'
import { DEFAULT_AGENTS } from '../agents/default.js'
import type { AgentMatcher, AgentMatcherOptions } from '../agents/matcher.js'
import { instrumentsFor } from '../http/metrics.js'
import { requestHost as expressHost } from '../http/express-compat.js'
import { collectUrlOf, engineConfirmer, remoteConfirmer, type Confirm, type Defer } from './confirm.js'
import {
  createDecider,
  DEFAULT_SKIP,
  type MobisiteVerdict,
  type OptOutOptions,
  type RedirectStatus,
  type RequestReader,
} from './decision.js'
import {
  engineProvider,
  staticProvider,
  timedRemoteProvider,
  type AgentsEngine,
  type AgentsProvider,
} from './providers.js'
import type { RemoteAgentsOptions } from './remote.js'
import { normalizeHost } from './request.js'

export { DEFAULT_SKIP, type MobisiteVerdict, type OptOutOptions }

// Express's documented way to type what a middleware adds to `req`.
declare global {
  namespace Express {
    interface Request {
      /** Set by `mobileRedirect` on every request it judged (not on skipped paths). */
      mobisite?: MobisiteVerdict
    }
  }
}

/** Options of {@link mobileRedirect}. */
export interface MobileRedirectOptions {
  /**
   * The mobile site. A string (absolute http(s) URL, optionally with a base
   * path) receives the request's path and query appended. A function returns
   * the full target URL, or undefined to not redirect this request.
   */
  mobileUrl: string | ((req: Request) => string | undefined)
  /** Agents source. Default {@link DEFAULT_AGENTS} (unless `engine` or `remote` supplies it). Not together with `remote`. */
  agents?: string
  /** Fetch the agents from a mobisite service, refreshed on a timer. Not together with `agents`. */
  remote?: RemoteAgentsOptions
  /**
   * A mobisite engine. Without `agents`/`remote`, its `getAgents()` is followed
   * live. With `siteName`, every redirect is recorded via `confirmRedirect`
   * (not awaited, at most once per site per second).
   */
  engine?: AgentsEngine
  /**
   * The site whose `last_confirmed_redirected_date` redirects update. Needs
   * `engine` (in-process) or `remote` (over HTTP, through the service's
   * collector: see {@link RemoteAgentsOptions.collectUrl}; at most once per
   * site per minute per process).
   */
  siteName?: string
  /** @deprecated The old spelling of `siteName`, still accepted; `siteName` wins when both are given. */
  site_name?: string
  /**
   * Add `Link: <mobile url>; rel="alternate"; media="only screen and (max-width: 640px)"`
   * to every page navigation served the desktop page, as search engines
   * expect of a desktop page with a separate mobile URL. Default false.
   */
  alternateLink?: boolean
  /** Redirect status. Default 302. */
  status?: RedirectStatus
  /** Honour `Sec-CH-UA-Mobile` (`?1` redirects, `?0` does not, whatever the UA). Default true. */
  clientHints?: boolean
  /** Opt-out query parameter and cookie, or `false` to disable. */
  optOut?: OptOutOptions | false
  /** Paths never judged nor redirected: a RegExp tested on the path, or a predicate. Default {@link DEFAULT_SKIP}. */
  skip?: RegExp | ((req: Request) => boolean)
  /** Matcher options (cache size, limits); see {@link AgentMatcherOptions}. */
  matcher?: AgentMatcherOptions
  /** Receives every refused source, failed fetch and failed confirmRedirect. Default: `process.emitWarning`. */
  onError?: (error: Error) => void
  /** Clock for the confirmation throttles, in ms. Default `Date.now`. */
  now?: () => number
  /**
   * A prom-client registry: `mobisite_redirect_decisions_total{decision}`
   * counts redirected, desktop, opted_out and not_navigation. Default: none.
   */
  registry?: Registry
}

/** The middleware, plus control of its agents source. */
export interface MobileRedirectHandler extends RequestHandler {
  /** The matcher in use now. */
  readonly matcher: AgentMatcher
  /** Re-fetch (remote) or re-read (engine) the agents now. */
  refresh(): Promise<void>
  /** Stops the remote refresh timer. */
  close(): void
}

/**
 * Express 5 middleware that redirects phones' page navigations (GET and
 * HEAD) to the mobile site, keeping path and query. See docs/redirect.md.
 * @example
 * ```ts
 * app.use(mobileRedirect({ mobileUrl: 'https://m.example.com' }))
 * ```
 */
export function mobileRedirect(options: MobileRedirectOptions): MobileRedirectHandler {
  const o = options
  if (o === null || typeof o !== 'object') throw new TypeError('mobileRedirect(options): options are required')
  if (o.agents !== undefined && o.remote !== undefined)
    throw new TypeError('mobileRedirect: give `agents` or `remote`, not both')
  const siteName = o.siteName ?? o.site_name
  if (siteName !== undefined && o.engine === undefined && o.remote === undefined) {
    throw new TypeError('mobileRedirect: `siteName` needs `engine` or `remote`')
  }
  const report = o.onError ?? ((err: Error) => process.emitWarning(err))
  const now = o.now ?? Date.now
  const matcherOptions = o.matcher ?? {}
  // The decider checks its options before a remote provider starts fetching.
  const decide = createDecider('mobileRedirect', o, EXPRESS_READER, () => provider.current(), report)
  const provider: AgentsProvider =
    o.agents !== undefined
      ? staticProvider(o.agents, matcherOptions)
      : o.remote !== undefined
        ? timedRemoteProvider(o.remote, matcherOptions, report)
        : o.engine !== undefined
          ? engineProvider(o.engine, matcherOptions, report)
          : staticProvider(DEFAULT_AGENTS, matcherOptions)
  let confirm: Confirm | undefined
  if (siteName !== undefined) {
    confirm =
      o.engine !== undefined
        ? engineConfirmer(o.engine, siteName, now, report)
        : remoteConfirmer(
            collectUrlOf(o.remote as RemoteAgentsOptions, siteName),
            o.remote?.timeout ?? 5000,
            now,
            report,
          )
  }
  const instruments = o.registry === undefined ? undefined : instrumentsFor(o.registry)

  const handler = (req: Request, res: Response, next: NextFunction): void => {
    const outcome = decide(req)
    if (outcome === undefined) return next()
    req.mobisite = outcome.verdict
    instruments?.redirectDecision(outcome.label)
    if (outcome.setCookie !== undefined) res.append('Set-Cookie', outcome.setCookie)
    // setHeader when alone: Express's vary() and append() cost microseconds.
    if (res.getHeader('Vary') === undefined) res.setHeader('Vary', outcome.vary)
    else res.vary(outcome.vary)
    if (outcome.link !== undefined) {
      if (res.getHeader('Link') === undefined) res.setHeader('Link', outcome.link)
      else res.append('Link', outcome.link)
    }
    if (outcome.location === undefined) return next()
    confirm?.(afterThisTurn)
    res.statusCode = outcome.status
    res.setHeader('Location', outcome.location)
    res.setHeader('Content-Length', '0')
    res.end()
  }
  return Object.defineProperties(handler, {
    matcher: { get: () => provider.current(), enumerable: true },
    refresh: { value: () => provider.refresh() },
    close: { value: () => provider.close() },
  }) as MobileRedirectHandler
}

/** Confirmations start on a later turn of the event loop: the redirect never waits, not even to build them. */
const afterThisTurn: Defer = (send) => {
  setImmediate(() => void send())
}

/** How the decision reads an Express request. */
const EXPRESS_READER: RequestReader<Request> = {
  method: (req) => req.method,
  target: pathAndQuery,
  header: (req, name) => req.headers[name] as string | undefined,
  host: requestHost,
  origin: (req) => `${req.protocol}://${expressHost(req) ?? 'invalid'}`,
  secure: (req) => req.secure,
}

/**
 * The request target as path + query, always starting with `/`. Node keeps
 * an absolute-form target (`GET http://host/x`) as-is; only its path and
 * query are kept, so the target's host can never leak into the redirect.
 */
function pathAndQuery(req: Request): string {
  const raw = req.originalUrl ?? req.url ?? '/'
  if (raw.startsWith('/')) return raw
  try {
    const u = new URL(raw)
    return u.pathname + u.search
  } catch {
    return '/'
  }
}

/** The host the request was addressed to (Express 5's `req.host` on either version: honours `trust proxy`), normalized. */
function requestHost(req: Request): string {
  const headers = req.headers
  // Without X-Forwarded-* headers, Express's getters (which evaluate
  // `trust proxy` on every read) return exactly these; skip their cost.
  if (headers['x-forwarded-host'] === undefined && headers['x-forwarded-proto'] === undefined) {
    const encrypted = (req.socket as { encrypted?: boolean } | undefined)?.encrypted === true
    return normalizeHost(headers.host ?? '', encrypted ? 'https:' : 'http:')
  }
  return normalizeHost(expressHost(req) ?? '', `${req.protocol}:`)
}
