/**
 * A small shared HTTP cache (a CDN or Varnish in miniature) for tests: a
 * reverse proxy that stores GET answers the origin marks fresh
 * (`Cache-Control: public, max-age` or `s-maxage`; never `private`,
 * `no-store`, `no-cache` or `Vary: *`) and serves them to later requests for
 * the same URL whose headers named by the stored `Vary` are equal, as RFC
 * 9111 §4.1 says. Like a careless CDN it also stores answers that set
 * cookies: that is the case the origin's `Vary` must make safe.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

interface Stored {
  status: number
  headers: http.OutgoingHttpHeaders
  body: Buffer
  /** Lower-case names of the stored Vary, with the request's values for them. */
  vary: Array<[name: string, value: string]>
  expires: number
}

/** A running proxy. */
export interface CachingProxy {
  /** `http://127.0.0.1:PORT` */
  url: string
  port: number
  /** Answers served from the cache, and from the origin. */
  readonly hits: number
  readonly misses: number
  close(): Promise<void>
}

function headerValue(headers: http.IncomingHttpHeaders, name: string): string {
  const v = headers[name]
  return Array.isArray(v) ? v.join(', ') : (v ?? '')
}

function freshFor(cacheControl: string): number | undefined {
  const cc = cacheControl.toLowerCase()
  if (/(?:^|,)\s*(?:private|no-store|no-cache)\b/.test(cc)) return undefined
  const age = /(?:^|,)\s*s-maxage=(\d+)/.exec(cc) ?? /(?:^|,)\s*max-age=(\d+)/.exec(cc)
  return age ? Number(age[1]) * 1000 : undefined
}

/** Starts a caching reverse proxy in front of `origin` (`http://127.0.0.1:PORT`). */
export async function startCachingProxy(origin: string): Promise<CachingProxy> {
  const cache = new Map<string, Stored[]>()
  const stats = { hits: 0, misses: 0 }
  const target = new URL(origin)
  const server = http.createServer((req, res) => {
    const key = req.url ?? '/'
    if (req.method === 'GET') {
      const now = Date.now()
      const hit = cache
        .get(key)
        ?.find((s) => s.expires > now && s.vary.every(([name, value]) => headerValue(req.headers, name) === value))
      if (hit !== undefined) {
        stats.hits++
        res.writeHead(hit.status, { ...hit.headers, 'x-cache': 'HIT' })
        res.end(hit.body)
        return
      }
    }
    stats.misses++
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: key, headers: req.headers },
      (answer) => {
        const chunks: Buffer[] = []
        answer.on('data', (c: Buffer) => chunks.push(c))
        answer.on('end', () => {
          const body = Buffer.concat(chunks)
          const headers = { ...answer.headers }
          delete headers['transfer-encoding']
          delete headers.connection
          const fresh = freshFor(headerValue(answer.headers, 'cache-control'))
          const varyNames = headerValue(answer.headers, 'vary')
            .split(',')
            .map((n) => n.trim().toLowerCase())
            .filter(Boolean)
          if (req.method === 'GET' && fresh !== undefined && !varyNames.includes('*')) {
            const stored: Stored = {
              status: answer.statusCode ?? 200,
              headers,
              body,
              vary: varyNames.map((n) => [n, headerValue(req.headers, n)]),
              expires: Date.now() + fresh,
            }
            const same = (s: Stored) =>
              s.vary.length === stored.vary.length &&
              s.vary.every(([n, v], i) => stored.vary[i]?.[0] === n && stored.vary[i]?.[1] === v)
            cache.set(key, [...(cache.get(key) ?? []).filter((s) => !same(s)), stored])
          }
          res.writeHead(answer.statusCode ?? 502, { ...headers, 'x-cache': 'MISS' })
          res.end(body)
        })
      },
    )
    upstream.on('error', () => {
      res.writeHead(502)
      res.end()
    })
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get hits() {
      return stats.hits
    },
    get misses() {
      return stats.misses
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
