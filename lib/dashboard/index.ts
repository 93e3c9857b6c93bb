/**
 * dashboardRouter: the single sign-on landing and a sub-account's dashboard,
 * mountable at any path (the standalone server uses `/dashboard`). It only
 * translates HTTP into the engine's dashboard operations and renders pages;
 * who may see what is decided by the engine on every request.
 *
 * Every answer, error pages included, is HTML that needs no script, sent
 * with a Content-Security-Policy that allows none, `Cache-Control: no-store`
 * and `X-Content-Type-Options: nosniff`.
 */
import express, { type Request, type RequestHandler, type Response, type Router } from 'express'
import { type DashboardAccount, dashboardOf } from '../engine/rules/dashboard.js'
import type { Engine } from '../engine/types.js'
import { ServiceError } from '../errors.js'
import { queryOf } from '../http/express-compat.js'
import type { SafeHtml } from './html.js'
import { type PageContext, errorPage, signedOutPage, sitePage, sitePath, sitesPage } from './pages.js'
import { STYLESHEET, STYLESHEET_VERSION } from './style.js'

/** Options of {@link dashboardRouter}. */
export interface DashboardRouterOptions {
  /** The product name shown in the header and page titles. Default 'Dashboard'. */
  title?: string
  /**
   * Origins besides the dashboard's own from which a sign-out may be posted
   * (like apiRouter's `allowedOrigins`). Default: none.
   */
  allowedOrigins?: string[]
  /** Called with every unexpected error (answered with a 500 page). Default: console.error. */
  onError?: (error: unknown) => void
}

/** The session cookie's name. */
export const SESSION_COOKIE = 'mobisite_session'
/** The session cookie's Max-Age: the 12 hours a session lives. */
const SESSION_MAX_AGE = 43_200

const CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

/** Headers every answer of the dashboard carries. */
const secured: RequestHandler = (_req, res, next) => {
  res.set({
    'Content-Security-Policy': CSP,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    // Not no-referrer: under it browsers send `Origin: null` with a form POST,
    // and sign-out would look cross-site. same-origin still tells other sites nothing.
    'Referrer-Policy': 'same-origin',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
  })
  next()
}

/** The session id from the Cookie header, if any (the first one of that name). */
function sessionCookie(req: Request): string | undefined {
  const header = req.headers.cookie
  if (header === undefined) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim()
  }
  return undefined
}

