/**
 * Where a webhook of the test double may deliver, and how its URL is shown.
 *
 * Whoever holds the admin token registers webhooks, and a delivery's status
 * and error are theirs to read: without a rule, the test double is a way to
 * reach (and scan) what only the server can reach. Loopback and private
 * addresses stay allowed, since a test's receiver is usually the test process
 * or a neighbouring container. Link-local and cloud-metadata addresses
 * (169.254.0.0/16, fe80::/10, fd00:ec2::254) are refused unless the server is
 * told to allow them: a literal one when the webhook is registered, a host
 * name that resolves to one at every delivery (the address checked is the
 * one connected to, so a name cannot change between check and use).
 *
 * URLs are shown with any credentials masked, everywhere they are shown.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns'
import { isIP } from 'node:net'
import { ServiceError } from '../errors.js'

/** Resolves a host name to every address it has (`dns.lookup(name, { all: true })` by default). */
export type ResolveAll = (hostname: string) => Promise<LookupAddress[]>

/** Where deliveries may go. */
export interface DestinationPolicy {
  /** Deliver to link-local and cloud-metadata addresses too. Default false. */
  allowLinkLocal?: boolean
  /** How host names are resolved; tests inject one so that nothing leaves the machine. */
  resolve?: ResolveAll
}

/** The AWS metadata address over IPv6; its IPv4 twin, 169.254.169.254, is link-local. */
const METADATA_V6 = 'fd00:ec2::254'

/** Expands an IPv6 address to its eight 16-bit groups. */
function groupsOf(address: string): number[] {
  let text = address.toLowerCase().split('%')[0]!
  // A dotted IPv4 tail (::ffff:169.254.1.1) as two groups.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.split('::') as [string, string | undefined]
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => Number.parseInt(g, 16)) : [])
  const front = parse(head)
  const back = parse(tail)
  const missing = tail === undefined ? 0 : 8 - front.length - back.length
  return [...front, ...new Array<number>(missing).fill(0), ...back]
}

/** Why deliveries to this IP address are refused, or undefined when they are allowed. */
export function forbiddenAddress(address: string): string | undefined {
  const family = isIP(address)
  if (family === 4) return address.startsWith('169.254.') ? 'a link-local address (169.254.0.0/16)' : undefined
  if (family !== 6) return undefined
  const groups = groupsOf(address)
  if ((groups[0]! & 0xffc0) === 0xfe80) return 'a link-local address (fe80::/10)'
  if (groups.join(':') === groupsOf(METADATA_V6).join(':')) return `the cloud metadata address (${METADATA_V6})`
  // An IPv4-mapped address (::ffff:a.b.c.d) is that IPv4 address.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)
    return forbiddenAddress(`${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}`)
  return undefined
}

/** The host of a URL as an address when it is a literal one (brackets off), else undefined. */
function literalHost(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  return isIP(host) === 0 ? undefined : host
}

/** `url` with its credentials masked: `https://***:***@hooks.example/x`. */
export function maskUrl(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return url
  }
  if (parsed.username === '' && parsed.password === '') return url
  if (parsed.username !== '') parsed.username = '***'
  if (parsed.password !== '') parsed.password = '***'
  return parsed.toString()
}

/** Refuses (InvalidInput) a webhook URL whose host is a literal address deliveries may not reach. */
export function checkDestination(url: string, policy: DestinationPolicy): void {
  if (policy.allowLinkLocal) return
  const host = literalHost(new URL(url))
  const why = host === undefined ? undefined : forbiddenAddress(host)
  if (why !== undefined)
    throw new ServiceError(
      'InvalidInput',
      `url ${maskUrl(url)} names ${why}: webhooks never deliver there unless the server allows link-local destinations (startServer allowLinkLocalWebhooks, --webhooks-allow-link-local)`,
    )
}

/** An error a refused destination fails its delivery with. */
export class ForbiddenDestinationError extends Error {
  readonly code = 'EFORBIDDENDESTINATION'
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void

const systemResolve: ResolveAll = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  )

/**
 * The `lookup` option of an HTTP request that connects only to allowed
 * addresses: every address a name resolves to is checked, and one forbidden
 * address fails the delivery. Node calls it for host names, not literals.
 */
export function guardedLookup(policy: DestinationPolicy) {
  const resolve = policy.resolve ?? systemResolve
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family
    resolve(hostname).then(
      (found) => {
        const addresses = family ? found.filter((a) => a.family === family) : found
        if (addresses.length === 0)
          return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '')
        if (!policy.allowLinkLocal) {
          for (const { address } of addresses) {
            const why = forbiddenAddress(address)
            if (why !== undefined)
              return callback(new ForbiddenDestinationError(`refused: ${hostname} resolves to ${address}, ${why}`), '')
          }
        }
        if (options.all) return callback(null, addresses)
        callback(null, addresses[0]!.address, addresses[0]!.family)
      },
      (error: Error) => callback(error, ''),
    )
  }
}

/** Refuses a delivery to a literal address the policy forbids; the message says why. */
export function literalRefusal(url: string, policy: DestinationPolicy): string | undefined {
  if (policy.allowLinkLocal) return undefined
  const host = literalHost(new URL(url))
  const why = host === undefined ? undefined : forbiddenAddress(host)
  return why === undefined ? undefined : `refused: ${host} is ${why}`
}
