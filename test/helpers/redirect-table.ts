/**
 * One table of requests for every runtime the redirect runs in: the Express
 * middleware, mobisite/edge in workerd (miniflare) and in Vercel's edge
 * runtime (@edge-runtime/vm). test/edge/compare.ts sends each row to all of
 * them and requires the same answer. The option sets are in
 * redirect-profiles.ts.
 *
 * Runtime-neutral (no `node:` import), like the profiles.
 */
import { notPhones, phones } from './agents-fixtures.js'
import type { ProfileName, WireRequest } from './redirect-profiles.js'

/** One request of the table. */
export interface TableRow {
  /** Unique; says what the row checks. */
  name: string
  profile: ProfileName
  method: 'GET' | 'HEAD' | 'POST' | 'OPTIONS'
  /**
   * `https` rows: the edge gets an `https:` URL; Express, which sits behind
   * a TLS-terminating proxy in that case, gets `trust proxy` and
   * `X-Forwarded-Proto: https`.
   */
  scheme: 'http' | 'https'
  /** The host the request is addressed to (`Host` for Express, the URL's host at the edge). */
  host: string
  /** Origin-form request target, spelled as a URL parser serializes it, so both sides see the same bytes. */
  path: string
  headers: Record<string, string>
  /** Express's request target when it differs from `path` (an absolute-form target). */
  expressTarget?: string
  /** The desktop page comes from `fetch` at the edge (immutable headers). */
  fetched?: boolean
  /**
   * Set on a row whose edge answer differs from Express's, found by this
   * table and reported rather than fixed here: the comparison expects the
   * difference (and fails once it is gone, so the mark is removed then).
   */
  knownDifference?: string
}

/** Headers of a browser's page navigation. */
export const NAVIGATION = {
  'Sec-Fetch-Dest': 'document',
  Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
}

export const IPHONE = phones['iPhone Safari'] as string
export const ANDROID_PHONE = phones['Chrome Android'] as string
export const ANDROID_TABLET = notPhones['Galaxy Tab Chrome'] as string
export const IPAD = notPhones['iPad Safari'] as string
export const IPADOS_DESKTOP = notPhones['iPadOS Safari (desktop UA)'] as string
export const WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36'
export const MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36'
export const LINUX = notPhones['Ubuntu Firefox'] as string

const DEVICE_NAMES = new Map([
  [IPHONE, 'iPhone'],
  [ANDROID_PHONE, 'Android phone'],
  [ANDROID_TABLET, 'Android tablet'],
  [IPADOS_DESKTOP, 'iPadOS (desktop UA)'],
  [WINDOWS, 'Windows'],
])

const rows: TableRow[] = []

/** Adds a row: a GET navigation of `/shop/item?id=7` on http://www.example.com by an iPhone, unless told otherwise. */
function add(name: string, row: Partial<TableRow> & { ua?: string } = {}): void {
  const { ua = IPHONE, ...rest } = row
  const headers = { ...(ua === '' ? {} : { 'User-Agent': ua }), ...NAVIGATION, ...row.headers }
  for (const [k, v] of Object.entries(headers)) if (v === undefined) delete (headers as Record<string, unknown>)[k]
  rows.push({
    name,
    profile: 'default',
    method: 'GET',
    scheme: 'http',
    host: 'www.example.com',
    path: '/shop/item?id=7',
    ...rest,
    headers: headers as Record<string, string>,
  })
}

/** Headers without the navigation pair, so a row sets exactly the request's own. */
const bare = { 'Sec-Fetch-Dest': undefined, Accept: undefined } as unknown as Record<string, string>

// Devices: every fixture phone is redirected, every other fixture device is not.
for (const [device, ua] of Object.entries(phones)) add(`phone: ${device}`, { ua })
for (const [device, ua] of Object.entries(notPhones)) add(`not a phone: ${device}`, { ua })
add('Windows Chrome', { ua: WINDOWS })
add('Mac Chrome', { ua: MAC })
add('a navigation without any header', { ua: '', headers: bare })

