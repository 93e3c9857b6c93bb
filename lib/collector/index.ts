/**
 * analyticsCollector: an optional Express handler, mounted on the mobile
 * site's own server, that turns a request (a beacon, a pixel, a page) into
 * `engine.recordVisit` or `engine.recordActivity`.
 *
 * - Visitor: a first-party cookie holding a random id, set on first sight and
 *   refreshed on every hit, so the id lives as long as the visitor returns.
 * - System: the request's User-Agent (the engine reduces it).
 * - Geo: a pluggable resolver; by default none (unknown). `cdnGeo({ provider })`
 *   reads the headers of the CDN in front (Cloudflare, CloudFront, Vercel,
 *   App Engine), validated as ISO codes (geo.ts).
 * - Abuse: at most `beaconsPerMinute` per client IP and site, and at most
 *   `maxPendingRecordings` answered but not yet recorded; the rest are
 *   answered 204 like any beacon, dropped, counted, and logged through
 *   `logger` when given (at most a line per `dropLogIntervalMs`).
 * - The answer is 204 at once; recording happens afterwards, and no failure
 *   (bad input, unknown site, store down, a throwing resolver) ever reaches
 *   the page: it goes to `onError`.
 *
 * Query: `e` is `visit` (default), an activity kind (`click_to_call`,
 * `click_to_map`, `click_to_email`, `form_submit`), or `redirect` (a desktop
 * site confirms it sent a visitor here: sets `last_confirmed_redirected_date`,
 * and sets no visitor cookie); `pv` is the number of pages of the visit
 * (default 1). One request records one event.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express'
import { type BeaconRecorder, beaconRecorderOf, countBeaconDrop, uuidSourceOf } from '../engine/context-access.js'
import type { Engine } from '../engine/types.js'
import { queryOf } from '../http/express-compat.js'
import { ACTIVITY_KINDS, type ActivityKind } from '../../types/index.js'
import { type CollectorLogger, DEFAULT_DROP_LOG_INTERVAL_MS, DropLog } from './drop-log.js'
import type { GeoInfo, GeoResolver } from './geo.js'
import { BeaconLimiter } from './limiter.js'

export { type CollectorLogger, DEFAULT_DROP_LOG_INTERVAL_MS } from './drop-log.js'
export { cdnGeo, type CdnGeoOptions, type CdnProvider, type GeoInfo, type GeoResolver } from './geo.js'

/** Options of {@link analyticsCollector}. */
export interface CollectorOptions {
  /**
   * The site the events are for, or a function of the request (e.g. by
   * Host); undefined skips recording. Required: this or `site_name`.
   */
  siteName?: string | ((req: Request) => string | undefined)
  /** @deprecated The old spelling of `siteName`, still accepted; `siteName` wins when both are given. */
  site_name?: string | ((req: Request) => string | undefined)
  /**
   * Country and region of the request. Default: none (recorded as unknown):
   * geo headers can be forged by any client, so read them only from the CDN
   * in front of the server, `geo: cdnGeo({ provider: 'cloudflare' })`.
   */
  geo?: GeoResolver
  /**
   * At most this many beacons per client IP (Express' `req.ip`, which follows
   * `trust proxy`) and site per minute; the rest are answered 204 as usual,
   * not recorded, and counted (`engine.recordingStats().limited`). Default
   * 600; 0 means no limit.
   */
  beaconsPerMinute?: number
  /**
   * At most this many beacons answered and not yet recorded; past it, new
   * beacons are answered 204, not recorded, and counted
   * (`engine.recordingStats().dropped`), so a store slower than the traffic
   * never makes the process hold recordings without bound. Default 10,000.
   */
  maxPendingRecordings?: number
  /** The visitor-id cookie. */
  cookie?: {
    /** Default {@link VISITOR_COOKIE}. */
    name?: string
    /** Lifetime in days, refreshed on every hit. Default 365 (browsers cap it at 400). */
    maxAgeDays?: number
    domain?: string
    /** Default '/'. */
    path?: string
    /** Default 'auto': Secure when the request is HTTPS (`req.secure`). */
    secure?: boolean | 'auto'
    /** Default 'Lax'. */
    sameSite?: 'Strict' | 'Lax' | 'None'
  }
  /**
   * Where dropped beacons are reported (a pino logger fits): a warning at
   * most once per `dropLogIntervalMs` with the counts dropped since the line
   * before. Default: none (an embedded collector logs nothing unless given
   * one); `startServer` passes its `logger`.
   */
  logger?: CollectorLogger
  /** Least time between two warnings about dropped beacons. Default 10,000 ms. */
  dropLogIntervalMs?: number
  /** Receives every failure to record. Default: ignore them. */
  onError?: (error: unknown) => void
  /**
   * Middleware mode: record a visit for each request passing through and call
   * `next()` instead of answering. Default false (answer 204).
   */
  passThrough?: boolean
}

