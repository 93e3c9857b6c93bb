/**
 * The web `Request`/`Response` adapter of the redirect decision, for
 * Cloudflare Workers, Vercel and Next.js middleware, Deno, Bun and Hono
 * (`mobisite/edge`). Same options and the same answers as the Express
 * middleware (test/edge/ compares them request by request). No timer runs at
 * module scope, which Workers forbid: remote agents are fetched on requests,
 * and every fetch after the answer goes to `ctx.waitUntil` when given.
 */
import { DEFAULT_AGENTS } from '../agents/default.js'
import type { AgentMatcher, AgentMatcherOptions } from '../agents/matcher.js'
import { collectUrlOf, remoteConfirmer, type Confirm, type Defer } from './confirm.js'
import {
  createDecider,
  type OptOutOptions,
  type RedirectOutcome,
  type RedirectStatus,
  type RequestReader,
} from './decision.js'
import { mergeVary } from './headers.js'
import { remoteSource, staticProvider } from './providers.js'
import type { RemoteAgentsOptions } from './remote.js'
import { normalizeHost } from './request.js'

/** The platform's hook for work that outlives the answer (Workers' and Next.js's `waitUntil`). */
export interface WaitUntil {
  waitUntil(promise: Promise<unknown>): void
}

/** Options of {@link createMobileRedirect}: the Express middleware's, for web requests. */
export interface EdgeRedirectOptions {
  /**
   * The mobile site. A string (absolute http(s) URL, optionally with a base
   * path) receives the request's path and query appended. A function gets
   * the parsed request URL and the request, and returns the full target
   * URL, or undefined to not redirect this request.
   */
  mobileUrl: string | ((url: URL, request: Request) => string | undefined)
  /** Agents source. Default `DEFAULT_AGENTS`. Not together with `remote`. */
  agents?: string
  /**
   * Fetch the agents from a mobisite service: on the first request, then at
   * most every `refreshInterval` ms (backing off after failures), inside
   * `ctx.waitUntil` when given. Until the first success, `DEFAULT_AGENTS`.
   */
  remote?: RemoteAgentsOptions
  /** Confirm redirects of this site through the service's collector; needs `remote`. */
  siteName?: string
  /** Add `Link: <mobile url>; rel="alternate"; media=…` to desktop page navigations. Default false. */
  alternateLink?: boolean
  /** Redirect status. Default 302. */
  status?: RedirectStatus
  /** Honour `Sec-CH-UA-Mobile`. Default true. */
  clientHints?: boolean
  /** Opt-out query parameter and cookie, or `false` to disable. */
  optOut?: OptOutOptions | false
  /** Paths never judged: a RegExp tested on the path, or a predicate. Default `DEFAULT_SKIP`. */
  skip?: RegExp | ((url: URL, request: Request) => boolean)
  /** Matcher options (cache size, limits). */
  matcher?: AgentMatcherOptions
  /** Receives every refused source, failed fetch, failed confirmation and throwing `mobileUrl`. Default `console.warn`. */
  onError?: (error: Error) => void
  /** Clock of the refresh and confirmation throttles, in ms. Default `Date.now`. */
  now?: () => number
}

/** What {@link EdgeMobileRedirect.decide} found, for frameworks that build the answer themselves. */
export interface EdgeDecision {
  /** True for a phone. */
  mobile: boolean
  /** `client-hint` when `Sec-CH-UA-Mobile` decided, else `user-agent`. */
  by: 'client-hint' | 'user-agent'
  /** True when the visitor opted out (parameter or cookie). */
  optedOut: boolean
  /** True when the path is skipped: nothing was judged and `headers` is empty. */
  skipped: boolean
  /** The redirect to answer with, if any (an empty body). */
  redirect?: { status: RedirectStatus; location: string }
  /** Headers to add to the answer, redirect or page: `Vary` (merge it), `Set-Cookie` and `Link` (append them). */
  headers: Headers
}

