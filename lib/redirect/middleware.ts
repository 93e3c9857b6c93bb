/**
 * `mobileRedirect`: the one line a desktop site adds so phone visitors land
 * on its mobile site. It runs on every request of someone else's site, so
 * the hot path is a cached verdict, a few header reads and no allocation
 * beyond the response headers.
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { NextFunction, Request, RequestHandler, Response } from 'express'
import { DEFAULT_AGENTS } from '../agents/default.js'
import type { AgentMatcher, AgentMatcherOptions } from '../agents/matcher.js'
import { engineProvider, remoteProvider, staticProvider, type AgentsEngine, type AgentsProvider } from './providers.js'
import type { RemoteAgentsOptions } from './remote.js'
import * as rq from './request.js'

/** What the middleware decided, on `req.mobisite`. */
export interface MobisiteVerdict {
  /** True for a phone: it is (or would have been) redirected. */
  mobile: boolean
  /** `client-hint` when `Sec-CH-UA-Mobile` decided, else `user-agent`. */
  by: 'client-hint' | 'user-agent'
  /** True when the visitor opted out of redirects (query parameter or cookie). */
  optedOut: boolean
}

// Express's documented way to type what a middleware adds to `req`.
declare global {
  namespace Express {
    interface Request {
      /** Set by `mobileRedirect` on every request it judged (not on skipped paths). */
      mobisite?: MobisiteVerdict
    }
  }
}

/** Opt-out settings: `?{param}=true` sets a sticky cookie; `?{param}=false` clears it. */
export interface OptOutOptions {
  /** Query parameter. Default `no_redirect`. */
  param?: string
  /** Cookie name. Default `mobisite_no_redirect`. */
  cookie?: string
  /** Cookie lifetime in seconds. Default 2592000 (30 days). */
  maxAge?: number
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
   * live. With `site_name`, every redirect is recorded via `confirmRedirect`
   * (not awaited, at most once per site per second).
   */
  engine?: AgentsEngine
  /** The site whose `last_confirmed_redirected_date` redirects update. Needs `engine`. */
  site_name?: string
  /** Redirect status. Default 302. */
  status?: 301 | 302 | 303 | 307 | 308
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
  /** Clock for the confirmRedirect throttle, in ms. Default `Date.now`. */
  now?: () => number
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

/** Static assets and `/api` are never redirected: `/api`, `/api/…`, and common asset extensions. */
export const DEFAULT_SKIP: RegExp =
  /^\/api(?:\/|$)|\.(?:css|js|mjs|map|json|xml|txt|ico|png|jpe?g|gif|svg|webp|avif|bmp|woff2?|ttf|otf|eot|mp4|webm|mp3|wav|pdf|zip|gz|wasm)$/i

/** Last confirmRedirect per engine and site: shared by every middleware on the same engine. */
const lastConfirm = new WeakMap<object, Map<string, number>>()

/**
 * Express 5 middleware that redirects phones (GET and HEAD only) to the
 * mobile site, keeping path and query. See docs/redirect.md.
 * @example
 * ```ts
 * app.use(mobileRedirect({ mobileUrl: 'https://m.example.com' }))
 * ```
 */
export function mobileRedirect(options: MobileRedirectOptions): MobileRedirectHandler {
  const o = options
  if (o === null || typeof o !== 'object') throw new TypeError('mobileRedirect(options): options are required')
  if (o.agents !== undefined && o.remote !== undefined) throw new TypeError('mobileRedirect: give `agents` or `remote`, not both')
  if (o.site_name !== undefined && o.engine === undefined) throw new TypeError('mobileRedirect: `site_name` needs `engine`')
  const status = o.status ?? 302
  if (![301, 302, 303, 307, 308].includes(status)) throw new TypeError(`mobileRedirect: status must be a redirect status, got ${status}`)
  const base = typeof o.mobileUrl === 'string' ? rq.parseMobileUrl(o.mobileUrl) : undefined
  const targetOf = typeof o.mobileUrl === 'function' ? o.mobileUrl : undefined
  if (base === undefined && targetOf === undefined) throw new TypeError('mobileRedirect: mobileUrl must be a URL string or a function')
  const report = o.onError ?? ((err: Error) => process.emitWarning(err))
  const clientHints = o.clientHints ?? true
  const vary = clientHints ? 'User-Agent, Sec-CH-UA-Mobile' : 'User-Agent'
  const optOut = o.optOut === false ? undefined : optOutSettings(o.optOut ?? {})
  const skip = skipper(o.skip ?? DEFAULT_SKIP)
  const now = o.now ?? Date.now
  const matcherOptions = o.matcher ?? {}
  const provider: AgentsProvider =
    o.agents !== undefined ? staticProvider(o.agents, matcherOptions)
    : o.remote !== undefined ? remoteProvider(o.remote, matcherOptions, report)
    : o.engine !== undefined ? engineProvider(o.engine, matcherOptions, report)
    : staticProvider(DEFAULT_AGENTS, matcherOptions)
  const confirm = o.engine !== undefined && o.site_name !== undefined ? confirmer(o.engine, o.site_name, now, report) : undefined

  const handler = (req: Request, res: Response, next: NextFunction): void => {
    const target = rq.pathAndQuery(req)
    const path = rq.pathOf(target)
    if (skip(path, req)) return next()

    // One read: `headers` is a getter on IncomingMessage's prototype chain.
    const headers = req.headers
    const verdict = judge(headers, provider.current(), clientHints)
    req.mobisite = verdict
    const existing = res.getHeader('Vary')
    if (existing === undefined) res.setHeader('Vary', vary)
    else res.vary(vary)

    const method = req.method
    if (method !== 'GET' && method !== 'HEAD') return next()
    if (optOut !== undefined) verdict.optedOut = applyOptOut(req, res, headers.cookie, target, optOut)
    if (!verdict.mobile || verdict.optedOut) return next()

    let location: string | undefined
    if (base !== undefined) {
      if (rq.requestHost(req) === base.host && rq.isUnder(path, base.basePath)) return next()
      location = base.origin + base.basePath + target
    } else {
      try {
        location = (targetOf as (req: Request) => string | undefined)(req)
      } catch (err) {
        // A broken mobileUrl function must not take the desktop site down.
        report(err instanceof Error ? err : new Error(String(err)))
        return next()
      }
      if (location === undefined || onRequestHost(location, req)) return next()
    }
    confirm?.()
    res.statusCode = status
    res.location(location)
    res.setHeader('Content-Length', '0')
    res.end()
  }
  return Object.defineProperties(handler, {
    matcher: { get: () => provider.current(), enumerable: true },
    refresh: { value: () => provider.refresh() },
    close: { value: () => provider.close() },
  }) as MobileRedirectHandler
}

function judge(headers: IncomingHttpHeaders, matcher: AgentMatcher, clientHints: boolean): MobisiteVerdict {
  if (clientHints) {
    const hint = headers['sec-ch-ua-mobile']
    if (typeof hint === 'string') {
      const h = hint.trim()
      if (h === '?1') return { mobile: true, by: 'client-hint', optedOut: false }
      if (h === '?0') return { mobile: false, by: 'client-hint', optedOut: false }
    }
  }
  return { mobile: matcher(headers['user-agent'] ?? ''), by: 'user-agent', optedOut: false }
}

function optOutSettings(o: OptOutOptions): Required<OptOutOptions> {
  const settings = { param: o.param ?? 'no_redirect', cookie: o.cookie ?? 'mobisite_no_redirect', maxAge: o.maxAge ?? 2_592_000 }
  if (settings.param === '') throw new TypeError('mobileRedirect: optOut.param must not be empty')
  // The name goes into Set-Cookie verbatim, so it must be an RFC 6265 token.
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(settings.cookie)) throw new TypeError(`mobileRedirect: optOut.cookie is not a valid cookie name: ${JSON.stringify(settings.cookie)}`)
  if (!Number.isInteger(settings.maxAge) || settings.maxAge < 0) throw new TypeError('mobileRedirect: optOut.maxAge must be a whole number of seconds')
  return settings
}

