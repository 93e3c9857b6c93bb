/**
 * String formats of the API that JSON Schema cannot express with a
 * pattern alone. Each runs in linear time: request fields are hostile input.
 */

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i
const TLD = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/i

/** An absolute http(s) URL with a host. */
export function isHttpUrl(value: string): boolean {
  if (value.length > 2048 || /[\s<>"]/.test(value)) return false
  try {
    const url = new URL(value)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
  } catch {
    return false
  }
}

/** A fully qualified domain name: two or more labels, an alphabetic (or IDN) top-level label. */
export function isFqdn(value: string): boolean {
  if (value.length > 253) return false
  const labels = (value.endsWith('.') ? value.slice(0, -1) : value).split('.')
  return labels.length >= 2 && labels.every((label) => LABEL.test(label)) && TLD.test(labels[labels.length - 1]!)
}

const LOCAL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/i

/** A plain `local@domain` address: dot-atom local part (≤ 64) and a domain name. */
export function isEmail(value: string): boolean {
  const at = value.lastIndexOf('@')
  if (at < 1 || value.length > 254) return false
  const local = value.slice(0, at)
  const domain = value.slice(at + 1)
  // isFqdn accepts the root dot of an absolute name; an address never carries it.
  return local.length <= 64 && LOCAL.test(local) && !domain.endsWith('.') && isFqdn(domain)
}

/**
 * The custom formats, as ajv format definitions: scripts/schemas.ts gives
 * them to ajv, and the generated validators call them through this table.
 */
export const FORMATS = {
  'http-url': { type: 'string', validate: isHttpUrl },
  fqdn: { type: 'string', validate: isFqdn },
  email: { type: 'string', validate: isEmail },
} as const
