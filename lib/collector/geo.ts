/**
 * Where a beacon comes from, read only from the CDN the server is told is in
 * front of it: any client can send a `CF-IPCountry` header, so a header is
 * trusted only when that CDN is the one that sets (and overwrites) it. By
 * default no header is read and every visit is recorded with an unknown
 * country and region.
 *
 * A country must be an ISO 3166-1 alpha-2 code (two letters, upper-cased;
 * the CDNs' "unknown" codes XX, ZZ and T1 are not countries) and a region a
 * code of at most 3 letters or digits (ISO 3166-2 subdivision code without
 * its country part); anything else is recorded as unknown.
 */
import type { Request } from 'express'

/** Country and region of a request; absent parts are recorded as "Unknown". */
export interface GeoInfo {
  country?: string
  region?: string
}

/** Finds where a request comes from. May be async (e.g. a GeoIP lookup). */
export type GeoResolver = (req: Request) => GeoInfo | undefined | Promise<GeoInfo | undefined>

/** The CDNs whose geo headers {@link cdnGeo} can read. */
export type CdnProvider = 'cloudflare' | 'cloudfront' | 'vercel' | 'appengine'

/** Options of {@link cdnGeo}. */
export interface CdnGeoOptions {
  /** The CDN in front of the server: only its headers are read. */
  provider: CdnProvider
}

/** [country header, region code header] of each CDN. */
const CDN_HEADERS: Readonly<Record<CdnProvider, readonly [string, string]>> = {
  cloudflare: ['cf-ipcountry', 'cf-region-code'],
  cloudfront: ['cloudfront-viewer-country', 'cloudfront-viewer-country-region'],
  vercel: ['x-vercel-ip-country', 'x-vercel-ip-country-region'],
  appengine: ['x-appengine-country', 'x-appengine-region'],
}

/** The providers, in the order the deprecated bare form tries them. */
export const CDN_PROVIDERS = Object.keys(CDN_HEADERS) as CdnProvider[]

const COUNTRY = /^[A-Z]{2}$/
const REGION = /^[A-Za-z0-9]{1,3}$/
/** Codes CDNs send when they do not know: Cloudflare XX (and T1 for Tor), App Engine ZZ. */
const NO_COUNTRY = new Set(['XX', 'ZZ', 'T1'])

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name]
  const text = (Array.isArray(value) ? value[0] : value)?.trim()
  return text ? text : undefined
}

/** The country code in a header value, or undefined when it is not one. */
export function countryCode(value: string | undefined): string | undefined {
  const country = value?.toUpperCase()
  return country !== undefined && COUNTRY.test(country) && !NO_COUNTRY.has(country) ? country : undefined
}

/** The region code in a header value, or undefined when it is not one. */
export function regionCode(value: string | undefined): string | undefined {
  return value !== undefined && REGION.test(value) ? value : undefined
}

function readCdn(req: Request, provider: CdnProvider): GeoInfo | undefined {
  const [countryHeader, regionHeader] = CDN_HEADERS[provider]
  const country = countryCode(header(req, countryHeader))
  if (country === undefined) return undefined
  const region = regionCode(header(req, regionHeader))
  return region === undefined ? { country } : { country, region }
}

/**
 * A geo resolver reading the headers of one CDN:
 * `analyticsCollector(engine, { geo: cdnGeo({ provider: 'cloudflare' }) })`.
 * Use it only when that CDN is in front of the server (it then sets the
 * headers itself, whatever the client sent).
 *
 * The bare form `cdnGeo(req)` is deprecated: it reads the first of any
 * CDN's headers, which any client can forge when that CDN is not in front.
 */
export function cdnGeo(options: CdnGeoOptions): GeoResolver
/** @deprecated Reads any CDN's headers, which clients can forge; use `cdnGeo({ provider })`. */
export function cdnGeo(req: Request): GeoInfo | undefined
export function cdnGeo(arg: CdnGeoOptions | Request): GeoResolver | GeoInfo | undefined {
  if (isRequest(arg)) {
    for (const provider of CDN_PROVIDERS) {
      if (header(arg, CDN_HEADERS[provider][0]) !== undefined) return readCdn(arg, provider)
    }
    return undefined
  }
  const provider = arg?.provider
  if (!CDN_PROVIDERS.includes(provider)) {
    throw new TypeError(`cdnGeo: provider must be one of ${CDN_PROVIDERS.join(', ')}`)
  }
  return (req) => readCdn(req, provider)
}

function isRequest(arg: unknown): arg is Request {
  return typeof arg === 'object' && arg !== null && 'headers' in arg && typeof arg.headers === 'object'
}
