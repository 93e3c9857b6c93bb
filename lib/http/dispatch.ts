/**
 * The route table compiled once per router: per method, the paths split into
 * segments, so a request is matched by comparing a few strings instead of
 * walking Express layers and running a regular expression per route.
 *
 * Matching follows Express: case-sensitive paths, one optional trailing
 * slash, a parameter is one non-empty segment, HEAD is served by GET, and a
 * parameter that is not valid percent-encoding throws URIError (400) as soon
 * as a route's shape matches, whatever the method. Where Express takes the
 * first route registered, this takes the most specific one
 * ({@link bySpecificity}), so no table has to list its routes in a careful
 * order for `/sites/created` to win over `/sites/:site_name`.
 */
import type { Route } from './routes.js'

/** A route row as the dispatcher serves it. */
export interface Endpoint {
  route: Route
  /** Served without authentication (the OpenAPI document). */
  public?: boolean
  /** Left out of the 405 Allow computation (as it always was for the public document). */
  unlisted?: boolean
}

interface Compiled {
  endpoint: Endpoint
  /** Literal segments as strings, parameters as null; segments[0] is the empty string before the first '/'. */
  segments: (string | null)[]
}

/** A matched request: the endpoint and its decoded path parameters in order. */
export interface Match {
  endpoint: Endpoint
  params: string[]
}

/** Where a path's last segment ends: before one trailing slash, which Express ignores. */
function endOf(path: string): number {
  return path.length > 1 && path.charCodeAt(path.length - 1) === 47 ? path.length - 1 : path.length
}

/**
 * The decoded parameters if the path up to `end`, split at '/', has the shape
 * of `compiled`; else undefined. Walks the path in place rather than
 * splitting it: no array of segments per request.
 */
function matchPath({ segments }: Compiled, path: string, end: number): string[] | undefined {
  let raw: string[] | undefined
  let start = 0 // where the current segment starts
  for (let i = 0; i < segments.length; i++) {
    if (start > end) return undefined // the path has fewer segments
    let stop = path.indexOf('/', start)
    if (stop < 0 || stop > end) stop = end
    const literal = segments[i]!
    if (literal === null) {
      if (stop === start) return undefined
      ;(raw ??= []).push(path.slice(start, stop))
    } else if (stop - start !== literal.length || !path.startsWith(literal, start)) {
      return undefined
    }
    start = stop + 1
  }
  if (start !== end + 1) return undefined // the path has more segments
  if (raw === undefined) return []
  for (let i = 0; i < raw.length; i++) raw[i] = decodeURIComponent(raw[i]!)
  return raw
}

/** A path's segments for ranking: literals as strings, parameters as null. */
function shapeOf(path: string): (string | null)[] {
  return path.split('/').map((part) => (part.startsWith(':') ? null : part))
}

/**
 * Orders two Express paths (`/sites/:site_name`) most specific first:
 * segment by segment, left to right, the first place where one has a literal
 * and the other a parameter decides, and the literal wins. Two paths that
 * some request matches both only ever differ that way, so sorting routes
 * with this and taking the first match picks the most specific route,
 * whatever order they were listed in. Other pairs (different literals,
 * different lengths) match no request in common and are ordered only so the
 * order is total; paths of the same shape compare equal, so a stable sort
 * keeps their listed order.
 */
export function bySpecificity(a: string, b: string): number {
  const left = shapeOf(a)
  const right = shapeOf(b)
  for (let i = 0; i < left.length && i < right.length; i++) {
    const l = left[i]!
    const r = right[i]!
    if (l === r) continue
    if (l === null) return 1
    if (r === null) return -1
    return l < r ? -1 : 1
  }
  return left.length - right.length
}

/** The compiled table: `match` for dispatch, `allowed` for 405 answers. */
export interface Dispatch {
  /** The endpoint for this method and path, or undefined. Throws URIError for undecodable parameters. */
  match(method: string, path: string): Match | undefined
  /**
   * The methods served at this path (with HEAD where GET is, last), in the
   * order the endpoints were given: the Allow header keeps the spelling it
   * always had. Empty for an unknown path.
   */
  allowed(path: string): string[]
}

/** Compiles the endpoints once. */
export function compileDispatch(endpoints: readonly Endpoint[]): Dispatch {
  const compiled = endpoints.map((endpoint) => ({ endpoint, segments: shapeOf(endpoint.route.path) }))
  const byMethod = new Map<string, Compiled[]>()
  for (const entry of compiled) {
    const list = byMethod.get(entry.endpoint.route.method) ?? []
    list.push(entry)
    byMethod.set(entry.endpoint.route.method, list)
  }
  // Ranked once here, so the first match of a request is its most specific route.
  for (const list of byMethod.values()) list.sort((a, b) => bySpecificity(a.endpoint.route.path, b.endpoint.route.path))
  const listed = compiled.filter(({ endpoint }) => !endpoint.unlisted)
  return {
    match(method, path) {
      const candidates = byMethod.get(method === 'HEAD' ? 'GET' : method)
      if (candidates === undefined) return undefined
      const end = endOf(path)
      for (const candidate of candidates) {
        const params = matchPath(candidate, path, end)
        if (params !== undefined) return { endpoint: candidate.endpoint, params }
      }
      return undefined
    },
    allowed(path) {
      const end = endOf(path)
      const methods = new Set<string>()
      for (const candidate of listed) {
        if (matchPath(candidate, path, end) !== undefined) methods.add(candidate.endpoint.route.method)
      }
      if (methods.has('GET')) methods.add('HEAD')
      return [...methods]
    },
  }
}