/** Default name of the visitor-id cookie. */
export const VISITOR_COOKIE = 'msvid'

/**
 * What the collector needs of an engine; a stub with `recordVisit` and
 * `recordActivity` will do. `confirmRedirect` is needed for `e=redirect` only.
 */
export type CollectorEngine = Pick<Engine, 'recordVisit' | 'recordActivity'> & Partial<Pick<Engine, 'confirmRedirect'>>

/** `e` of a redirect confirmation. */
const REDIRECT = 'redirect'
const KINDS: ReadonlySet<string> = new Set<string>(ACTIVITY_KINDS)
const VISITOR_ID = /^[A-Za-z0-9_-]{8,64}$/
/** Default of {@link CollectorOptions.beaconsPerMinute}. */
export const DEFAULT_BEACONS_PER_MINUTE = 600
/** Default of {@link CollectorOptions.maxPendingRecordings}. */
export const DEFAULT_MAX_PENDING_RECORDINGS = 10_000

/** A non-negative integer option (at least `min`), or its default. */
function limitOption(value: number | undefined, name: string, fallback: number, min: number): number {
  if (value === undefined) return fallback
  if (!Number.isInteger(value) || value < min)
    throw new TypeError(`analyticsCollector: ${name} must be an integer ≥ ${min}`)
  return value
}

/** The value of cookie `name` in a Cookie header, if any. */
function readCookie(cookieHeader: string | undefined, name: string): string | undefined {
  if (!cookieHeader) return undefined
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

function firstString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : undefined
}

/**
 * Creates the collector handler. Mount it on a path of the mobile site's
 * server, e.g. `app.use('/_ms/collect', analyticsCollector(engine, { siteName: 'mysite' }))`,
 * and hit that path from the page (`navigator.sendBeacon`) or let it run in
 * front of page routes with `passThrough: true`.
 */
