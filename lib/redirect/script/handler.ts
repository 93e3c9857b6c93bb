/**
 * `redirectScript(engine)`: serves the browser redirect script, as startServer
 * does at `GET /redirect.js`. A static file in all but name: the body follows
 * the engine's agents and is rebuilt only when they change; conditional
 * requests, gzip and HEAD are answered as a static file server would.
 */
import type { Request, RequestHandler, Response } from 'express'
import type { Engine } from '../../engine/types.js'
import { DEFAULT_AGENTS } from '../../agents/default.js'
import { ServiceError } from '../../errors.js'
import { sendError } from '../../http/errors.js'
import { buildScriptBody, type ScriptBody } from './body.js'

/** What {@link redirectScript} reads of an engine: its served agents source. */
export type RedirectScriptEngine = Pick<Engine, 'getAgents'>

/** The Express handler {@link redirectScript} returns. */
export type RedirectScriptHandler = RequestHandler

/**
 * An Express handler serving the browser redirect script, for a desktop page
 * to load first in its `<head>`:
 * `<script src="https://mobisite.example.com/redirect.js" data-mobile-url="https://m.example.com" data-site="shop1"></script>`.
 * Public: it needs no credentials and holds nothing secret.
 *
 * The script judges the visitor as mobileRedirect does (client hint, else the
 * User-Agent through `engine.getAgents()`, compiled to the same linear
 * matcher), honours the opt-out, never loops, and replaces the page with the
 * mobile one. The body is rebuilt when `engine.getAgents()` returns another
 * string (a pointer comparison otherwise), and answers carry
 * `Cache-Control: public, max-age=300`, so a new source reaches visitors
 * within five minutes.
 *
 * Mount it at a path, for every method: `app.use('/redirect.js',
 * redirectScript(engine))` serves that path (other paths below it go to
 * `next()`), answers `GET` and `HEAD` (with `ETag`/`If-None-Match` and gzip),
 * and 405 with `Allow: GET, HEAD` to the rest. As a route handler
 * (`app.get(path, …)`) it serves whatever reaches it. See docs/redirect.md, "On any page".
 */
export function redirectScript(engine: RedirectScriptEngine): RedirectScriptHandler {
  if (engine === null || typeof engine !== 'object' || typeof engine.getAgents !== 'function')
    throw new TypeError('redirectScript(engine): an engine (anything with getAgents()) is required')
  let body: ScriptBody | undefined
  const current = (): ScriptBody => {
    let source: unknown
    try {
      source = engine.getAgents()
    } catch {
      source = undefined
    }
    // No string: the last body served stays (a script that worked a moment ago beats an error).
    if (typeof source !== 'string') return (body ??= buildScriptBody(DEFAULT_AGENTS))
    // Usually the same string object as last time, so a pointer comparison.
    if (body === undefined || body.source !== source) body = buildScriptBody(source)
    return body
  }
  current()
  return (req, res, next) => {
    // Mounted with app.use: only the mount path itself (req.route is set for route handlers).
    if (req.route === undefined && req.path !== '/') return next()
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD')
      return sendError(res, new ServiceError('MethodNotAllowed', `${req.method} is not allowed; use GET or HEAD`))
    }
    serve(req, res, current())
  }
}

function serve(req: Request, res: Response, body: ScriptBody): void {
  const gzip = acceptsGzip(req.headers['accept-encoding'])
  const chosen = gzip ? body.gzip : body.identity
  res.setHeader('Cache-Control', 'public, max-age=300')
  res.setHeader('ETag', chosen.etag)
  // The answer depends on Accept-Encoding and on nothing else: the script decides in the browser.
  res.setHeader('Vary', 'Accept-Encoding')
  res.setHeader('X-Content-Type-Options', 'nosniff')
  // Loaded by pages of other origins: a site sending Cross-Origin-Embedder-Policy needs this to load it.
  res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin')
  if (matchesIfNoneMatch(req.headers['if-none-match'], chosen.etag)) {
    res.statusCode = 304
    res.end()
    return
  }
  res.statusCode = 200
  res.setHeader('Content-Type', 'text/javascript; charset=utf-8')
  if (gzip) res.setHeader('Content-Encoding', 'gzip')
  res.setHeader('Content-Length', chosen.bytes.length)
  // Node sends no body to a HEAD request, but the same headers.
  res.end(chosen.bytes)
}

/**
 * Whether an `Accept-Encoding` value admits gzip (RFC 9110 §12.5.3): `gzip`
 * or `x-gzip` with a weight above 0, else `*` above 0 when gzip is not named;
 * never when `identity` is preferred to it by weight.
 */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined || header === '') return false
  let gzip: number | undefined
  let any: number | undefined
  let identity: number | undefined
  for (const entry of header.split(',')) {
    const [name = '', ...params] = entry.split(';')
    const coding = name.trim().toLowerCase()
    let q = 1
    for (const param of params) {
      const [key = '', value = ''] = param.split('=')
      if (key.trim().toLowerCase() === 'q') q = Number(value.trim())
    }
    if (!(q >= 0 && q <= 1)) q = 0
    if (coding === 'gzip' || coding === 'x-gzip') gzip = Math.max(gzip ?? 0, q)
    else if (coding === '*') any = q
    else if (coding === 'identity') identity = q
  }
  const weight = gzip ?? any ?? 0
  return weight > 0 && (identity === undefined || weight >= identity)
}

/**
 * RFC 9110 §13.1.2: true when `If-None-Match` is `*` or lists a tag equal to
 * `etag` by the weak comparison (a `W/` prefix is ignored). Tags are read as
 * quoted strings, so a comma inside one does not split it; a malformed list
 * matches only as far as it was read.
 */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  const value = header.trim()
  if (value === '*') return true
  let i = 0
  while (i < value.length) {
    const c = value[i]
    if (c === ' ' || c === '\t' || c === ',') {
      i++
      continue
    }
    if (value.startsWith('W/', i)) i += 2
    if (value[i] !== '"') return false
    const end = value.indexOf('"', i + 1)
    if (end < 0) return false
    if (value.slice(i, end + 1) === etag) return true
    i = end + 1
  }
  return false
}
