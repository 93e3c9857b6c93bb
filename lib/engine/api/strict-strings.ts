/**
 * Strict strings: no string the API is given (a path parameter, a query or
 * body key or value, at any depth) may hold a lone UTF-16 surrogate or a C0
 * control character. Such text cannot be stored faithfully everywhere (a lone
 * surrogate has no UTF-8 form; Redis and PostgreSQL would replace or refuse
 * it), and control characters in names, URLs and e-mail addresses only ever
 * serve to mislead whoever reads them later. TAB, LF and CR are allowed in
 * the free-text business-info fields, where a multi-line address is normal.
 */
import { invalidInput } from '../../errors.js'

/** C0 controls, and lone surrogates (a high one not followed by a low one, a low one not preceded by a high one). */
const FORBIDDEN = /[\u0000-\u001f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
/** The same, with TAB, LF and CR allowed. */
const FORBIDDEN_IN_FREE_TEXT =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** Keys whose whole subtree is free text (business info, given under either name, and its reservation_info). */
const FREE_TEXT_KEYS: ReadonlySet<string> = new Set(['site_business_info', 'business_site_info', 'reservation_info'])

/** Deeper than any request schema goes; a deeper value is refused by its schema anyway. */
const MAX_DEPTH = 64

function what(char: string): string {
  const code = char.charCodeAt(0)
  return code >= 0xd800
    ? `a lone surrogate U+${code.toString(16).toUpperCase()}`
    : `the control character U+${code.toString(16).toUpperCase().padStart(4, '0')}`
}

function check(text: string, freeText: boolean, where: string): void {
  const match = (freeText ? FORBIDDEN_IN_FREE_TEXT : FORBIDDEN).exec(text)
  if (match) throw invalidInput(`${where} holds ${what(match[0])}, which is not allowed`)
}

function walk(value: unknown, freeText: boolean, where: string, depth: number): void {
  if (typeof value === 'string') return check(value, freeText, where || 'the input')
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) walk(value[i], freeText, `${where || 'input'}[${i}]`, depth + 1)
    return
  }
  for (const key of Object.keys(value)) {
    check(key, false, where ? `a field name in ${where}` : 'a field name')
    walk(
      (value as Record<string, unknown>)[key],
      freeText || FREE_TEXT_KEYS.has(key),
      where ? `${where}.${key}` : key,
      depth + 1,
    )
  }
}

/**
 * Throws InvalidInput naming the first string among an operation's arguments
 * (path parameters, then the body or query) that holds a forbidden character.
 */
export function checkStrings(args: readonly unknown[]): void {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    if (typeof arg === 'string') check(arg, false, 'a path parameter')
    else walk(arg, false, '', 0)
  }
}