export function analyticsCollector(engine: CollectorEngine, options: CollectorOptions): RequestHandler {
  const siteName = options.siteName ?? options.site_name
  if (siteName === undefined) throw new TypeError('analyticsCollector: `siteName` is required')
  const geo = options.geo
  const perMinute = limitOption(options.beaconsPerMinute, 'beaconsPerMinute', DEFAULT_BEACONS_PER_MINUTE, 0)
  const maxPending = limitOption(
    options.maxPendingRecordings,
    'maxPendingRecordings',
    DEFAULT_MAX_PENDING_RECORDINGS,
    1,
  )
  const limiter = new BeaconLimiter(perMinute)
  const dropLog =
    options.logger === undefined
      ? undefined
      : new DropLog(
          options.logger,
          limitOption(options.dropLogIntervalMs, 'dropLogIntervalMs', DEFAULT_DROP_LOG_INTERVAL_MS, 1),
        )
  const drop = (reason: 'rate' | 'queue'): void => {
    countBeaconDrop(engine, reason)
    dropLog?.note(reason)
  }
  /** Beacons answered whose recording has not settled yet. */
  let pending = 0
  const onError = options.onError ?? (() => {})
  const cookieName = options.cookie?.name ?? VISITOR_COOKIE
  const maxAge = Math.round((options.cookie?.maxAgeDays ?? 365) * 86_400)
  const cookieTail =
    `; Max-Age=${maxAge}; Path=${options.cookie?.path ?? '/'}; HttpOnly; SameSite=${options.cookie?.sameSite ?? 'Lax'}` +
    (options.cookie?.domain ? `; Domain=${options.cookie.domain}` : '')
  const secure = options.cookie?.secure ?? 'auto'
  const newVisitorId = uuidSourceOf(engine)

  /** The visitor's id, issuing a new one (and the cookie) when missing or malformed. */
  function visitorOf(req: Request, res: Response): string {
    const known = readCookie(req.headers.cookie, cookieName)
    const id = known !== undefined && VISITOR_ID.test(known) ? known : newVisitorId()
    const isSecure = secure === 'auto' ? req.secure : secure
    const cookie = `${cookieName}=${id}${cookieTail}${isSecure ? '; Secure' : ''}`
    // setHeader when nothing set a cookie before (the usual case): cheaper than Express' append.
    if (res.hasHeader('Set-Cookie')) res.append('Set-Cookie', cookie)
    else res.setHeader('Set-Cookie', cookie)
    return id
  }

  /** Ends a beacon's recording: counts it settled and hands its error, if any, to onError. */
  function settled(error?: unknown): void {
    pending -= 1
    if (error === undefined) return
    try {
      onError(error)
    } catch (thrown) {
      // onError runs inside the recording queue, which must go on: its own
      // failure is shown, not thrown.
      process.emitWarning(`analyticsCollector: onError threw: ${String(thrown)}`)
    }
  }
  /** Runs a promise-returning engine call to its settled. */
  function settle(work: () => Promise<void>): void {
    try {
      work().then(() => settled(), settled)
    } catch (error) {
      settled(error)
    }
  }
  const recorder: BeaconRecorder = beaconRecorderOf(engine, settled) ?? {
    visit: (input) => settle(() => engine.recordVisit(input)),
    activity: (input) => settle(() => engine.recordActivity(input)),
  }

  /** Records the beacon's event at `where`; ends in one call of {@link settled}. */
  function recordAt(
    req: Request,
    site_name: string,
    visitor_id: string,
    event: string,
    pv: string | undefined,
    where: GeoInfo | undefined,
  ): void {
    const country = where?.country || undefined
    const region = where?.region || undefined
    const user_agent = req.headers['user-agent']
    if (event === 'visit') {
      const page_views = pv === undefined ? 1 : Number(pv)
      recorder.visit({ site_name, visitor_id, user_agent, country, region, page_views })
    } else recorder.activity({ site_name, kind: event as ActivityKind, user_agent, country, region })
  }

  /** Records the beacon's event; ends in one call of {@link settled}. */
  function record(req: Request, site_name: string, visitor_id: string, event: string, pv: string | undefined): void {
    if (event === REDIRECT) {
      const confirm = engine.confirmRedirect
      if (confirm === undefined) return settled(new Error('analyticsCollector: this engine cannot confirm redirects'))
      return settle(() => confirm.call(engine, site_name))
    }
    if (event !== 'visit' && !KINDS.has(event))
      return settled(new Error(`analyticsCollector: unknown event ${JSON.stringify(event)}`))
    let where: ReturnType<GeoResolver> | undefined
    try {
      where = geo?.(req)
    } catch (error) {
      return settled(error)
    }
    if (where instanceof Promise) {
      where.then((place) => recordAt(req, site_name, visitor_id, event, pv, place), settled)
    } else recordAt(req, site_name, visitor_id, event, pv, where)
  }

  return (req: Request, res: Response, next: NextFunction): void => {
    let visitor: string | undefined
    let event = 'visit'
    let pv: string | undefined
    try {
      // In middleware mode the query belongs to the page, not to us. The
      // query string is parsed once here, and not at all without one (most beacons).
      if (!options.passThrough && req.url.includes('?')) {
        const query = queryOf(req)
        event = firstString(query.e) ?? 'visit'
        pv = firstString(query.pv)
      }
      // A confirmation comes from the desktop site's server, not a visitor.
      visitor = event === REDIRECT ? '' : visitorOf(req, res)
      res.setHeader('Cache-Control', 'no-store')
    } catch (error) {
      onError(error)
    }
    if (options.passThrough) next()
    else if (!res.headersSent) {
      res.statusCode = 204
      res.end()
    }
    if (visitor === undefined) return
    let site_name: string | undefined
    try {
      site_name = typeof siteName === 'function' ? siteName(req) : siteName
    } catch (error) {
      return onError(error)
    }
    if (site_name === undefined) return
    // Dropped beacons were answered like any other: a client learns nothing.
    // req.ip parses forwarding headers: only with a limit to key.
    if (event !== REDIRECT && limiter.enabled && !limiter.allow(`${req.ip ?? ''} ${site_name}`)) return drop('rate')
    if (pending >= maxPending) return drop('queue')
    pending += 1
    // After the answer: the page never waits for the store.
    record(req, site_name, visitor, event, pv)
  }
}