// Client hints: `?1`/`?0` decide whatever the UA says; anything else leaves it to the UA.
for (const [hint, uas] of [
  ['?1', [WINDOWS, IPADOS_DESKTOP, ANDROID_TABLET]],
  ['?0', [IPHONE, ANDROID_PHONE]],
  ['?1 ', [WINDOWS]],
  ['1', [WINDOWS, IPHONE]],
  ['?2', [WINDOWS, IPHONE]],
  ['true', [WINDOWS]],
  ['?0, ?1', [IPHONE, WINDOWS]],
  ['', [IPHONE, WINDOWS]],
] as const) {
  for (const ua of uas) {
    const who = DEVICE_NAMES.get(ua)
    add(`hint ${JSON.stringify(hint)}, ${who}`, { ua, headers: { 'Sec-CH-UA-Mobile': hint } })
    add(`hint ${JSON.stringify(hint)}, ${who}, clientHints: false`, {
      ua,
      profile: 'noHints',
      headers: { 'Sec-CH-UA-Mobile': hint },
    })
  }
}

// Navigations only: what Sec-Fetch-Dest, X-Requested-With and Accept say.
for (const profile of ['default', 'alternate'] as const) {
  const ua = profile === 'default' ? IPHONE : WINDOWS
  const p = `${profile === 'default' ? 'iPhone' : 'Windows, alternateLink'}:`
  for (const dest of ['document', 'DOCUMENT', 'image', 'empty', 'script', 'style', 'iframe', 'manifest']) {
    add(`${p} Sec-Fetch-Dest ${dest}`, { ua, profile, headers: { ...bare, 'Sec-Fetch-Dest': dest } })
  }
  add(`${p} X-Requested-With, Sec-Fetch-Dest document`, {
    ua,
    profile,
    headers: { 'X-Requested-With': 'XMLHttpRequest' },
  })
  add(`${p} X-Requested-With, no Sec-Fetch-Dest`, {
    ua,
    profile,
    headers: { ...bare, 'X-Requested-With': 'XMLHttpRequest', Accept: '*/*' },
  })
  for (const accept of [
    undefined,
    '',
    '*/*',
    'text/*',
    'text/html',
    'TEXT/HTML',
    'text/html;q=0.5',
    'text/html;q=0',
    'text/html;q=0, */*;q=0',
    'text/html; q=0, application/json',
    'application/json',
    'application/json, text/plain, */*',
    'image/avif,image/webp,*/*',
    'image/*',
    'application/rss+xml',
    'text/html;q=abc',
    'text/html;level=1;q=0',
    'text/html ;q=0',
    'text/html;Q=0',
    '*/*;q=0.0',
    'text/plain, text/*;q=0.001',
  ]) {
    const headers = accept === undefined ? bare : { ...bare, Accept: accept }
    add(`${p} no Sec-Fetch-Dest, Accept ${accept === undefined ? 'absent' : JSON.stringify(accept)}`, {
      ua,
      profile,
      headers,
    })
  }
}

// Opt-out: the parameter sets or clears the cookie; the cookie holds; the parameter never travels on.
for (const [query, cookie] of [
  ['?no_redirect', undefined],
  ['?no_redirect=', undefined],
  ['?no_redirect=true', undefined],
  ['?no_redirect=1', undefined],
  ['?no_redirect=false', undefined],
  ['?no_redirect=0', undefined],
  ['?no_redirect=false', 'mobisite_no_redirect=1'],
  ['?no_redirect=yes', undefined],
  ['?no%5Fredirect=1', undefined],
  ['?no%5fredirect=0', undefined],
  ['?a=1&no_redirect=1&b=2', undefined],
  ['?a=1&no_redirect=0&b=%20x+y', undefined],
  ['?no_redirect=1&no_redirect=0', undefined],
  ['?no_redirect=0&no_redirect=1&id=7', undefined],
  ['?x=no_redirect', undefined],
  ['?id=7', 'mobisite_no_redirect=1'],
  ['?id=7', 'mobisite_no_redirect=0'],
  ['?id=7', 'a=1; mobisite_no_redirect=1; b=2'],
  ['?id=7', 'xmobisite_no_redirect=1'],
  ['?id=7', 'mobisite_no_redirect = 1'],
] as const) {
  const headers: Record<string, string> = cookie === undefined ? {} : { Cookie: cookie }
  const what = `${query}${cookie === undefined ? '' : `, Cookie ${cookie}`}`
  add(`opt-out: iPhone ${what}`, { path: `/shop/item${query}`, headers })
  add(`opt-out: Windows ${what}`, { ua: WINDOWS, path: `/shop/item${query}`, headers })
}
add('opt-out: set over https gets Secure', { scheme: 'https', path: '/p?no_redirect=1' })
add('opt-out: clear over https', { scheme: 'https', path: '/p?no_redirect=0' })
add('opt-out: a POST sets it too', { method: 'POST', path: '/form?no_redirect=1' })
add('opt-out: a POST with the cookie', { method: 'POST', path: '/form', headers: { Cookie: 'mobisite_no_redirect=1' } })
add('opt-out: an image request sets it', { path: '/banner?no_redirect=1', headers: { 'Sec-Fetch-Dest': 'image' } })
add('opt-out: a skipped path is untouched', { path: '/style.css?no_redirect=1' })
add('optOut: false keeps the parameter and ignores the cookie', {
  profile: 'noOptOut',
  path: '/p?no_redirect=1',
  headers: { Cookie: 'mobisite_no_redirect=1' },
})
add('optOut: custom parameter', { profile: 'customOptOut', path: '/p?desktop=1&no_redirect=1' })
add('optOut: custom cookie', { profile: 'customOptOut', path: '/p', headers: { Cookie: 'prefer_desktop=1' } })
add('optOut: the default cookie under a custom name', {
  profile: 'customOptOut',
  path: '/p',
  headers: { Cookie: 'mobisite_no_redirect=1' },
})
add('optOut: custom, cleared', { profile: 'customOptOut', path: '/p?desktop=0' })

