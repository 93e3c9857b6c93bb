/**
 * The option sets the shared redirect table (redirect-table.ts) runs under,
 * each written twice with the same meaning: for `createMobileRedirect` of
 * mobisite/edge and for the Express `mobileRedirect`. Also the desktop page
 * both put behind the redirect, and the loop that runs rows through an edge
 * handler and reads its answers.
 *
 * Runtime-neutral on purpose (no `node:` import, nothing but types from
 * lib/): test/edge/ bundles this file into the workerd and edge-runtime
 * harnesses beside the bundle of lib/edge.ts, so the very same profiles and
 * answer reader run in every runtime.
 */
import type { Request as ExpressRequest } from 'express'
import type { EdgeMobileRedirect, EdgeRedirectOptions } from '../../lib/edge.js'
import type { MobileRedirectOptions } from '../../lib/redirect/middleware.js'

/** Receives what `onError` is told, so a row can count the reports. */
export type Report = (error: Error) => void

/** One option set, for both adapters. */
export interface Profile {
  /** Options of `createMobileRedirect`. */
  edge(report: Report): EdgeRedirectOptions
  /** Options of the Express `mobileRedirect`, meaning the same. */
  express(report: Report): MobileRedirectOptions
  /**
   * What the desktop page adds of its own: nothing, or a `Set-Cookie` and a
   * `Link`, so the middleware's must be appended to the page's, not replace them.
   */
  page?: 'plain' | 'extra' | 'varyStar'
}

const MOBILE = 'https://m.example.com'

/** Path and query of an Express request, split without a URL parser (a `//host` path would move it). */
function expressParts(req: ExpressRequest): [path: string, search: string] {
  const raw = req.originalUrl
  const q = raw.indexOf('?')
  return q < 0 ? [raw, ''] : [raw.slice(0, q), raw.slice(q)]
}

/**
 * Builds a profile whose `mobileUrl` is a function of path and query, given
 * to each adapter in its own signature: `(url, request)` at the edge, `(req)`
 * in Express. An empty query (`?` alone) counts as none on both sides, as
 * `URL.search` reads it.
 */
function byPath(target: (path: string, search: string) => string | undefined, extra: Partial<Profile> = {}): Profile {
  const search = (s: string) => (s === '?' ? '' : s)
  return {
    edge: (report) => ({ mobileUrl: (url) => target(url.pathname, search(url.search)), onError: report }),
    express: (report) => ({
      mobileUrl: (req) => {
        const [path, query] = expressParts(req)
        return target(path, search(query))
      },
      onError: report,
    }),
    ...extra,
  }
}

/** The same plain options on both sides (no function in them). */
function same(options: Omit<MobileRedirectOptions & EdgeRedirectOptions, 'onError'>, page?: Profile['page']): Profile {
  return {
    edge: (report) => ({ ...options, onError: report }) as EdgeRedirectOptions,
    express: (report) => ({ ...options, onError: report }) as MobileRedirectOptions,
    ...(page === undefined ? {} : { page }),
  }
}

/** `/shop/…` goes to the mobile store; anything else has no mobile version. */
const shop = (path: string, search: string) =>
  path === '/shop' || path.startsWith('/shop/') ? `${MOBILE}/store${path.slice(5)}${search}` : undefined

/** A profile's name. */
export type ProfileName =
  | 'default'
  | 'page'
  | 'varyStar'
  | 'noHints'
  | 'basePath'
  | 'otherPort'
  | 'alternate'
  | 'alternatePage'
  | 's301'
  | 's307'
  | 'noOptOut'
  | 'customOptOut'
  | 'skipGlobal'
  | 'skipFn'
  | 'fnShop'
  | 'fnShopAlternate'
  | 'fnThrows'
  | 'fnSameHost'
  | 'fnRelative'
  | 'fnWithOptOut'
  | 'fnRawChars'