/** The cookie Path: the mount path when it is plain, else '/'. */
function cookiePath(req: Request): string {
  const base = req.baseUrl
  return base !== '' && /^\/[A-Za-z0-9\-._~%!$&'()*+,=:@/]*$/.test(base) ? base : '/'
}

function setSessionCookie(req: Request, res: Response, value: string, maxAge: number): void {
  const parts = [
    `${SESSION_COOKIE}=${value}`,
    `Path=${cookiePath(req)}`,
    `Max-Age=${maxAge}`,
    'HttpOnly',
    'SameSite=Lax',
  ]
  if (req.secure) parts.push('Secure')
  res.append('Set-Cookie', parts.join('; '))
}

/** Status, heading and advice of each error the dashboard shows. */
function describe(error: ServiceError): { status: number; heading: string } {
  switch (error.error_code) {
    case 'Unauthorized':
      return { status: 401, heading: 'Please sign in' }
    case 'ResourceNotExist':
    case 'NotFound':
      return { status: 404, heading: 'Not found' }
    case 'InvalidInput':
      return { status: 400, heading: 'Bad request' }
    case 'AccessForbidden':
      return { status: 403, heading: 'Refused' }
    case 'MethodNotAllowed':
      return { status: 405, heading: 'Method not allowed' }
    case 'ServiceUnavailable':
      return { status: 503, heading: 'Temporarily unavailable' }
    default:
      return { status: 500, heading: 'Something went wrong' }
  }
}

/**
 * The dashboard over an engine: `app.use('/dashboard', dashboardRouter(engine))`.
 * Give apiRouter the same place as `dashboardUrl` when it is not `/dashboard`
 * on the API's own origin, so the links of Get SSO Link land here.
 */
export function dashboardRouter(engine: Engine, options: DashboardRouterOptions = {}): Router {
  const dashboard = dashboardOf(engine)
  const title = options.title ?? 'Dashboard'
  // `Origin: null` (sandboxed frames, data: URLs) can never be trusted, even when listed.
  const allowedOrigins = new Set(
    (options.allowedOrigins ?? []).map((o) => o.replace(/\/+$/, '').toLowerCase()).filter((o) => o !== 'null'),
  )
  const onError = options.onError ?? ((error: unknown) => console.error('mobisite dashboard: unexpected error', error))
  const router = express.Router({ caseSensitive: true })

  const context = (req: Request, account?: DashboardAccount): PageContext => {
    const page: PageContext = { base: req.baseUrl, title }
    if (account) page.account = account.account_name
    return page
  }
  const send = (res: Response, status: number, page: SafeHtml): void => {
    res.status(status).type('html').send(page.markup)
  }
  /** Runs a page handler; every failure becomes an error page. */
  const page =
    (work: (req: Request, res: Response) => Promise<void>): RequestHandler =>
    async (req, res) => {
      try {
        await work(req, res)
      } catch (error) {
        fail(req, res, error)
      }
    }
  const fail = (req: Request, res: Response, error: unknown, account?: DashboardAccount): void => {
    const known = error instanceof ServiceError ? error : undefined
    if (!known) onError(error)
    const described = describe(known ?? new ServiceError('InternalError', ''))
    const status = described.status
    const heading = status === 401 && req.path === '/sso' ? 'This sign-in link does not work' : described.heading
    const message = known && status !== 500 ? known.message : 'An unexpected error occurred. Please try again later.'
    // A session that is gone is forgotten by the browser too.
    if (status === 401 && sessionCookie(req) !== undefined && req.path !== '/sso') setSessionCookie(req, res, '', 0)
    send(res, status, errorPage(context(req, account ?? res.locals.account), status, heading, message))
  }
  /** The signed-in account, kept in res.locals so an error page can still offer sign-out. */
  const signedIn = async (req: Request, res: Response): Promise<DashboardAccount> => {
    const account = await dashboard.account(sessionCookie(req))
    res.locals.account = account
    return account
  }

  router.use(secured)

  router.get('/assets/dashboard.css', (req, res) => {
    // Versioned URL: safe to cache for long; no session in it.
    res.set('Cache-Control', queryOf(req).v === STYLESHEET_VERSION ? 'public, max-age=31536000, immutable' : 'no-cache')
    res.type('text/css').send(STYLESHEET)
  })

  // Link checkers and previews often send HEAD first: it must not spend the single-use token.
  router.head('/sso', (_req, res) => {
    res.status(200).type('html').end()
  })

  router.get(
    '/sso',
    page(async (req, res) => {
      const token = queryOf(req).token
      const landing = await dashboard.signIn(token)
      setSessionCookie(req, res, landing.session, SESSION_MAX_AGE)
      const to =
        landing.target === 'STATS' && landing.site_name !== undefined
          ? sitePath(req.baseUrl, landing.site_name)
          : `${req.baseUrl}/`
      res.redirect(303, to)
    }),
  )

  router.get(
    '/',
    page(async (req, res) => {
      const account = await signedIn(req, res)
      send(res, 200, sitesPage(context(req, account), await dashboard.sites(account)))
    }),
  )

  router.get(
    '/sites/:site_name',
    page(async (req, res) => {
      const account = await signedIn(req, res)
      const report = await dashboard.report(account, req.params.site_name as string, queryOf(req).days)
      send(res, 200, sitePage(context(req, account), report))
    }),
  )

  router.post(
    '/logout',
    page(async (req, res) => {
      if (crossSite(req, allowedOrigins)) {
        throw new ServiceError('AccessForbidden', 'This sign-out request came from another site and was refused.')
      }
      await dashboard.signOut(sessionCookie(req))
      setSessionCookie(req, res, '', 0)
      res.redirect(303, `${req.baseUrl}/signed-out`)
    }),
  )

  router.get('/signed-out', (req, res) => {
    send(res, 200, signedOutPage(context(req)))
  })

  const known: [RegExp, string][] = [
    [/^\/?$/, 'GET, HEAD'],
    [/^\/sso\/?$/, 'GET, HEAD'],
    [/^\/sites\/[^/]+\/?$/, 'GET, HEAD'],
    [/^\/signed-out\/?$/, 'GET, HEAD'],
    [/^\/assets\/dashboard\.css$/, 'GET, HEAD'],
    [/^\/logout\/?$/, 'POST'],
  ]
  // An address nothing serves: a page for a browser, the API's JSON error
  // body for a program (curl's `*/*`, fetch), as everywhere else on the server.
  const nothingHere = (req: Request, res: Response, error: ServiceError): void => {
    if (wantsPage(req)) return fail(req, res, error)
    res.status(describe(error).status).set('Cache-Control', 'no-store').json(error.toJSON())
  }
  router.use((req, res) => {
    const allow = known.find(([path]) => path.test(req.path))?.[1]
    if (allow === undefined)
      return nothingHere(req, res, new ServiceError('NotFound', 'There is no page at this address.'))
    res.set('Allow', allow)
    nothingHere(req, res, new ServiceError('MethodNotAllowed', `This address does not accept ${req.method} requests.`))
  })
  // Failures before a page handler ran (a path that is not valid percent-encoding).
  router.use(((error, req, res, next) => {
    if (res.headersSent) return next(error)
    const status = (error as { status?: unknown }).status
    fail(
      req,
      res,
      typeof status === 'number' && status >= 400 && status < 500
        ? new ServiceError('InvalidInput', 'This address is not valid.')
        : error,
    )
  }) as express.ErrorRequestHandler)
  return router
}

/** Whether the client names HTML among what it accepts, as a browser navigating does. */
function wantsPage(req: Request): boolean {
  return /(^|[\s,])text\/html\s*(;|,|$)/i.test(req.get('accept') ?? '')
}

/**
 * The browser rule of the API (lib/http/cross-site-and-content.ts), for the one
 * state-changing request here: an `Origin` listed in `allowedOrigins` may
 * post (a partner's own "sign out" button); otherwise a `Sec-Fetch-Site`
 * other than same-origin/none, `Origin: null`, or an `Origin` other than the
 * dashboard's own is refused. Origins compare without letter case.
 */
function crossSite(req: Request, allowed: ReadonlySet<string>): boolean {
  const origin = req.get('origin')?.toLowerCase()
  if (origin !== undefined && allowed.has(origin)) return false
  const site = req.get('sec-fetch-site')?.toLowerCase()
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true
  if (origin === undefined) return false
  return origin !== `${req.protocol}://${req.get('host') ?? ''}`.toLowerCase()
}