// Loop guard: the mobile host, and a base path on the desktop host (any letter case).
for (const path of [
  '/page',
  '/m',
  '/m/',
  '/m/page',
  '/M/page',
  '/m?x=1',
  '/mobile',
  '/mx',
  '/',
  '/page?no_redirect=0',
]) {
  add(`loop guard: base path, ${path}`, { profile: 'basePath', path })
  add(`loop guard: base path, https, ${path}`, { profile: 'basePath', scheme: 'https', path })
}
add('loop guard: base path, percent-encoded', { profile: 'basePath', path: '/%6D/page' })
add('loop guard: base path, on another host', { profile: 'basePath', host: 'shop.example.com', path: '/m/page' })
for (const host of ['m.example.com', 'M.Example.COM', 'm.example.com:80', 'm.example.com:8080']) {
  add(`loop guard: a request to ${host}`, { host })
}
add('loop guard: https on m.example.com:443', { host: 'm.example.com:443', scheme: 'https' })
add('a mobile URL with a port and a trailing slash', { profile: 'otherPort', path: '/a?b=c' })
add('a mobile URL with a port: on that host and port', { profile: 'otherPort', host: 'm.example.com:8080', path: '/a' })
add('a mobile URL with a port: under its path on that host', {
  profile: 'otherPort',
  host: 'm.example.com:8080',
  path: '/MOBILE/a',
})

// Skip: /api and assets by default; a custom RegExp (with `g`, twice in a row) or predicate replaces it.
for (const path of [
  '/api',
  '/api/x',
  '/api?x=1',
  '/apix',
  '/API/x',
  '/style.css',
  '/STYLE.CSS',
  '/img/logo.png?v=1',
  '/data.json',
  '/a.css/page',
  '/static/x',
]) {
  add(`skip default: ${path}`, { path })
}
for (const path of ['/static/x', '/static/x', '/assets/y', '/assets/y', '/page', '/style.css']) {
  add(`skip RegExp with g: ${path} (${rows.length})`, { profile: 'skipGlobal', path })
}
for (const path of ['/private/x', '/public', '/api']) add(`skip predicate: ${path}`, { profile: 'skipFn', path })

// Paths that try to move the redirect off the mobile host, and paths a URL parser keeps as they are.
for (const path of [
  '//evil.example/x',
  '//evil.example',
  '///evil.example',
  '/http://evil.example/x',
  '/%2F%2Fevil.example/x',
  '/a?next=//evil.example',
  '/a?next=https://evil.example/',
  '/%E2%9C%93?q=%C3%A9',
  '/p?q=[1]|2',
  '/p?',
  '/p?&',
  '/p?q=100%',
  '/a%zz',
  '/p?a=%2',
]) {
  add(`path ${path}`, { path })
}
add('absolute-form target (Express); the same path at the edge', {
  path: '/x?y=1',
  expressTarget: 'http://evil.example/x?y=1',
})

