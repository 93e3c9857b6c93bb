/**
 * Observation points of apiRouter for the test-double controls (request
 * journal, fault injection). The router knows only this interface; the
 * controls (lib/testing) implement it. Without `hooks` the router installs
 * none of this, so a production API does no work for it at all.
 *
 * Also the names of routes that the journal, the access log and the
 * request histogram share: OpenAPI templates, and the labels they make
 * with the mount path.
 */
import type { Request, Response } from 'express'
import type { Caller } from '../engine/types.js'
import type { RateLimit } from './rate-limit.js'
import { queryOf } from './express-compat.js'
import type { ApiCall, ApiStep } from './pipeline-steps.js'

/** One finished call under the API, as the router saw it. */
export interface ApiCallRecord {
  method: string
  /** As received, below the mount point, without the query. */
  path: string
  /** The OpenAPI path template (`/sites/{site_name}`); absent when no endpoint matched. */
  route?: string
  query: Record<string, unknown>
  /** The answer's status; 0 when the connection was dropped without one. */
  status: number
  /** The authenticated master account, if any. */
  user?: string
  error_code?: string
  /** The error answer's message, when the call failed. */
  error_message?: string
  duration_ms: number
  /** The parsed JSON body, when there was one. */
  body?: unknown
  /** Its size as received (the request's Content-Length), when the request said. */
  body_bytes?: number
}

/** What a fault does to a call: wait, then answer an error or drop the connection. */
export interface ApiFault {
  latency_ms?: number
  error?: { status: number; error_code: string; message?: string }
  drop?: boolean
}

/** The hooks apiRouter calls when given `hooks`. */
export interface ApiHooks {
  /** After authentication and before the engine: the fault to apply to this call, if any. */
  fault(call: { method: string; route: string; site_name?: string }): ApiFault | undefined
  /** Every call under the API, once it is answered (or dropped). */
  record(call: ApiCallRecord): void
  /** A rate limit the controls switch at run time (off until set); the router installs its step. */
  rateLimit?: RateLimit
}

/** The OpenAPI form of an Express path: `/sites/:site_name` → `/sites/{site_name}`. */
export function templateOf(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, '{$1}')
}

/** What a label is made from: Express's `req.baseUrl`, the mount as the request spelled it. */
interface Mounted {
  baseUrl: string
}

/** Spellings of a mount path (`/api`, `/API`, …) whose route labels are kept, per route. */
const MOUNT_SPELLINGS_KEPT = 16

/**
 * The mount path as labels name it: Express matches a mount path in any
 * letter case (`/API/sites/x` reaches a router mounted at `/api`), and
 * `req.baseUrl` is the request's spelling; a label in that spelling would let
 * clients multiply the series (8 casings of /api made 100× the series).
 * Lower case is the standalone server's own spelling of its mounts.
 */
export function mountOf(req: Mounted): string {
  return req.baseUrl.toLowerCase()
}

/**
 * The label of an endpoint's Express `path` as `req` reached it, kept by
 * path and then by the mount as the request spelled it: one string per
 * route, so the log's and the metrics' lookups find its hash made. A label
 * made per request was a new string to lower-case, join, flatten and hash
 * again in each of them (issue 38). Express matches mounts in any letter
 * case, so the spellings kept per route are bounded.
 */
export function routeLabels(): (req: Mounted, path: string) => string {
  const labels = new Map<string, Map<string, string>>()
  return (req, path) => {
    let byMount = labels.get(path)
    if (byMount === undefined) labels.set(path, (byMount = new Map()))
    let label = byMount.get(req.baseUrl)
    if (label === undefined) {
      label = `${mountOf(req)}${templateOf(path)}`
      if (byMount.size < MOUNT_SPELLINGS_KEPT) byMount.set(req.baseUrl, label)
    }
    return label
  }
}

/** Express path → its OpenAPI template and the index of its site_name parameter, computed once per path. */
const templates = new Map<string, { template: string; siteAt: number }>()
function templateInfo(path: string): { template: string; siteAt: number } {
  let info = templates.get(path)
  if (info === undefined) {
    info = {
      template: templateOf(path),
      siteAt: path
        .split('/')
        .filter((part) => part.startsWith(':'))
        .indexOf(':site_name'),
    }
    templates.set(path, info)
  }
  return info
}

/**
 * Called first for every request of an apiRouter given hooks: records the
 * call once it is over (answered or dropped). `routeOf` names its endpoint's path.
 */
export function observe(
  hooks: ApiHooks,
  routeOf: (req: Request) => string | undefined,
): (req: Request, res: Response) => void {
  return (req, res) => {
    const start = performance.now()
    // 'close' comes after 'finish' as well as for a dropped connection: one listener is enough.
    res.once('close', () => {
      const record: ApiCallRecord = {
        method: req.method,
        path: req.path,
        query: req.url.includes('?') ? { ...queryOf(req) } : {},
        status: res.locals.dropped === true || !res.headersSent ? 0 : res.statusCode,
        duration_ms: performance.now() - start,
      }
      const route = routeOf(req)
      if (route !== undefined) record.route = templateInfo(route).template
      const caller = res.locals.caller as Caller | undefined
      if (caller !== undefined) record.user = caller.user
      const code = res.locals.errorCode as string | undefined
      if (code !== undefined) record.error_code = code
      const message = res.locals.errorMessage as string | undefined
      if (message !== undefined) record.error_message = message
      if (req.body !== undefined) {
        record.body = req.body
        const length = Number(req.headers['content-length'])
        if (Number.isSafeInteger(length)) record.body_bytes = length
      }
      // A 'close' listener runs outside the request: whatever it throws would end the process.
      try {
        hooks.record(record)
      } catch (error) {
        process.emitWarning(`mobisite: the request journal could not record a call: ${(error as Error)?.message}`)
      }
    })
  }
}

/** A guard step: notes the authenticated caller for the journal. */
export function noteCaller(call: ApiCall): void {
  call.res.locals.caller = call.caller
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * A hook step, after authentication and reading the input, just before the
 * engine: applies a matching fault (wait, then answer an error or drop the
 * connection; the router then does not call the engine).
 */
export function faultStep(hooks: ApiHooks): ApiStep {
  return ({ req, res, route, params }) => {
    const { template, siteAt } = templateInfo(route.path)
    const site_name = siteAt < 0 ? undefined : params[siteAt]
    const fault = hooks.fault({
      method: req.method,
      route: template,
      ...(site_name === undefined ? {} : { site_name }),
    })
    // No promise when no fault applies: the router then does not wait.
    return fault === undefined ? undefined : applyFault(fault, req, res, template)
  }
}

/** Waits the fault's latency, then answers its error or drops the connection. */
async function applyFault(fault: ApiFault, req: Request, res: Response, template: string): Promise<void> {
  if (fault.latency_ms) await sleep(fault.latency_ms)
  if (fault.drop) {
    res.locals.dropped = true
    req.socket.destroy()
    return
  }
  if (fault.error) {
    const { status, error_code, message } = fault.error
    const text = message ?? `injected fault on ${req.method} ${template}`
    res.locals.errorCode = error_code
    res.locals.errorMessage = text
    res.status(status).json({ error_code, message: text })
  }
}