/** The redirect for web requests. */
export interface EdgeMobileRedirect {
  /**
   * Answers a request: the redirect, or `next()`'s response with `Vary`
   * merged and `Set-Cookie`/`Link` appended (a response with immutable
   * headers is copied first). Skipped paths get `next()` untouched.
   */
  handle(request: Request, next: () => Response | Promise<Response>, ctx?: WaitUntil): Promise<Response>
  /** The decision alone; with `ctx`, a redirect is confirmed and agents are refreshed as in `handle`. */
  decide(request: Request, ctx?: WaitUntil): EdgeDecision
  /** The matcher in use now. */
  readonly matcher: AgentMatcher
  /** Fetches the remote agents now (resolves when done; never rejects). */
  refresh(): Promise<void>
}

/**
 * A request as the decision reads it. The URL is parsed only when a step
 * needs its host or scheme (a redirect, an alternate link, an opt-out
 * cookie, a `mobileUrl` or `skip` function): most requests only read the
 * path, which the serialized URL gives without parsing.
 */
class WebSubject {
  private parsed: URL | undefined
  constructor(readonly request: Request) {}
  get url(): URL {
    this.parsed ??= new URL(this.request.url)
    return this.parsed
  }
}

const WEB_READER: RequestReader<WebSubject> = {
  method: (s) => s.request.method,
  target: (s) => targetOf(s.request.url),
  header: (s, name) => s.request.headers.get(name) ?? undefined,
  host: (s) => normalizeHost(s.url.host, s.url.protocol),
  origin: (s) => s.url.origin,
  secure: (s) => s.url.protocol === 'https:',
}

/**
 * Creates the redirect for web requests. Bad options throw a `TypeError`
 * (or an `AgentsSourceError` for a bad `agents` string) at once.
 * @example
 * ```ts
 * const redirect = createMobileRedirect({ mobileUrl: 'https://m.example.com' })
 * export default { fetch: (request, env, ctx) => redirect.handle(request, () => fetch(request), ctx) }
 * ```
 */
export function createMobileRedirect(options: EdgeRedirectOptions): EdgeMobileRedirect {
  const o = options
  if (o === null || typeof o !== 'object') throw new TypeError('createMobileRedirect(options): options are required')
  if (o.agents !== undefined && o.remote !== undefined)
    throw new TypeError('createMobileRedirect: give `agents` or `remote`, not both')
  if (o.siteName !== undefined && o.remote === undefined)
    throw new TypeError('createMobileRedirect: `siteName` needs `remote`')
  const report = o.onError ?? ((err: Error) => console.warn(err))
  const now = o.now ?? Date.now
  const { mobileUrl, skip } = o
  const decide = createDecider<WebSubject>(
    'createMobileRedirect',
    {
      ...o,
      mobileUrl: typeof mobileUrl === 'function' ? (s) => mobileUrl(s.url, s.request) : mobileUrl,
      skip: typeof skip === 'function' ? (s) => skip(s.url, s.request) : skip,
    },
    WEB_READER,
    () => agents.current(),
    report,
  )
  const agents = o.remote !== undefined ? onRequestRemote(o.remote, o.matcher ?? {}, report, now) : fixed(o)
  const confirm: Confirm | undefined =
    o.siteName === undefined || o.remote === undefined
      ? undefined
      : remoteConfirmer(collectUrlOf(o.remote, o.siteName), o.remote.timeout ?? 5000, now, report)

  const judge = (request: Request, ctx: WaitUntil | undefined): RedirectOutcome | undefined => {
    agents.poll(deferTo(ctx))
    const outcome = decide(new WebSubject(request))
    if (outcome?.location !== undefined) confirm?.(deferTo(ctx))
    return outcome
  }
  return {
    async handle(request, next, ctx) {
      const outcome = judge(request, ctx)
      if (outcome === undefined) return next()
      if (outcome.location !== undefined) {
        const headers = headersOf(outcome)
        headers.set('Location', outcome.location)
        return new Response(null, { status: outcome.status, headers })
      }
      return withHeaders(await next(), outcome)
    },
    decide(request, ctx) {
      const outcome = judge(request, ctx)
      if (outcome === undefined)
        return { mobile: false, by: 'user-agent', optedOut: false, skipped: true, headers: new Headers() }
      const { mobile, by, optedOut } = outcome.verdict
      const decision: EdgeDecision = { mobile, by, optedOut, skipped: false, headers: headersOf(outcome) }
      if (outcome.location !== undefined) decision.redirect = { status: outcome.status, location: outcome.location }
      return decision
    },
    get matcher() {
      return agents.current()
    },
    refresh: () => agents.refresh(),
  }
}

