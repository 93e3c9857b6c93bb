/**
 * Loopback names and addresses, as a `Host` header or an `Origin` names
 * them: the test-double controls without a token answer only these (DNS
 * rebinding: a page of x.evil resolved to 127.0.0.1 still sends
 * `Host: x.evil`), and links take a request's origin only from allowed hosts.
 */

/** 127.0.0.0/8, ::1 (also IPv4-mapped), localhost and its subdomains (RFC 6761); any letter case, brackets allowed. */
export function isLoopbackName(hostname: string): boolean {
  const h = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
  if (h === 'localhost' || h.endsWith('.localhost') || h === '::1' || h === '0:0:0:0:0:0:0:1') return true
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) && v4.split('.').every((part) => Number(part) <= 255)
}

/** The host name of a `Host` header value (`name`, `name:port`, `[v6]`, `[v6]:port`), lower case; undefined when malformed. */
export function hostnameOf(host: string | undefined): string | undefined {
  if (host === undefined || host === '') return undefined
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s/@]+)(?::(\d{1,5}))?$/.exec(host)
  return match ? match[1]!.toLowerCase() : undefined
}

/** Whether a `Host` header value names a loopback host. */
export function isLoopbackHost(host: string | undefined): boolean {
  const name = hostnameOf(host)
  return name !== undefined && isLoopbackName(name)
}

/** Whether an `Origin` header value is an http(s) origin on a loopback host (`null` is not). */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin)
    return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackName(url.hostname)
  } catch {
    return false
  }
}
