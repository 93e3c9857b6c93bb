/**
 * What mobisite reads of a request the same way on Express 4 and 5 (the peer
 * range), where the two differ:
 * - `req.host`: Express 5's is the Host with its port; Express 4's is a
 *   deprecated alias of `req.hostname`, which drops the port (an SSO link
 *   for a server on :3501 would point at :80) and prints a warning.
 * - `req.query`: Express 5 parses with `querystring` by default, Express 4
 *   with `qs`, which nests `a[b]=1`, drops `__proto__` and is the app's
 *   setting anyway. mobisite's rules are written for flat names and values.
 * - `req.path` under a mount point: Express 4 folds the `//` left after
 *   stripping `/collect` from `/collect//x` into `/x`; Express 5 keeps it.
 */
import { parse } from 'node:querystring'
import type { Request } from 'express'

/**
 * The request's query as Express 5's default parser reads it (a prototype-free
 * object of strings and string arrays), whatever the app's `query parser`.
 */
export function queryOf(req: Request): Record<string, string | string[]> {
  const at = req.url.indexOf('?')
  return at < 0 ? {} : (parse(req.url.slice(at + 1)) as Record<string, string | string[]>)
}

/** `trust proxy` as Express compiles it: whether the hop at `index` is trusted. */
type TrustProxy = (address: string | undefined, index: number) => boolean

/**
 * `X-Forwarded-Host` (its first value) when `trust proxy` trusts the peer,
 * else `Host`; undefined when neither is there. This is Express 5's getter,
 * written against what both versions keep: the compiled `trust proxy fn`.
 */
export function requestHost(req: Request): string | undefined {
  const forwarded = req.headers['x-forwarded-host']
  if (forwarded) {
    const trust = req.app?.get('trust proxy fn') as TrustProxy | undefined
    if (trust?.(req.socket?.remoteAddress, 0)) {
      return (Array.isArray(forwarded) ? forwarded[0]! : forwarded).split(',')[0]!.trimEnd() || undefined
    }
  }
  return req.headers.host || undefined
}

/** The request's path below the router's mount point, as Express 5 gives it (`req.path`). */
export function mountedPath(req: Request): string {
  const url = req.originalUrl ?? req.url
  const query = url.indexOf('?')
  return (query < 0 ? url : url.slice(0, query)).slice(req.baseUrl.length) || '/'
}