/** Agents that can be asked on a request whether they want refreshing. */
interface PolledAgents {
  current(): AgentMatcher
  /** Starts a refresh through `defer` when one is due. */
  poll(defer: Defer): void
  refresh(): Promise<void>
}

function fixed(o: EdgeRedirectOptions): PolledAgents {
  const provider = staticProvider(o.agents ?? DEFAULT_AGENTS, o.matcher ?? {})
  return { current: provider.current, poll: () => undefined, refresh: provider.refresh }
}

/**
 * A remote source refreshed by the requests themselves: the first one
 * starts a fetch, and later ones only once the wait is over. While a fetch
 * is out the next is due after its timeout, so a fetch the platform dropped
 * (no `ctx`, the isolate went idle) cannot stop refreshes for good.
 */
function onRequestRemote(
  remote: RemoteAgentsOptions,
  options: AgentMatcherOptions,
  report: (error: Error) => void,
  now: () => number,
): PolledAgents {
  const source = remoteSource(remote, options, report)
  const timeout = remote.timeout ?? 5000
  let due = Number.NEGATIVE_INFINITY
  const refresh = (): Promise<void> => {
    due = now() + timeout
    return source.refresh().then(() => {
      due = now() + source.nextWait()
    })
  }
  return {
    current: source.current,
    poll: (defer) => {
      if (now() >= due) defer(refresh)
    },
    refresh,
  }
}

/** Work after the answer: to the platform when it gave a `waitUntil`, else simply started. */
function deferTo(ctx: WaitUntil | undefined): Defer {
  return ctx === undefined ? (send) => void send() : (send) => ctx.waitUntil(send())
}

/** Vary, Set-Cookie and Link of an outcome, as web headers. */
function headersOf(outcome: RedirectOutcome): Headers {
  const headers = new Headers({ Vary: outcome.vary })
  if (outcome.setCookie !== undefined) headers.append('Set-Cookie', outcome.setCookie)
  if (outcome.link !== undefined) headers.append('Link', outcome.link)
  return headers
}

/** `response` with the outcome's headers added; copied first when its headers are immutable. */
function withHeaders(response: Response, outcome: RedirectOutcome): Response {
  // A protocol switch (a WebSocket in Workers) cannot be copied, and caches never store it.
  if (response.status === 101) return response
  try {
    addTo(response.headers, outcome)
    return response
  } catch {
    // Workers' fetch() answers with immutable headers; the first set threw before any change.
    const copy = new Response(response.body, response)
    addTo(copy.headers, outcome)
    return copy
  }
}

function addTo(headers: Headers, outcome: RedirectOutcome): void {
  headers.set('Vary', mergeVary(headers.get('Vary'), outcome.vary))
  if (outcome.setCookie !== undefined) headers.append('Set-Cookie', outcome.setCookie)
  if (outcome.link !== undefined) headers.append('Link', outcome.link)
}

/** Path and query of a serialized URL, as sent (an empty `?` kept, the fragment dropped). */
function targetOf(href: string): string {
  const start = href.indexOf('/', href.indexOf('//') + 2)
  if (start < 0) return '/'
  const hash = href.indexOf('#', start)
  return hash < 0 ? href.slice(start) : href.slice(start, hash)
}
