/**
 * The route table compiled once per router: per method, the paths split into
 * segments, so a request is matched by comparing a few strings instead of
 * walking Express layers and running a regular expression per route.
 *
 * Matching follows Express exactly, so behaviour does not depend on which of
 * the two answers: case-sensitive paths, one optional trailing slash, a
 * parameter is one non-empty segment, routes of a method are tried in table
 * order, HEAD is served by GET, and a parameter that is not valid
 * percent-encoding throws URIError (400) as soon as a route's shape matches,
 * whatever the method.
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

/** The compiled table: `match` for dispatch, `allowed` for 405 answers. */
export interface Dispatch {
  /** The endpoint for this method and path, or undefined. Throws URIError for undecodable parameters. */
  match(method: string, path: string): Match | undefined
  /** The methods served at this path (with HEAD where GET is), in table order; empty for an unknown path. */
  allowed(path: string): string[]
}

/** Compiles the endpoints once. */
export function compileDispatch(endpoints: readonly Endpoint[]): Dispatch {
  const compiled = endpoints.map((endpoint) => ({
    endpoint,
    segments: endpoint.route.path.split('/').map((part) => (part.startsWith(':') ? null : part)),
  }))
  const byMethod = new Map<string, Compiled[]>()
  for (const entry of compiled) {
    const list = byMethod.get(entry.endpoint.route.method) ?? []
    list.push(entry)
    byMethod.set(entry.endpoint.route.method, list)
  }
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