/** Handles `?no_redirect=…` (setting or clearing the cookie) and reads the cookie; true when opted out. */
function applyOptOut(req: Request, res: Response, cookie: string | undefined, target: string, o: Required<OptOutOptions>): boolean {
  const value = rq.queryParam(target, o.param)
  if (value === '' || value === 'true' || value === '1') {
    const secure = req.secure ? '; Secure' : ''
    res.append('Set-Cookie', `${o.cookie}=1; Path=/; Max-Age=${o.maxAge}; SameSite=Lax; HttpOnly${secure}`)
    return true
  }
  if (value === 'false' || value === '0') {
    res.append('Set-Cookie', `${o.cookie}=; Path=/; Max-Age=0; SameSite=Lax; HttpOnly`)
    return false
  }
  return cookie !== undefined && rq.cookieValue(cookie, o.cookie) === '1'
}

function onRequestHost(location: string, req: Request): boolean {
  try {
    const u = new URL(location, `${req.protocol}://${req.host ?? 'invalid'}`)
    return rq.normalizeHost(u.host, u.protocol) === rq.requestHost(req)
  } catch {
    return true
  }
}

function skipper(skip: RegExp | ((req: Request) => boolean)): (path: string, req: Request) => boolean {
  if (typeof skip === 'function') return (_path, req) => skip(req)
  // A g or y flag would make test() stateful across requests.
  const re = skip.global || skip.sticky ? new RegExp(skip.source, skip.flags.replace(/[gy]/g, '')) : skip
  return (path) => re.test(path)
}

/** Calls confirmRedirect without awaiting, at most once per engine and site per second. */
function confirmer(engine: AgentsEngine, site_name: string, now: () => number, report: (e: Error) => void): () => void {
  let sites = lastConfirm.get(engine)
  if (sites === undefined) lastConfirm.set(engine, (sites = new Map()))
  const perSite = sites
  return () => {
    const t = now()
    const last = perSite.get(site_name)
    if (last !== undefined && t - last < 1000 && t >= last) return
    perSite.set(site_name, t)
    try {
      engine.confirmRedirect(site_name).catch((err: unknown) => report(err instanceof Error ? err : new Error(String(err))))
    } catch (err) {
      report(err instanceof Error ? err : new Error(String(err)))
    }
  }
}
