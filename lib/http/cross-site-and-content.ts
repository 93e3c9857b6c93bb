/**
 * Request guards of the API and admin routers, run after authentication and
 * before the body is read:
 *
 * 1. The browser rule (403 AccessForbidden): a state-changing request that a
 *    browser sent on behalf of another site is refused, so a page elsewhere
 *    can never make a logged-in browser (cached Basic credentials, credentials
 *    in a URL) change data. Browsers say where a request comes from in
 *    `Sec-Fetch-Site` and `Origin`; API clients send neither.
 * 2. The content type (415 UnsupportedMediaType): a request that carries a
 *    body or a `Content-Type` must be `application/json` (charset utf-8 or
 *    none). An HTML form can only send urlencoded, multipart or text/plain
 *    bodies, so this also closes the form-based forgeries that smuggle JSON
 *    in a text/plain body.
 */
import { isUtf8 } from 'node:buffer'
import type { Request } from 'express'
import { ServiceError } from '../errors.js'

/** Options of {@link requestGuards}. */
export interface GuardOptions {
  /**
   * Origins (`https://admin.example.com`, scheme, host and port as a browser
   * writes them) whose pages may change data through the API. The API's own
   * origin is always allowed.
   */
  allowedOrigins?: readonly string[]
}

const STATE_CHANGING: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** `Sec-Fetch-Site` values of requests a user made on this site or by hand (address bar, bookmark). */
const FIRST_PARTY_FETCH: ReadonlySet<string> = new Set(['same-origin', 'none'])

/** `application/json`, optionally with `charset=utf-8` (any case, quoted or not), and nothing else. */
const JSON_TYPE = /^application\/json[ \t]*(?:;[ \t]*charset[ \t]*=[ \t]*(?:utf-8|"utf-8")[ \t]*)?$/i

/** The origin the request was addressed to, as a browser on this site would write it. */
function ownOrigin(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? ''}`.toLowerCase()
}

/** The reason a browser request must be refused, or undefined when it may proceed. */
function crossSiteReason(req: Request, allowed: ReadonlySet<string>): string | undefined {
  if (!STATE_CHANGING.has(req.method)) return undefined
  // req.headers directly: what req.get() returns for these names, without its lower-casing and checks.
  const { origin } = req.headers
  if (origin !== undefined && allowed.has(origin.toLowerCase())) return undefined
  const site = req.headers['sec-fetch-site']
  if (site !== undefined && !FIRST_PARTY_FETCH.has(site.toLowerCase())) {
    return `a ${req.method} sent by a browser from another site (Sec-Fetch-Site: ${site}) is refused`
  }
  if (origin === undefined) return undefined
  // `null` is what sandboxed frames, data: URLs and some redirects send: an origin that cannot be trusted.
  if (origin === 'null') return `a ${req.method} from an opaque origin (Origin: null) is refused`
  if (origin.toLowerCase() !== ownOrigin(req))
    return `a ${req.method} from origin ${origin} is refused; it is not an allowed origin`
  return undefined
}

/** Whether the request carries a body: `Content-Length: 0` without a Content-Type is none. */
function hasBody(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true
  const length = req.headers['content-length']
  return length !== undefined && length !== '0'
}

/**
 * One check applying the browser rule, then the content-type rule, in that
 * order; it throws the ServiceError to answer. Run it after authentication and
 * before reading the body: `apiRouter` does, and so can any router taking JSON.
 */
export function requestGuards(options: GuardOptions = {}): (call: { req: Request }) => void {
  const allowed = new Set((options.allowedOrigins ?? []).map((origin) => origin.replace(/\/+$/, '').toLowerCase()))
  return ({ req }) => {
    const forbidden = crossSiteReason(req, allowed)
    if (forbidden !== undefined) throw new ServiceError('AccessForbidden', forbidden)
    const type = req.headers['content-type']
    if (type !== undefined || hasBody(req)) {
      if (type === undefined) {
        throw new ServiceError('UnsupportedMediaType', 'a request body needs Content-Type: application/json')
      }
      if (!JSON_TYPE.test(type.trim())) {
        throw new ServiceError(
          'UnsupportedMediaType',
          `Content-Type ${JSON.stringify(type)} is not accepted; send application/json (charset utf-8)`,
        )
      }
    }
  }
}

/**
 * Refuses (400 InvalidInput) a query string whose percent-encoding is not
 * UTF-8: Node's query parser would quietly turn it into U+FFFD.
 */
export function utf8Query({ req }: { req: Request }): void {
  const at = req.url.indexOf('?')
  if (at < 0 || !req.url.includes('%', at)) return
  for (const part of req.url.slice(at + 1).split(/[&=]/)) {
    try {
      decodeURIComponent(part)
    } catch {
      throw new ServiceError('InvalidInput', 'the query string holds percent-encoding that is not UTF-8')
    }
  }
}

/** The body parser's `verify` step: a JSON body must be UTF-8 (it is decoded leniently otherwise). */
export function utf8Body(_req: unknown, _res: unknown, bytes: Buffer): void {
  if (!isUtf8(bytes)) throw new ServiceError('InvalidInput', 'request body is not valid UTF-8')
}
