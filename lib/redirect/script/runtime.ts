/**
 * What `GET /redirect.js` runs in the visitor's browser. {@link redirectRuntime}
 * is never called on the server: body.ts serves its text (`toString()`),
 * called with `window` and a JSON {@link ScriptConfig}. So the function must be
 * self-contained, and written for browsers that know ES2017 and no later:
 * - no import, and no name from outside its body but its two parameters and
 *   the language's own globals (the served text has nothing else);
 * - no `?.`, `??`, object spread, `catch` without a binding, regex flag `s`,
 *   lookbehind, named groups, `Array.prototype.flat`, `Object.fromEntries`;
 * - no nested function declaration and no function stored under a name:
 *   helpers are methods of one object literal. tsx (esbuild with keepNames)
 *   wraps named functions in `__name()` calls, which would reach the served
 *   text and fail in the browser; methods and anonymous callbacks it leaves alone;
 * - comments on lines of their own (`//`), which body.ts strips.
 * test/redirect/script.ts runs the served text in node:vm and checks its syntax.
 */
import type { LinearAgents } from '../../agents/linear.js'

/** What the served text gives {@link redirectRuntime} besides `window`: built once per agents source. */
export interface ScriptConfig {
  /** `window.mobisiteRedirect.version`: identifies the served body (changes with the agents or the script). */
  readonly version: string
  /** The served agents as data; null when the source has no linear description (then the UA never decides). */
  readonly agents: LinearAgents | null
  /** The opt-out query parameter (`no_redirect`). */
  readonly param: string
  /** The opt-out cookie (`mobisite_no_redirect`). */
  readonly cookie: string
  /** The opt-out cookie's lifetime in seconds (30 days). */
  readonly maxAge: number
}

/** The `<script>` element running the script (`document.currentScript`). */
export interface ScriptElement {
  /** Its resolved `src`; '' for an inline script. */
  readonly src: string
  getAttribute(name: string): string | null
}

/** The part of a browser window the runtime reads (lib/ is typed without the DOM library). */
export interface ScriptWindow {
  readonly document: {
    readonly currentScript: ScriptElement | null
    cookie: string
    readonly documentElement?: { readonly style: { display: string } } | null
  }
  readonly navigator: {
    readonly userAgent?: string
    readonly userAgentData?: { readonly mobile?: unknown; readonly brands?: readonly unknown[] } | null
    sendBeacon?(url: string): boolean
  }
  readonly location: {
    readonly protocol: string
    readonly host: string
    readonly pathname: string
    readonly search: string
    readonly hash: string
    replace(url: string): void
  }
  /** Reading it may throw (storage blocked): only inside try. */
  readonly localStorage?: { getItem(key: string): string | null; setItem(key: string, value: string): void }
  readonly top?: unknown
  readonly console?: { warn(...args: unknown[]): void }
  readonly URL: typeof URL
  readonly URLSearchParams: typeof URLSearchParams
  mobisiteRedirect?: MobisiteRedirectApi
}

/** `window.mobisiteRedirect`, for pages that decide for themselves. */
export interface MobisiteRedirectApi {
  /**
   * With a string: whether that User-Agent is a phone by the served agents.
   * Without: this browser's verdict (`navigator.userAgentData.mobile` when
   * the browser has it with its brands, else its User-Agent through the
   * served agents).
   */
  isMobile(userAgent?: string): boolean
  /** {@link ScriptConfig.version}. */
  readonly version: string
}

/** A parsed `data-mobile-url`: where to send phones and what counts as already there. */
interface MobileBase {
  readonly origin: string
  readonly host: string
  readonly path: string
  readonly lower: string
}

/**
 * The browser script: defines `window.mobisiteRedirect`, then, on a page that
 * loaded it with `data-mobile-url`, sends a phone there with the rules of
 * mobileRedirect (docs/redirect.md, "On any page").
 */
