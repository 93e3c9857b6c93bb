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
import { collectUrlOf, engineConfirmer, remoteConfirmer, type Confirm } from './confirm.js'
import { isNavigation } from './navigation.js'
import { engineProvider, remoteProvider, staticProvider, type AgentsEngine, type AgentsProvider } from './providers.js'
import type { RemoteAgentsOptions } from './remote.js'
import * as rq from './request.js'
import type { Registry } from 'prom-client'
import { instrumentsFor } from '../http/metrics.js'

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

/** Static assets and `/api` are never redirected: `/api`, `/api/…`, and common asset extensions. */
export const DEFAULT_SKIP: RegExp =
  /^\/api(?:\/|$)|\.(?:css|js|mjs|map|json|xml|txt|ico|png|jpe?g|gif|svg|webp|avif|bmp|woff2?|ttf|otf|eot|mp4|webm|mp3|wav|pdf|zip|gz|wasm)$/i

/** `media` of the alternate link: the value search engines document for separate mobile URLs. */
const ALTERNATE_MEDIA = 'only screen and (max-width: 640px)'

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
  const status = o.status ?? 302
  if (![301, 302, 303, 307, 308].includes(status))
    throw new TypeError(`mobileRedirect: status must be a redirect status, got ${status}`)
  const base = typeof o.mobileUrl === 'string' ? rq.parseMobileUrl(o.mobileUrl) : undefined
  const targetOf = typeof o.mobileUrl === 'function' ? o.mobileUrl : undefined
  if (base === undefined && targetOf === undefined)
    throw new TypeError('mobileRedirect: mobileUrl must be a URL string or a function')
  const report = o.onError ?? ((err: Error) => process.emitWarning(err))
  const clientHints = o.clientHints ?? true
  const optOut = o.optOut === false ? undefined : optOutSettings(o.optOut ?? {})
  // Everything the outcome reads: the device headers, the navigation test,
  // and the opt-out cookie, so no shared cache hands one visitor's outcome
  // to another (docs/redirect.md, "Caches"). When the navigation test runs it
  // reads X-Requested-With, and Accept too when Sec-Fetch-Dest is absent.
  const vary = [
    'User-Agent',
    ...(clientHints ? ['Sec-CH-UA-Mobile'] : []),
    'Sec-Fetch-Dest',
    ...(optOut ? ['Cookie'] : []),
  ].join(', ')
  const varyRequestedWith = `${vary}, X-Requested-With`
  const varyAccept = `${varyRequestedWith}, Accept`
  const alternate = o.alternateLink === true
  const skip = skipper(o.skip ?? DEFAULT_SKIP)
  const now = o.now ?? Date.now
  const matcherOptions = o.matcher ?? {}
  const provider: AgentsProvider =
    o.agents !== undefined
      ? staticProvider(o.agents, matcherOptions)
      : o.remote !== undefined
        ? remoteProvider(o.remote, matcherOptions, report)
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

  /** The mobile URL of this request, or undefined when there is none or it would loop. */
  const mobileTarget = (req: Request, target: string, path: string): string | undefined => {
    let location: string | undefined
    if (base !== undefined) {
      if (rq.requestHost(req) === base.host && rq.isUnder(path, base.basePathLower)) return undefined
      location = base.origin + base.basePath + target
    } else {
      try {
        location = (targetOf as (req: Request) => string | undefined)(req)
      } catch (err) {
        // A broken mobileUrl function must not take the desktop site down.
        report(err instanceof Error ? err : new Error(String(err)))
        return undefined
      }
      if (location === undefined || onRequestHost(location, req)) return undefined
    }
    // The opt-out parameter is this site's business, never the mobile site's.
    return optOut === undefined ? location : rq.withoutParam(location, optOut.param)
  }

  const instruments = o.registry === undefined ? undefined : instrumentsFor(o.registry)
  /** The decision for the metric: a phone that is not redirected says why. */
  const count = (verdict: MobisiteVerdict, method: string, headers: IncomingHttpHeaders): void => {
    instruments!.redirectDecision(
      !verdict.mobile
        ? 'desktop'
        : verdict.optedOut
          ? 'opted_out'
          : (method !== 'GET' && method !== 'HEAD') || !isNavigation(headers)
            ? 'not_navigation'
            : 'redirected',
    )
  }

  const handler = (req: Request, res: Response, next: NextFunction): void => {
    const target = rq.pathAndQuery(req)
    const path = rq.pathOf(target)
    if (skip(path, req)) return next()

    // One read: `headers` is a getter on IncomingMessage's prototype chain.
    const headers = req.headers
    const verdict = judge(headers, provider.current(), clientHints)
    req.mobisite = verdict
    if (optOut !== undefined) verdict.optedOut = applyOptOut(req, res, headers.cookie, target, optOut)

    const redirect = verdict.mobile && !verdict.optedOut
    if (instruments !== undefined) count(verdict, req.method, headers)
    const method = req.method
    if ((!redirect && !alternate) || (method !== 'GET' && method !== 'HEAD')) {
      setVary(res, vary)
      return next()
    }
    const readsAccept = headers['x-requested-with'] === undefined && headers['sec-fetch-dest'] === undefined
    setVary(res, readsAccept ? varyAccept : varyRequestedWith)
    if (!isNavigation(headers)) return next()
    const location = mobileTarget(req, target, path)
    if (location === undefined) return next()
    if (!redirect) {
      const link = `<${linkTarget(location)}>; rel="alternate"; media="${ALTERNATE_MEDIA}"`
      // setHeader when alone: Express's append() costs microseconds.
      if (res.getHeader('Link') === undefined) res.setHeader('Link', link)
      else res.append('Link', link)
      return next()
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

/** Sets Vary, merged with one set earlier (setHeader when alone: Express's vary() costs microseconds). */
function setVary(res: Response, value: string): void {
  if (res.getHeader('Vary') === undefined) res.setHeader('Vary', value)
  else res.vary(value)
}

/** A URL made safe inside `<…>` of a Link header: what could end it, and any non-ASCII, is percent-encoded. */
function linkTarget(url: string): string {
  return /[<>"\x00-\x20\x7f-\uffff]/.test(url) ? url.replace(/[<>"\x00-\x20\x7f-\u{10FFFF}]/gu, percentEncode) : url
}

function percentEncode(c: string): string {
  try {
    return encodeURIComponent(c)
  } catch {
    return '%EF%BF%BD' // a lone surrogate: U+FFFD, as a URL parser would
  }
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
  const settings = {
    param: o.param ?? 'no_redirect',
    cookie: o.cookie ?? 'mobisite_no_redirect',
    maxAge: o.maxAge ?? 2_592_000,
  }
  if (settings.param === '') throw new TypeError('mobileRedirect: optOut.param must not be empty')
  // The name goes into Set-Cookie verbatim, so it must be an RFC 6265 token.
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(settings.cookie))
    throw new TypeError(`mobileRedirect: optOut.cookie is not a valid cookie name: ${JSON.stringify(settings.cookie)}`)
  if (!Number.isInteger(settings.maxAge) || settings.maxAge < 0)
    throw new TypeError('mobileRedirect: optOut.maxAge must be a whole number of seconds')
  return settings
}

/** Handles `?no_redirect=…` (setting or clearing the cookie) and reads the cookie; true when opted out. */
function applyOptOut(
  req: Request,
  res: Response,
  cookie: string | undefined,
  target: string,
  o: Required<OptOutOptions>,
): boolean {
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