// Methods: only GET and HEAD are redirected; every judged answer varies.
add('HEAD iPhone', { method: 'HEAD' })
add('HEAD Windows', { method: 'HEAD', ua: WINDOWS })
add('HEAD skipped', { method: 'HEAD', path: '/api/x' })
add('POST iPhone', { method: 'POST' })
add('POST Windows', { method: 'POST', ua: WINDOWS })
add('OPTIONS iPhone', { method: 'OPTIONS' })
add('HEAD status 307', { method: 'HEAD', profile: 's307' })

// Statuses, alternate link, the page's own headers, and an immutable page (fetched) at the edge.
add('status 301', { profile: 's301' })
add('status 307', { profile: 's307' })
add('status 301, desktop', { profile: 's301', ua: WINDOWS })
add('alternate: desktop navigation', { profile: 'alternate', ua: WINDOWS, path: '/a?b=1&no_redirect=0' })
add('alternate: phone that opted out', { profile: 'alternate', path: '/a?no_redirect=1' })
add('alternate: phone redirected, no Link', { profile: 'alternate' })
add('alternate: on the mobile host', { profile: 'alternate', ua: WINDOWS, host: 'm.example.com' })
add('alternate: POST', { profile: 'alternate', ua: WINDOWS, method: 'POST' })
add('alternate: tablet over https', { profile: 'alternate', ua: IPAD, scheme: 'https' })
add('alternate + page Link', { profile: 'alternatePage', ua: WINDOWS })
add('page Set-Cookie + opt-out cookie', { profile: 'page', path: '/p?no_redirect=1' })
add('page headers, desktop', { profile: 'page', ua: WINDOWS })
add('page headers, phone redirected', { profile: 'page' })
add('page Vary *, desktop with alternate', { profile: 'varyStar', ua: WINDOWS })
add('page Vary *, phone opted out', { profile: 'varyStar', path: '/p?no_redirect=1' })
add('page Vary *, fetched', { profile: 'varyStar', ua: WINDOWS, fetched: true })
add('fetched page (immutable headers), opt-out', { profile: 'alternatePage', path: '/p?no_redirect=1', fetched: true })
add('fetched page (immutable headers), desktop', { profile: 'alternatePage', ua: WINDOWS, fetched: true })
add('fetched page, skipped', { path: '/api/x', fetched: true })

// mobileUrl as a function: (url, request) at the edge, (req) in Express.
for (const path of ['/shop', '/shop/item?id=7', '/shop/a?no_redirect=0&b=1', '/other', '/shopping', '/shop?']) {
  add(`mobileUrl function: ${path}`, { profile: 'fnShop', path })
  add(`mobileUrl function + alternate, desktop: ${path}`, { profile: 'fnShopAlternate', ua: WINDOWS, path })
}
add('mobileUrl function throws: passed through, reported', { profile: 'fnThrows' })
add('mobileUrl function throws, desktop: not called', { profile: 'fnThrows', ua: WINDOWS })
add('mobileUrl function on the request host', { profile: 'fnSameHost' })
add('mobileUrl function on the request host, other host asks', { profile: 'fnSameHost', host: 'shop.example.com' })
add('mobileUrl function, relative', { profile: 'fnRelative' })
add('mobileUrl function carrying the opt-out parameter', { profile: 'fnWithOptOut', path: '/a?b=1' })
add('mobileUrl function with raw characters', { profile: 'fnRawChars', path: '/a' })
add('mobileUrl function with raw characters, alternate off, desktop', { profile: 'fnRawChars', ua: WINDOWS })

/** Every row of the table, in order (the `g`-flag rows rely on running in order on one handler). */
export const TABLE: readonly TableRow[] = rows

/** A GET navigation per UA (any device, bots included) under `profile`: the corpus rows. */
export function rowsForUserAgents(uas: readonly string[], label: string, profile: ProfileName = 'default'): TableRow[] {
  return uas.map((ua, i) => ({
    name: `${label} #${i}: ${ua.slice(0, 80)}`,
    profile,
    method: 'GET',
    scheme: 'https',
    host: 'www.example.com',
    path: '/shop/item?id=7',
    headers: { 'User-Agent': ua, ...NAVIGATION },
  }))
}

/** The request a runtime gets for a row. */
export function wireOf(row: TableRow): WireRequest {
  return {
    profile: row.profile,
    method: row.method,
    url: `${row.scheme}://${row.host}${row.path}`,
    headers: row.headers,
    ...(row.fetched === true ? { fetched: true } : {}),
  }
}