export function redirectRuntime(win: ScriptWindow, cfg: ScriptConfig): void {
  const doc = win.document
  const nav = win.navigator
  const loc = win.location
  const lib = {
    // The verdict of the served agents on a UA: exactly `new RegExp(source, 'i').test(ua)`
    // (lib/agents/compile.ts), built from quantifier-free pieces, never from the source.
    compile(agents: LinearAgents | null): (ua: string) => boolean {
      // The engine serves only sources with a linear description. Should another one come,
      // the UA decides nothing (not a phone) and only the client hint can say "phone".
      if (!agents) return () => false
      if (agents.any) return () => true
      // A piece never matches a line terminator, so the one-piece names need no line split.
      // `(?!)` matches nothing: no one-piece name.
      const single = new RegExp(agents.singles.length > 0 ? agents.singles.join('|') : '(?!)', 'i')
      const chains = agents.chains.map((pieces) => pieces.map((piece) => new RegExp(piece, 'gi')))
      return (ua) => {
        if (single.test(ua)) return true
        if (chains.length === 0) return false
        // `.` does not cross these, so a chain's pieces must all be on one line.
        const lines = ua.split(/[\n\r\u2028\u2029]/)
        return lines.some((line) => chains.some((chain) => lib.inOrder(line, chain)))
      }
    },
    // Whether the pieces occur in this order without overlap. Taking each piece's
    // earliest occurrence after the previous one ends is exact: pieces have a fixed
    // length, so the earliest start is also the earliest end and leaves the most room.
    inOrder(line: string, pieces: RegExp[]): boolean {
      let at = 0
      for (let i = 0; i < pieces.length; i++) {
        const piece = pieces[i] as RegExp
        piece.lastIndex = at
        if (!piece.test(line)) return false
        at = piece.lastIndex
      }
      return true
    },
    // lib/redirect/request.ts normalizeHost: lower case, no default port.
    host(host: string, protocol: string): string {
      const h = host.toLowerCase()
      if (protocol === 'https:' && /:443$/.test(h)) return h.slice(0, -4)
      if (protocol === 'http:' && /:80$/.test(h)) return h.slice(0, -3)
      return h
    },
    // lib/redirect/request.ts parseMobileUrl, returning null where it throws.
    base(mobileUrl: string): MobileBase | null {
      let u: URL
      try {
        u = new win.URL(mobileUrl)
      } catch (_error) {
        return null
      }
      if (u.protocol !== 'http:' && u.protocol !== 'https:') return null
      if (u.search !== '' || u.hash !== '' || u.username !== '' || u.password !== '') return null
      const path = u.pathname.replace(/\/+$/, '')
      return { origin: u.origin, host: lib.host(u.host, u.protocol), path, lower: path.toLowerCase() }
    },
    // lib/redirect/request.ts isUnder: `base` ('' for the root) or below it, in any letter case.
    isUnder(path: string, base: string): boolean {
      if (base === '') return true
      if (path.length < base.length || (path.length > base.length && path.charAt(base.length) !== '/')) return false
      return path.slice(0, base.length).toLowerCase() === base
    },
    // lib/redirect/request.ts withoutParam: every occurrence of the parameter removed, by its
    // decoded name, the rest kept byte for byte. `url` here has no fragment.
    withoutParam(url: string, name: string): string {
      const q = url.indexOf('?')
      if (q < 0) return url
      const kept = url
        .slice(q + 1)
        .split('&')
        .filter((part) => lib.paramName(part) !== name)
      return url.slice(0, q) + (kept.length > 0 ? '?' + kept.join('&') : '')
    },
    paramName(part: string): string {
      const eq = part.indexOf('=')
      const raw = (eq < 0 ? part : part.slice(0, eq)).replace(/\+/g, ' ')
      try {
        return decodeURIComponent(raw)
      } catch (_error) {
        return raw
      }
    },
    // lib/redirect/request.ts cookieValue.
    cookieValue(name: string): string | null {
      const parts = String(doc.cookie || '').split(';')
      for (let i = 0; i < parts.length; i++) {
        const part = parts[i] as string
        const eq = part.indexOf('=')
        if (eq >= 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
      }
      return null
    },
    // The middleware's opt-out, but a script cannot make the cookie HttpOnly. True when opted out.
    optedOut(): boolean {
      // First occurrence, percent-decoded name and value, as request.ts queryParam reads it.
      const value = new win.URLSearchParams(loc.search).get(cfg.param)
      const attributes = '; Path=/; SameSite=Lax' + (loc.protocol === 'https:' ? '; Secure' : '')
      if (value === '' || value === 'true' || value === '1') {
        doc.cookie = cfg.cookie + '=1; Max-Age=' + cfg.maxAge + attributes
        return true
      }
      if (value === 'false' || value === '0') {
        doc.cookie = cfg.cookie + '=; Max-Age=0' + attributes
        return false
      }
      return lib.cookieValue(cfg.cookie) === '1'
    },
    // POST {origin of this script}/collect/{site}?e=redirect, at most once per site per
    // minute per browser. localStorage may be missing or throw (blocked storage, private
    // modes): then every redirect confirms, which the collector takes as well.
    confirm(site: string, src: string): void {
      if (typeof nav.sendBeacon !== 'function') return
      let url: string
      try {
        url = new win.URL(src).origin + '/collect/' + encodeURIComponent(site) + '?e=redirect'
      } catch (_error) {
        return
      }
      const key = 'mobisite_confirmed:' + site
      const now = Date.now()
      let storage: ScriptWindow['localStorage'] | null = null
      try {
        // Reading the property itself throws where storage is blocked.
        storage = win.localStorage || null
        const last = storage ? Number(storage.getItem(key)) : 0
        if (last <= now && now - last < 60000) return
      } catch (_error) {}
      let sent = false
      try {
        sent = nav.sendBeacon(url)
      } catch (_error) {}
      if (!sent || !storage) return
      try {
        storage.setItem(key, String(now))
      } catch (_error) {}
    },
  }

  const judge = lib.compile(cfg.agents)
  win.mobisiteRedirect = {
    isMobile(userAgent?: string): boolean {
      if (typeof userAgent === 'string') return judge(userAgent)
      // As Sec-CH-UA-Mobile on the server: the hint wins over the User-Agent when there is one.
      // Chromium whose User-Agent was overridden without hints (DevTools, extensions) lists no
      // brands, says mobile: false and sends no Sec-CH-UA-Mobile: there the User-Agent decides.
      const data = nav.userAgentData
      if (data && typeof data.mobile === 'boolean' && data.brands && data.brands.length > 0) return data.mobile
      return judge(typeof nav.userAgent === 'string' ? nav.userAgent : '')
    },
    version: cfg.version,
  }

  const script = doc.currentScript
  const mobileUrl = script ? script.getAttribute('data-mobile-url') : null
  if (script === null || mobileUrl === null || mobileUrl === '') return
  const base = lib.base(mobileUrl)
  if (base === null) {
    if (win.console) win.console.warn('redirect.js: data-mobile-url must be an absolute http(s) URL without query')
    return
  }
  // Like the middleware: the parameter sets or clears the cookie whatever the device.
  if (lib.optedOut()) return
  if (!win.mobisiteRedirect.isMobile()) return
  // The middleware redirects documents only, never a frame's (Sec-Fetch-Dest: iframe).
  if (win.top !== undefined && win.top !== win) return
  // Loop guard: already on the mobile host and under its base path, in any letter case.
  if (lib.host(loc.host, loc.protocol) === base.host && lib.isUnder(loc.pathname, base.lower)) return
  const target = base.origin + base.path + lib.withoutParam(loc.pathname + loc.search, cfg.param) + loc.hash
  const site = script.getAttribute('data-site')
  if (site) lib.confirm(site, script.src)
  // The parser goes on while the mobile page loads: keep what it builds from showing.
  if (doc.documentElement) doc.documentElement.style.display = 'none'
  // No history entry: Back from the mobile page does not land here to be redirected again.
  loc.replace(target)
}
