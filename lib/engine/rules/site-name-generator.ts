/**
 * Site names generated from the desktop URL when Create Site omits one:
 * `https://www.example.com/shop` → `examplecom`, then `examplecom-k3x9` while taken.
 */
const MAX = 45
const MIN = 4
const SUFFIX = 4

/** The preferred name for a desktop URL: its host without `www.`, letters and digits only. */
export function baseName(original_site_url: string): string {
  const host = new URL(original_site_url).hostname.toLowerCase().replace(/^www\./, '')
  const base = host.replace(/[^a-z0-9]/g, '').slice(0, MAX)
  return base.length >= MIN ? base : `${base}site`.slice(0, MAX).padEnd(MIN, '0')
}

/** The base with a random suffix, still within the 45-character limit; `randomBytes` is the engine's. */
export function suffixedName(base: string, randomBytes: (size: number) => Buffer): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'
  const suffix = Array.from(randomBytes(SUFFIX), (byte) => alphabet[byte % alphabet.length]).join('')
  return `${base.slice(0, MAX - SUFFIX - 1)}-${suffix}`
}
