/**
 * Redirect confirmations: telling the service that a visitor was sent to the
 * mobile site, which sets the site's `last_confirmed_redirected_date`.
 * In-process through an engine, or over HTTP through the service's
 * `/collect/{site_name}?e=redirect` beacon. Either way fire-and-forget and
 * throttled: the date needs no more precision than the throttle gives, and
 * a busy desktop site must not turn every phone visit into a write.
 */
import type { AgentsEngine } from './providers.js'
import type { RemoteAgentsOptions } from './remote.js'

type Report = (error: Error) => void

/**
 * Starts a send off the request path: `setImmediate` in Node, so the
 * redirect never waits even for building the request; `ctx.waitUntil` at the
 * edge, where work after the answer must be handed to the platform.
 */
export type Defer = (send: () => Promise<void>) => void

/** A confirmation to send now if the throttle allows; never throws, never waits. */
export type Confirm = (defer: Defer) => void

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)))

/** Last engine confirmation per engine and site: shared by every middleware on the same engine. */
const lastByEngine = new WeakMap<object, Map<string, number>>()
/** Last remote confirmation per collector URL (one per site): shared by every middleware of the process. */
const lastByUrl = new Map<string, number>()

/** Spacing of in-process confirmations, per engine and site. */
export const ENGINE_CONFIRM_MS = 1000
/** Spacing of confirmations over HTTP, per site and process. */
export const REMOTE_CONFIRM_MS = 60_000

/** True (and the time noted) when the last send is at least `spacing` ago; a clock that went back allows it. */
function due(last: Map<string, number>, key: string, now: number, spacing: number): boolean {
  const before = last.get(key)
  if (before !== undefined && now - before < spacing && now >= before) return false
  last.set(key, now)
  return true
}

/** Calls `engine.confirmRedirect` without awaiting, at most once per engine and site per second. */
export function engineConfirmer(engine: AgentsEngine, site_name: string, now: () => number, report: Report): Confirm {
  let sites = lastByEngine.get(engine)
  if (sites === undefined) lastByEngine.set(engine, (sites = new Map()))
  const last = sites
  return () => {
    if (!due(last, site_name, now(), ENGINE_CONFIRM_MS)) return
    try {
      engine.confirmRedirect(site_name).catch((err: unknown) => report(asError(err)))
    } catch (err) {
      report(asError(err))
    }
  }
}

/**
 * The collector URL confirmations go to: `remote.collectUrl`, or the origin
 * of `remote.baseUrl` + `/collect/{site_name}?e=redirect` (where the
 * standalone server mounts its collector).
 */
export function collectUrlOf(remote: RemoteAgentsOptions, site_name: string): string {
  const raw = remote.collectUrl ?? `${originOf(remote.baseUrl)}/collect/${encodeURIComponent(site_name)}?e=redirect`
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    throw new TypeError(`mobileRedirect: remote.collectUrl must be an absolute http(s) URL, got ${JSON.stringify(raw)}`)
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new TypeError(`mobileRedirect: remote.collectUrl must be an absolute http(s) URL, got ${JSON.stringify(raw)}`)
  }
  return u.href
}

function originOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).origin
  } catch {
    throw new TypeError(`mobileRedirect: remote.baseUrl must be an absolute URL, got ${JSON.stringify(baseUrl)}`)
  }
}

/**
 * POSTs to the collector URL, the first time at once and then at most once
 * per site per minute in this process (or isolate). The request starts
 * through `defer`, so the redirect that triggered it never waits for it.
 * Failures go to `report`.
 */
export function remoteConfirmer(url: string, timeoutMs: number, now: () => number, report: Report): Confirm {
  const send = (): Promise<void> =>
    fetch(url, {
      method: 'POST',
      // 'manual', not 'error' (which workerd refuses): a 3xx is then a non-200 failure, never followed.
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
      headers: { 'content-length': '0' },
    })
      .then(async (res) => {
        await res.body?.cancel().catch(() => undefined)
        if (res.status < 200 || res.status > 299) report(new Error(`POST ${url}: HTTP ${res.status}`))
      })
      .catch((err: unknown) => report(new Error(`POST ${url}: ${asError(err).message}`, { cause: err })))
  return (defer) => {
    if (due(lastByUrl, url, now(), REMOTE_CONFIRM_MS)) defer(send)
  }
}
