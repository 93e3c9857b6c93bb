/**
 * Where the links the API hands out (Get SSO Link) point: never at an
 * unchecked `Host` (DESIGN "Link origins"). An absolute `dashboardUrl` wins;
 * then `publicUrl` (the standalone server: `startServer({ publicUrl })`, or
 * its own listening origin); then the request's origin, only when its host
 * is in `allowedHosts` (default: loopback names); otherwise InvalidInput.
 */
import type { Request } from 'express'
import { ServiceError } from '../errors.js'
import { isDashboardUrl } from '../schema/sso.js'
import { hostnameOf, isLoopbackHost } from './loopback.js'
import { requestHost } from './express-compat.js'

/** Checks the `publicUrl` option once, when the router is built; a function is checked when called. */
export function checkPublicUrl(url: string | (() => string) | undefined): (() => string) | undefined {
  if (url === undefined) return undefined
  const valid = (value: unknown): string => {
    if (typeof value === 'string' && /^https?:\/\//i.test(value) && isDashboardUrl(value))
      return value.replace(/\/+$/, '')
    throw new TypeError('apiRouter: publicUrl must be an absolute http(s) URL')
  }
  if (typeof url === 'function') return () => valid(url())
  const checked = valid(url)
  return () => checked
}

/** Whether a Host may give links their origin: listed, or loopback by default. */
export function hostCheck(allowed: readonly string[] | undefined): (host: string) => boolean {
  if (allowed === undefined) return (host) => isLoopbackHost(host)
  const names = new Set(allowed.map((h) => h.toLowerCase()))
  return (host) => names.has(host.toLowerCase()) || names.has(hostnameOf(host) ?? '')
}

/** How the links of a router get their origin; see ApiRouterOptions.dashboardUrl. */
export interface LinkOrigins {
  readonly dashboardUrl: string | undefined
  readonly publicUrl: (() => string) | undefined
  readonly allowedHost: (host: string) => boolean
}

/** The dashboard URL the links of this request carry. */
export function dashboardUrlOf(req: Request, links: LinkOrigins): string {
  const url = links.dashboardUrl ?? '/dashboard'
  if (!url.startsWith('/')) return url
  if (links.publicUrl) return `${links.publicUrl()}${url}`
  const host = requestHost(req) ?? ''
  if (links.allowedHost(host)) return `${req.protocol}://${host}${url}`
  throw new ServiceError(
    'InvalidInput',
    `links are not made for Host ${JSON.stringify(host)}: the server sets dashboardUrl (absolute), publicUrl or allowedHosts`,
  )
}
