/**
 * HTML by tagged template, escaped by default.
 *
 * Every value interpolated into an `html` template is escaped for text and
 * for quoted attribute values, unless it is itself the result of an `html`
 * template (already safe) or an array of such results. There is no way to
 * insert a raw string: markup can only come from template literals written
 * in this package, so a value from the store can never become markup.
 *
 * Why a tagged template rather than a templating library: the pages are
 * few and small, a dozen lines here give escape-by-default with nothing to
 * configure wrongly (no "safe" filters, no autoescape switch), it costs no
 * dependency, and TypeScript checks every value passed to a page.
 */

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
}

/** Escapes text for HTML content and for single- or double-quoted attribute values. */
export function escapeHtml(value: string): string {
  // Most values (numbers, dates, names) have nothing to escape: test before replacing.
  return SPECIAL.test(value) ? value.replace(SPECIALS, (c) => ESCAPES[c]!) : value
}
const SPECIAL = /[&<>"'`]/
const SPECIALS = /[&<>"'`]/g

/** Markup produced by {@link html}: inserted into another template as is. */
export class SafeHtml {
  /** @internal Only {@link html} makes these. */
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup
  }
}

/** What a template accepts: text and numbers are escaped, SafeHtml kept, absent values dropped. */
export type HtmlValue = string | number | SafeHtml | null | undefined | false | readonly HtmlValue[]

function render(value: HtmlValue): string {
  if (typeof value === 'number') return String(value)
  if (value === null || value === undefined || value === false) return ''
  if (value instanceof SafeHtml) return value.markup
  if (Array.isArray(value)) return value.map(render).join('')
  return escapeHtml(String(value))
}

/** The tag: `html\`<p>${text}</p>\`` escapes `text`. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0]!
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!
  return new SafeHtml(out)
}