/** Every option set the table uses, by name. */
export const PROFILES: Record<ProfileName, Profile> = {
  default: same({ mobileUrl: MOBILE }),
  page: same({ mobileUrl: MOBILE }, 'extra'),
  varyStar: same({ mobileUrl: MOBILE, alternateLink: true }, 'varyStar'),
  noHints: same({ mobileUrl: MOBILE, clientHints: false }),
  basePath: same({ mobileUrl: 'https://www.example.com/m' }),
  otherPort: same({ mobileUrl: 'http://m.example.com:8080/mobile/' }),
  alternate: same({ mobileUrl: MOBILE, alternateLink: true }),
  alternatePage: same({ mobileUrl: MOBILE, alternateLink: true }, 'extra'),
  s301: same({ mobileUrl: MOBILE, status: 301 }),
  s307: same({ mobileUrl: MOBILE, status: 307 }),
  noOptOut: same({ mobileUrl: MOBILE, optOut: false }),
  customOptOut: same({ mobileUrl: MOBILE, optOut: { param: 'desktop', cookie: 'prefer_desktop', maxAge: 3600 } }),
  // A `g` flag would make RegExp#test stateful across requests: both adapters must drop it.
  skipGlobal: same({ mobileUrl: MOBILE, skip: /^\/(?:static|assets)\//g }),
  skipFn: {
    edge: (report) => ({ mobileUrl: MOBILE, skip: (url) => url.pathname.startsWith('/private'), onError: report }),
    express: (report) => ({ mobileUrl: MOBILE, skip: (req) => req.path.startsWith('/private'), onError: report }),
  },
  fnShop: byPath(shop),
  fnShopAlternate: {
    ...byPath(shop),
    edge: (report) => ({ ...byPath(shop).edge(report), alternateLink: true }),
    express: (report) => ({ ...byPath(shop).express(report), alternateLink: true }),
  },
  fnThrows: byPath(() => {
    throw new Error('mobileUrl failed')
  }),
  // A function target on the request's own host is never followed (loop guard), absolute or relative.
  fnSameHost: byPath((path, search) => `https://www.example.com/mobile${path}${search}`),
  fnRelative: byPath((path, search) => `/m${path}${search}`),
  // The opt-out parameter never travels to the mobile site, also from a function's URL.
  fnWithOptOut: byPath((path) => `${MOBILE}${path}?no_redirect=1&keep=1`),
  // Characters a Location or a Link's <…> must not carry raw.
  fnRawChars: byPath((path) => `${MOBILE}/a b<c>"d${path}é`),
}

/** The desktop page behind the redirect, the same in every runtime. */
export const DESKTOP_PAGE = {
  body: 'desktop',
  headers: [
    ['Content-Type', 'text/plain; charset=utf-8'],
    ['Vary', 'Accept-Encoding'],
    ['Cache-Control', 'public, max-age=300'],
  ],
  /** Added with `page: 'extra'`. */
  extra: [
    ['Set-Cookie', 'session=abc; Path=/; HttpOnly'],
    ['Link', '</app.css>; rel=preload; as=style'],
  ],
  /** With `page: 'varyStar'`, the page's `Vary` (which absorbs every field merged into it). */
  varyStar: '*',
} as const

/** The page's own headers of a profile's page kind. */
export function pageHeaders(page: Profile['page']): Array<[string, string]> {
  const headers = DESKTOP_PAGE.headers.map(([k, v]): [string, string] => [
    k,
    k === 'Vary' && page === 'varyStar' ? DESKTOP_PAGE.varyStar : v,
  ])
  return page === 'extra' ? [...headers, ...DESKTOP_PAGE.extra.map(([k, v]): [string, string] => [k, v])] : headers
}

/** A request of the table, as every runtime receives it. */
export interface WireRequest {
  profile: ProfileName
  method: string
  /** The absolute URL the edge sees (`https://www.example.com/p?q`). */
  url: string
  headers: Record<string, string>
  /** The desktop page comes from `fetch` (immutable headers, as in Workers), where the runtime can. */
  fetched?: boolean
}

/** An answer, reduced to what is compared. */
export interface Answer {
  status: number
  location: string | null
  /** The fields of `Vary`, in lower case, sorted, without duplicates. */
  vary: string[]
  /** Every `Set-Cookie`, sorted (the page's and the middleware's come in different orders, which means nothing). */
  setCookie: string[]
  /** Every `Link` value, sorted, for the same reason. */
  link: string[]
  cacheControl: string | null
  /** The body (null for HEAD: no body either way). */
  body: string | null
  /** How many times `onError` was told during this request. */
  errors: number
}

/** The fields of a `Vary` value, normalized for comparison. */
export function varyFields(value: string | null | undefined): string[] {
  if (value === null || value === undefined) return []
  return [...new Set(value.split(',').map((f) => f.trim().toLowerCase()))].filter((f) => f !== '').sort()
}

/** `Link` values split at the commas between links (a `<` starts each). */
export function linkValues(value: string | null | undefined): string[] {
  if (value === null || value === undefined || value === '') return []
  return value.split(/,\s*(?=<)/).sort()
}

/** Reads a web `Response` into an {@link Answer}. */
export async function webAnswer(res: Response, method: string, errors: number): Promise<Answer> {
  const body = await res.text()
  return {
    status: res.status,
    location: res.headers.get('location'),
    vary: varyFields(res.headers.get('vary')),
    setCookie: res.headers.getSetCookie().sort(),
    link: linkValues(res.headers.get('link')),
    cacheControl: res.headers.get('cache-control'),
    body: method === 'HEAD' ? null : body,
    errors,
  }
}

/** The desktop page as a web `Response` with mutable headers. */
export function desktopResponse(page: Profile['page']): Response {
  const headers = new Headers()
  for (const [k, v] of pageHeaders(page)) headers.append(k, v)
  return new Response(DESKTOP_PAGE.body, { headers })
}

/** `createMobileRedirect` as the runtime under test has it (from its own bundle). */
export type CreateMobileRedirect = (options: EdgeRedirectOptions) => EdgeMobileRedirect

/** What a batch run gives back per request: the answer, and `decide`'s redirect for the same request. */
export interface EdgeResult {
  answer: Answer
  decided: { status: number; location: string } | null
}

/**
 * Runs requests through edge handlers built from {@link PROFILES} (one per
 * profile, kept across calls like a module-scope handler), one real
 * `handle()` per request, in order. The desktop page is
 * {@link desktopResponse}, or for a `fetched` request what `fetchPage`
 * answers (a runtime's `fetch`, whose answers have immutable headers).
 */
export function edgeRunner(create: CreateMobileRedirect, fetchPage?: (kind: Profile['page']) => Promise<Response>) {
  const made = new Map<ProfileName, { mw: EdgeMobileRedirect; errors: Error[] }>()
  const handlerOf = (name: ProfileName) => {
    let entry = made.get(name)
    if (entry === undefined) {
      const errors: Error[] = []
      entry = { mw: create(PROFILES[name].edge((e) => errors.push(e))), errors }
      made.set(name, entry)
    }
    return entry
  }
  /** One request through `handle` (and `decide` on a twin of it). */
  const run = async (wire: WireRequest, ctx?: { waitUntil(p: Promise<unknown>): void }): Promise<EdgeResult> => {
    const { mw, errors } = handlerOf(wire.profile)
    const kind = PROFILES[wire.profile].page
    const before = errors.length
    const page = () => (wire.fetched === true && fetchPage !== undefined ? fetchPage(kind) : desktopResponse(kind))
    const res = await mw.handle(new Request(wire.url, { method: wire.method, headers: wire.headers }), page, ctx)
    const answer = await webAnswer(res, wire.method, errors.length - before)
    const twin = mw.decide(new Request(wire.url, { method: wire.method, headers: wire.headers }))
    errors.length = before + answer.errors
    return { answer, decided: twin.redirect === undefined ? null : { ...twin.redirect } }
  }
  return { run, handlerOf }
}
