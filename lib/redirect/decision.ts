/**
 * The redirect decision, steps 1–9 of docs/redirect.md, once for every
 * runtime: the Express middleware (middleware.ts) and the web `Request`
 * adapter of `mobisite/edge` (edge.ts) are thin readers and writers around
 * it. Runtime-neutral on purpose: no `node:` import, no express, no
 * `Buffer` or `process`, so it bundles for Cloudflare Workers, Vercel's
 * edge runtime, Deno and Bun unchanged (test/edge/ checks the bundle).
 */
import type { AgentMatcher } from '../agents/matcher.js'
import { encodeLocation, linkTarget } from './headers.js'
import { isNavigation } from './navigation.js'
import * as rq from './request.js'

/** What the decision found about a request (Express: `req.mobisite`). */
export interface MobisiteVerdict {
  /** True for a phone: it is (or would have been) redirected. */
  mobile: boolean
  /** `client-hint` when `Sec-CH-UA-Mobile` decided, else `user-agent`. */
  by: 'client-hint' | 'user-agent'
  /** True when the visitor opted out of redirects (query parameter or cookie). */
  optedOut: boolean
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

/** The opt-out's documented names and lifetime (docs/redirect.md): the middleware's, the edge's and the browser script's. */
export const DEFAULT_OPT_OUT: Readonly<Required<OptOutOptions>> = Object.freeze({
  param: 'no_redirect',
  cookie: 'mobisite_no_redirect',
  maxAge: 2_592_000,
})

/** The statuses a redirect may use. */
export type RedirectStatus = 301 | 302 | 303 | 307 | 308

/**
 * Why a phone was or was not redirected, for `mobisite_redirect_decisions_total`:
 * a phone that is not redirected says why.
 */
export type DecisionLabel = 'redirected' | 'desktop' | 'opted_out' | 'not_navigation'

/** The decision for one request that was judged (not skipped). */
export interface RedirectOutcome {
  /** The verdict (Express exposes it as `req.mobisite`). */
  readonly verdict: MobisiteVerdict
  /** The metric label of this decision. */
  readonly label: DecisionLabel
  /** `Vary` to merge into the answer, redirect or page alike. */
  readonly vary: string
  /** `Set-Cookie` to append when the opt-out parameter set or cleared the cookie. */
  readonly setCookie: string | undefined
  /** `Link` (rel="alternate") to append to the desktop page. */
  readonly link: string | undefined
  /** The redirect target (already encoded as `Location`), when the answer is a redirect. */
  readonly location: string | undefined
  /** The redirect status (meaningful with `location`). */
  readonly status: RedirectStatus
}

/** The options both adapters share; `S` is the adapter's request (an Express `req`, a web `Request`). */
export interface DecisionOptions<S> {
  /** A URL string (path and query appended) or a function returning the full target, or undefined. */
  mobileUrl: string | ((subject: S) => string | undefined)
  /** Add `Link: <mobile url>; rel="alternate"` to desktop page navigations. Default false. */
  alternateLink?: boolean
  /** Redirect status. Default 302. */
  status?: RedirectStatus
  /** Honour `Sec-CH-UA-Mobile`. Default true. */
  clientHints?: boolean
  /** Opt-out parameter and cookie, or `false` to disable. */
  optOut?: OptOutOptions | false
  /** Paths never judged: a RegExp tested on the path, or a predicate. Default {@link DEFAULT_SKIP}. */
  skip?: RegExp | ((subject: S) => boolean)
}

/** How an adapter reads its request; built once per adapter, so a decision allocates no readers. */
export interface RequestReader<S> {
  method(subject: S): string
  /** Path and query, starting with `/`, never carrying a host. */
  target(subject: S): string
  /** A request header by its lower-case name. */
  header(subject: S, name: string): string | undefined
  /** The host the request was addressed to, normalized (see {@link rq.normalizeHost}). */
  host(subject: S): string
  /** `http://host` or `https://host` of the request: the base of a relative function target. */
  origin(subject: S): string
  /** True on HTTPS (the opt-out cookie gets `Secure`). */
  secure(subject: S): boolean
}

/** Judges one request; undefined when its path is skipped. */
export type Decide<S> = (subject: S) => RedirectOutcome | undefined

/** Static assets and `/api` are never redirected: `/api`, `/api/…`, and common asset extensions. */
export const DEFAULT_SKIP: RegExp =
  /^\/api(?:\/|$)|\.(?:css|js|mjs|map|json|xml|txt|ico|png|jpe?g|gif|svg|webp|avif|bmp|woff2?|ttf|otf|eot|mp4|webm|mp3|wav|pdf|zip|gz|wasm)$/i

/** `media` of the alternate link: the value search engines document for separate mobile URLs. */
const ALTERNATE_MEDIA = 'only screen and (max-width: 640px)'

/**
 * Checks the options once and returns the decision for one request.
 * @param name the caller's name in option errors (`mobileRedirect`, `createMobileRedirect`).
 * @throws TypeError on a bad option.
 */
export function createDecider<S>(
  name: string,
  o: DecisionOptions<S>,
  reader: RequestReader<S>,
  matcher: () => AgentMatcher,
  report: (error: Error) => void,
): Decide<S> {
  const status = o.status ?? 302
  if (![301, 302, 303, 307, 308].includes(status))
    throw new TypeError(`${name}: status must be a redirect status, got ${status}`)
  const base = typeof o.mobileUrl === 'string' ? rq.parseMobileUrl(o.mobileUrl) : undefined
  const targetOf = typeof o.mobileUrl === 'function' ? o.mobileUrl : undefined
  if (base === undefined && targetOf === undefined)
    throw new TypeError(`${name}: mobileUrl must be a URL string or a function`)
  const clientHints = o.clientHints ?? true
  const optOut = o.optOut === false ? undefined : optOutSettings(name, o.optOut ?? {})
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
  const headerOf = reader.header

  /** The mobile URL of this request, or undefined when there is none or it would loop. */
  const mobileTarget = (subject: S, target: string, path: string): string | undefined => {
    let location: string | undefined
    if (base !== undefined) {
      if (reader.host(subject) === base.host && rq.isUnder(path, base.basePathLower)) return undefined
      location = base.origin + base.basePath + target
    } else {
      try {
        location = (targetOf as (subject: S) => string | undefined)(subject)
      } catch (err) {
        // A broken mobileUrl function must not take the desktop site down.
        report(err instanceof Error ? err : new Error(String(err)))
        return undefined
      }
      if (location === undefined || onRequestHost(location, subject, reader)) return undefined
    }
    // The opt-out parameter is this site's business, never the mobile site's.
    return optOut === undefined ? location : rq.withoutParam(location, optOut.param)
  }

  return (subject) => {
    const target = reader.target(subject)
    const path = rq.pathOf(target)
    if (skip(path, subject)) return undefined
    const verdict = judge(subject, headerOf, matcher(), clientHints)
    let setCookie: string | undefined
    if (optOut !== undefined) {
      const value = rq.queryParam(target, optOut.param)
      if (value === '' || value === 'true' || value === '1') {
        const secure = reader.secure(subject) ? '; Secure' : ''
        setCookie = `${optOut.cookie}=1; Path=/; Max-Age=${optOut.maxAge}; SameSite=Lax; HttpOnly${secure}`
        verdict.optedOut = true
      } else if (value === 'false' || value === '0') {
        setCookie = `${optOut.cookie}=; Path=/; Max-Age=0; SameSite=Lax; HttpOnly`
      } else {
        const cookie = headerOf(subject, 'cookie')
        verdict.optedOut = cookie !== undefined && rq.cookieValue(cookie, optOut.cookie) === '1'
      }
    }
    const redirect = verdict.mobile && !verdict.optedOut
    const method = reader.method(subject)
    const page = method === 'GET' || method === 'HEAD'
    // Here a phone to redirect is never a page navigation, so its label is not_navigation.
    if ((!redirect && !alternate) || !page) return outcome(verdict, false, vary, setCookie, status)
    const readsAccept =
      headerOf(subject, 'x-requested-with') === undefined && headerOf(subject, 'sec-fetch-dest') === undefined
    const varied = readsAccept ? varyAccept : varyRequestedWith
    if (!isNavigation(subject, headerOf)) return outcome(verdict, false, varied, setCookie, status)
    const location = mobileTarget(subject, target, path)
    if (location === undefined) return outcome(verdict, true, varied, setCookie, status)
    if (!redirect) {
      const link = `<${linkTarget(location)}>; rel="alternate"; media="${ALTERNATE_MEDIA}"`
      return outcome(verdict, true, varied, setCookie, status, link)
    }
    return outcome(verdict, true, varied, setCookie, status, undefined, encodeLocation(location))
  }
}

/**
 * One outcome, always of the same shape (a function, not a closure per
 * request: this runs on every request of the site). A phone that is not
 * redirected says why in its label; the label never depends on the loop guard.
 */
function outcome(
  verdict: MobisiteVerdict,
  navigation: boolean,
  vary: string,
  setCookie: string | undefined,
  status: RedirectStatus,
  link?: string,
  location?: string,
): RedirectOutcome {
  const label: DecisionLabel = !verdict.mobile
    ? 'desktop'
    : verdict.optedOut
      ? 'opted_out'
      : navigation
        ? 'redirected'
        : 'not_navigation'
  return { verdict, label, vary, setCookie, link, location, status }
}

function judge<S>(
  subject: S,
  headerOf: RequestReader<S>['header'],
  matcher: AgentMatcher,
  clientHints: boolean,
): MobisiteVerdict {
  if (clientHints) {
    const hint = headerOf(subject, 'sec-ch-ua-mobile')
    if (typeof hint === 'string') {
      const h = hint.trim()
      if (h === '?1') return { mobile: true, by: 'client-hint', optedOut: false }
      if (h === '?0') return { mobile: false, by: 'client-hint', optedOut: false }
    }
  }
  return { mobile: matcher(headerOf(subject, 'user-agent') ?? ''), by: 'user-agent', optedOut: false }
}

function optOutSettings(name: string, o: OptOutOptions): Required<OptOutOptions> {
  const settings = {
    param: o.param ?? DEFAULT_OPT_OUT.param,
    cookie: o.cookie ?? DEFAULT_OPT_OUT.cookie,
    maxAge: o.maxAge ?? DEFAULT_OPT_OUT.maxAge,
  }
  if (settings.param === '') throw new TypeError(`${name}: optOut.param must not be empty`)
  // The name goes into Set-Cookie verbatim, so it must be an RFC 6265 token.
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(settings.cookie))
    throw new TypeError(`${name}: optOut.cookie is not a valid cookie name: ${JSON.stringify(settings.cookie)}`)
  if (!Number.isInteger(settings.maxAge) || settings.maxAge < 0)
    throw new TypeError(`${name}: optOut.maxAge must be a whole number of seconds`)
  return settings
}

/** True when a function's target is on the request's own host (or unreadable): following it would loop. */
function onRequestHost<S>(location: string, subject: S, reader: RequestReader<S>): boolean {
  try {
    const u = new URL(location, reader.origin(subject))
    return rq.normalizeHost(u.host, u.protocol) === reader.host(subject)
  } catch {
    return true
  }
}

function skipper<S>(skip: RegExp | ((subject: S) => boolean)): (path: string, subject: S) => boolean {
  if (typeof skip === 'function') return (_path, subject) => skip(subject)
  // A g or y flag would make test() stateful across requests.
  const re = skip.global || skip.sticky ? new RegExp(skip.source, skip.flags.replace(/[gy]/g, '')) : skip
  return (path) => re.test(path)
}
