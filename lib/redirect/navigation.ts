/**
 * Which requests are page navigations: only those may be redirected. An
 * `<img>` of an extensionless URL, a `fetch()`, an XHR, a feed or a manifest
 * must get what it asked for, or the desktop page breaks on a phone.
 * Runtime-neutral: headers come through the adapter's reader.
 */

/**
 * True when the request is a navigation to a page:
 * - with `Sec-Fetch-Dest` (every current browser), only `document`;
 * - without it, only when `Accept` admits `text/html` (no `Accept`, `*\/*`,
 *   `text/*` and `text/html` all do, unless their `q` is 0);
 * - never with `X-Requested-With` (jQuery and similar XHR libraries).
 *
 * `Sec-Fetch-Mode` is not read: `navigate` also covers iframes, and
 * `Sec-Fetch-Dest` already says everything needed.
 */
export function isNavigation<S>(subject: S, header: (subject: S, name: string) => string | undefined): boolean {
  if (header(subject, 'x-requested-with') !== undefined) return false
  const dest = header(subject, 'sec-fetch-dest')
  if (dest !== undefined) return dest === 'document' || dest.trim().toLowerCase() === 'document'
  const accept = header(subject, 'accept')
  return accept === undefined || admitsHtml(accept)
}

/** True when an `Accept` value admits `text/html` with a non-zero weight. */
export function admitsHtml(accept: string): boolean {
  // Browsers' own navigation Accept starts with it: settle that without parsing.
  if (accept.startsWith('text/html,')) return true
  if (accept.trim() === '') return true
  const lower = accept.toLowerCase()
  if (!lower.includes('text/html') && !lower.includes('*/*') && !lower.includes('text/*')) return false
  for (const range of lower.split(',')) {
    const semi = range.indexOf(';')
    const type = (semi < 0 ? range : range.slice(0, semi)).trim()
    if (type !== 'text/html' && type !== 'text/*' && type !== '*/*') continue
    if (semi < 0 || weight(range.slice(semi + 1)) > 0) return true
  }
  return false
}

/** The `q` of a media range's parameters (1 when absent or unreadable). */
function weight(params: string): number {
  for (const param of params.split(';')) {
    const eq = param.indexOf('=')
    if (eq < 0 || param.slice(0, eq).trim() !== 'q') continue
    const q = Number(param.slice(eq + 1).trim())
    return Number.isFinite(q) ? q : 1
  }
  return 1
}
