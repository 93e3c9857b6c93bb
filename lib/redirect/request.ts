/**
 * Small, allocation-light readers of what the decision needs: path, query
 * parameter, cookie, host, and the redirect target. Runtime-neutral.
 */

/** The path of a request target (path and query). */
export function pathOf(target: string): string {
  const q = target.indexOf('?')
  return q < 0 ? target : target.slice(0, q)
}

/** A query parameter's value (first occurrence), or undefined. */
export function queryParam(target: string, name: string): string | undefined {
  const q = target.indexOf('?')
  // Cheap reject first: almost no request carries the parameter (a
  // percent-encoded name is still the same name).
  if (q < 0 || (!target.includes(name, q) && !target.includes('%', q))) return undefined
  return new URLSearchParams(target.slice(q + 1)).get(name) ?? undefined
}

/** A cookie's value from a Cookie header, or undefined. */
export function cookieValue(header: string, name: string): string | undefined {
  if (!header.includes(name)) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq >= 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

/** `host[:port]` in lower case, without a default port, for comparisons. */
export function normalizeHost(host: string, protocol: string): string {
  const h = host.toLowerCase()
  if (protocol === 'https:' && h.endsWith(':443')) return h.slice(0, -4)
  if (protocol === 'http:' && h.endsWith(':80')) return h.slice(0, -3)
  return h
}

/** A parsed string `mobileUrl`: where redirects go and what counts as "already there". */
export interface MobileBase {
  /** `https://m.example.com` */
  readonly origin: string
  /** Normalized host, for the loop guard. */
  readonly host: string
  /** Path prefix without trailing slash; '' for the root. */
  readonly basePath: string
  /** `basePath` in lower case, for the loop guard. */
  readonly basePathLower: string
}

/** Parses and checks a string `mobileUrl`. */
export function parseMobileUrl(mobileUrl: string): MobileBase {
  let u: URL
  try {
    u = new URL(mobileUrl)
  } catch {
    throw new TypeError(`mobileUrl must be an absolute http(s) URL, got ${JSON.stringify(mobileUrl)}`)
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new TypeError(`mobileUrl must be an absolute http(s) URL, got ${JSON.stringify(mobileUrl)}`)
  }
  if (u.search !== '' || u.hash !== '' || u.username !== '' || u.password !== '') {
    throw new TypeError(
      'mobileUrl must not carry a query, fragment or credentials: the request path and query are appended to it',
    )
  }
  const basePath = u.pathname.replace(/\/+$/, '')
  return { origin: u.origin, host: normalizeHost(u.host, u.protocol), basePath, basePathLower: basePath.toLowerCase() }
}

/**
 * True when `path` is `base` or below it, ignoring letter case ('' is the
 * root, so everything is). `base` must be in lower case. Case is ignored
 * because many servers serve `/M/` and `/m/` alike, and a loop costs more
 * than a missed redirect.
 */
export function isUnder(path: string, base: string): boolean {
  if (base === '') return true
  if (path.length < base.length || (path.length > base.length && path[base.length] !== '/')) return false
  return path.slice(0, base.length).toLowerCase() === base
}

/**
 * `url` without any occurrence of query parameter `name`; the rest of the
 * query is kept byte for byte (no re-encoding). Used so the opt-out
 * parameter never travels to the mobile site.
 */
export function withoutParam(url: string, name: string): string {
  const q = url.indexOf('?')
  if (q < 0 || (!url.includes(name, q) && !url.includes('%', q))) return url
  const hash = url.indexOf('#', q)
  const query = url.slice(q + 1, hash < 0 ? url.length : hash)
  const kept = query.split('&').filter((part) => paramName(part) !== name)
  const rest = hash < 0 ? '' : url.slice(hash)
  return url.slice(0, q) + (kept.length > 0 ? `?${kept.join('&')}` : '') + rest
}

function paramName(part: string): string {
  const eq = part.indexOf('=')
  const raw = (eq < 0 ? part : part.slice(0, eq)).replace(/\+/g, ' ')
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}
