/**
 * Values for test/http/http-fuzz.ts, driven by the real JSON Schemas of the routes:
 * valid ones (boundaries included, so requests reach the engine and change
 * state), valid ones with exactly one thing wrong somewhere inside, and wild
 * ones of roughly the right shape with parts of the wrong type.
 */
import fc from 'fast-check'
import { ROUTES } from '../../lib/http/routes.js'
import { chars, domainOfLength, urlOfLength } from './api.js'

/**
 * How hostile the generated requests are: 'routes' mostly gets past
 * authentication and parsing to reach the engine and change state;
 * 'hostile' spreads evenly over everything that can go wrong.
 */
export type Profile = 'routes' | 'hostile'

/*
 * Names paths and bodies draw from: those the fuzz test seeds (fuzzsite,
 * fuzz_two, fuzz-async, bobsite; ann, ann.b+c@x.io; ext-1, ext-2), names
 * requests may create, and valid names that are dangerous as object keys.
 */

/** Site names. */
export const SITES = [
  'fuzzsite',
  'fuzz_two',
  'fuzz-async',
  'bobsite',
  'fuzznew',
  'fuzz-new-2',
  'Fuzz_3',
  'created',
  '__proto__',
  'constructor',
  'toString',
] as const
/** Account names, as {@link SITES}. */
export const ACCOUNTS = ['ann', 'ann.b+c@x.io', 'newbie', '__proto__', 'constructor', 'alice'] as const
/** External ids, as {@link SITES}. */
export const EXTERNAL_UIDS = ['ext-1', 'ext-2', '__proto__'] as const

/** Values of no particular type: what a hostile client puts where a typed value belongs. */
export const wrongTyped: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    1e308,
    '',
    ' ',
    'null',
    'true',
    '__proto__',
    {},
    [],
    [null],
    chars(10_000),
  ),
  fc.integer(),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.jsonValue({ maxDepth: 2 }),
)

const URLS_OK = [
  'https://www.example.com/',
  'http://a.bc',
  'https://shop.example.org/path?q=1#frag',
  'http://user:pw@host.example.com:8080/',
  'http://[::1]/',
  'http://127.0.0.1/',
  'https://例え.jp/',
  'https://xn--r8jz45g.jp/',
  urlOfLength(2048),
]
const URLS_BAD = [
  urlOfLength(2049),
  'ftp://example.com/',
  'javascript:alert(1)',
  'https://',
  '//example.com/',
  'example.com',
  'https://a b.com/',
  'https://www.example.com/<x>',
  'http://',
  'https:///x',
]
const DOMAINS_OK = ['example.com', 'm.example.co.uk', 'example.com.', 'xn--r8jz45g.jp', domainOfLength(253), 'a.bc']
const DOMAINS_BAD = [
  domainOfLength(254),
  'localhost',
  '-a.com',
  'a..com',
  '1.2.3.4',
  'a.b',
  'exa_mple.com',
  `${'l'.repeat(64)}.com`,
  '.com',
  'example.com..',
]
const EMAILS_OK = ['a@example.com', 'a.b+c@x.io', `${'x'.repeat(64)}@example.com`]
const EMAILS_BAD = [
  'a@b',
  '@example.com',
  'a@example.com.',
  `${'x'.repeat(65)}@example.com`,
  'a@@b.com',
  `${'x'.repeat(60)}.${'y'.repeat(60)}@${'e'.repeat(30)}.com`,
  'a b@example.com',
  '.a@example.com',
]

/** Dates a query may carry: valid, impossible, out of range and malformed. */
const DATES_OK = [
  '2000-01-01',
  '2025-03-10',
  '2025-03-10T12:00:00',
  '2025-03-10T23:59:59',
  '2024-02-29',
  '0001-01-01',
  '0050-06-01',
  '9999-12-31T23:59:59',
  '2025-03-09',
  '2025-03-11T00:00:00',
]
const DATES_BAD = [
  '2025-02-29',
  '2025-02-30',
  '2025-13-01',
  '2025-00-10',
  '2025-03-10T24:00:00',
  '2025-03-10T23:59:60',
  '0000-01-01',
  '10000-01-01',
  '+002025-03-10',
  '2025-03-10Z',
  '2025-03-10T12:00:00Z',
  '2025-03-10T12:00:00.000',
  '2025-3-1',
  '2025-03-10 12:00:00',
  '',
  'now',
  'NaN',
  '-1',
  '1741608000000',
  '２０２５-03-10',
]
/** Every date value the fuzz sends. */
export const DATES = [...DATES_OK, ...DATES_BAD]

/** A JSON Schema, read loosely. */
export type Schema = Record<string, unknown>
const isDate = (schema: Schema): boolean => /date/.test(String(schema.description))
const patternOf = (schema: Schema): RegExp | undefined =>
  typeof schema.pattern === 'string' ? new RegExp(schema.pattern) : undefined
const fits =
  (schema: Schema) =>
  (value: string): boolean =>
    value.length >= Number(schema.minLength ?? 0) &&
    value.length <= Number(schema.maxLength ?? Infinity) &&
    (patternOf(schema)?.test(value) ?? true)

/** A value the schema accepts, boundaries included, often one of the fixture's names. */
export function validFor(schema: Schema): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]))
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as Schema[]).map(validFor))
  switch (schema.type) {
    case 'null':
      return fc.constant(null)
    case 'boolean':
      return fc.boolean()
    case 'string': {
      if (schema.format === 'http-url') return fc.constantFrom(...URLS_OK)
      if (schema.format === 'fqdn') return fc.constantFrom(...DOMAINS_OK)
      if (schema.format === 'email') return fc.constantFrom(...EMAILS_OK)
      if (isDate(schema)) return fc.constantFrom(...DATES_OK)
      const min = Number(schema.minLength ?? 0)
      const max = Math.min(Number(schema.maxLength ?? 64), 300)
      const pattern = patternOf(schema)
      const fill = ['a', '1'].find((c) => pattern?.test(c) ?? true) ?? 'a'
      const names = [...SITES, ...ACCOUNTS, ...EXTERNAL_UIDS].filter(fits(schema))
      return fc.oneof(
        {
          weight: 3,
          arbitrary: names.length > 0 ? fc.constantFrom(...names) : fc.constant(fill.repeat(Math.max(min, 1))),
        },
        { weight: 1, arbitrary: fc.constantFrom(fill.repeat(min), fill.repeat(max)) },
        {
          weight: 2,
          arbitrary: pattern
            ? fc.stringMatching(pattern, { maxLength: max }).filter(fits(schema))
            : fc.string({ minLength: min, maxLength: Math.min(max, 20) }),
        },
      )
    }
    case 'array': {
      const min = Number(schema.minItems ?? 0)
      const max = Number(schema.maxItems ?? 5)
      const items = validFor(schema.items as Schema)
      return fc
        .constantFrom(min, Math.min(min + 1, max), Math.min(min + 2, max), max)
        .chain((n) => fc.array(items, { minLength: n, maxLength: n }))
    }
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>
      const model = Object.fromEntries(Object.entries(properties).map(([key, sub]) => [key, validFor(sub)]))
      const least = Number(schema.minProperties ?? 0)
      return fc
        .record(model, { requiredKeys: (schema.required ?? []) as string[] })
        .map(oneBusinessInfo)
        .filter((value) => Object.keys(value).length >= least)
    }
    default:
      return wrongTyped
  }
}

/**
 * The one cross-field rule of the schemas (site_business_info or business_site_info, not both):
 * one business info key, and reservation_info in one place. Valid values keep it.
 */
function oneBusinessInfo(value: Record<string, unknown>): Record<string, unknown> {
  const result = { ...value }
  if ('site_business_info' in result && 'business_site_info' in result) delete result.business_site_info
  const info = (result.site_business_info ?? result.business_site_info) as Record<string, unknown> | undefined
  if (info && 'reservation_info' in info && 'reservation_info' in result) delete result.reservation_info
  return result
}

/** A value the schema rejects right here: out of range, off the pattern, not in the enum, or of another type. */
function invalidHere(schema: Schema): fc.Arbitrary<unknown> {
  const local: unknown[] = []
  if (Array.isArray(schema.enum)) local.push('TRUE', 'yes', 1, 0, 'async ', 'short', 'EN')
  if (schema.type === 'string') {
    if (schema.format === 'http-url') local.push(...URLS_BAD)
    else if (schema.format === 'fqdn') local.push(...DOMAINS_BAD)
    else if (schema.format === 'email') local.push(...EMAILS_BAD)
    else if (isDate(schema)) local.push(...DATES_BAD)
    const min = Number(schema.minLength ?? 0)
    if (min > 0) local.push('a'.repeat(min - 1))
    if (schema.maxLength !== undefined) local.push('a'.repeat(Number(schema.maxLength) + 1))
    if (schema.pattern !== undefined) local.push('a b c d', 'abcd/', 'abcdé', 'ab\ncd', '12345-', '__proto__.x')
  }
  return local.length > 0
    ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...local) }, { weight: 1, arbitrary: wrongTyped })
    : wrongTyped
}

/** A valid value with exactly one thing wrong, somewhere inside it. */
export function mutated(schema: Schema): fc.Arbitrary<unknown> {
  if (schema.type === 'object') {
    const properties = (schema.properties ?? {}) as Record<string, Schema>
    const keys = Object.keys(properties)
    const required = (schema.required ?? []) as string[]
    const options: fc.Arbitrary<unknown>[] = [
      // A stray key: one of another schema's fields, or a dangerous name.
      fc.tuple(validFor(schema), fc.constantFrom(...FIELD_NAMES), wrongTyped).map(([value, key, inner]) => {
        const object = { ...(value as object) }
        Object.defineProperty(object, key, { value: inner, enumerable: true, writable: true, configurable: true })
        return object
      }),
      invalidHere(schema),
    ]
    if (keys.length > 0) {
      const one = fc
        .constantFrom(...keys)
        .chain((key) => fc.tuple(fc.constant(key), validFor(schema), mutated(properties[key]!)))
      options.push(one.map(([key, value, bad]) => ({ ...(value as object), [key]: bad })))
    }
    if (required.length > 0) {
      options.push(
        validFor(schema).map((value) =>
          Object.fromEntries(Object.entries(value as object).filter(([key]) => !required.includes(key))),
        ),
      )
    }
    return fc.oneof(...options)
  }
  if (schema.type === 'array') {
    const items = schema.items as Schema
    const max = Number(schema.maxItems ?? 5)
    return fc.oneof(
      fc.array(validFor(items), { minLength: max + 1, maxLength: max + 1 }),
      fc.constant([]),
      fc.tuple(validFor(schema), mutated(items)).map(([value, bad]) => [...(value as unknown[]), bad]),
      wrongTyped,
    )
  }
  return invalidHere(schema)
}

/** Anything of roughly the schema's shape, each part possibly of the wrong type. */
function wild(schema: Schema, depth: number): fc.Arbitrary<unknown> {
  if (depth > 4) return wrongTyped
  const any = (sub: unknown): fc.Arbitrary<unknown> =>
    fc.oneof({ weight: 3, arbitrary: wild(sub as Schema, depth + 1) }, { weight: 1, arbitrary: wrongTyped })
  if (schema.type === 'object') {
    const properties = (schema.properties ?? {}) as Record<string, unknown>
    return fc.record(Object.fromEntries(Object.entries(properties).map(([key, sub]) => [key, any(sub)])), {
      requiredKeys: [],
    })
  }
  if (schema.type === 'array') return fc.array(any(schema.items), { maxLength: 4 })
  return fc.oneof(validFor(schema), invalidHere(schema))
}

/** The empty object schema, for routes that take no body. */
export const NO_FIELDS: Schema = { type: 'object', additionalProperties: false, properties: {} }

/**
 * A value for a JSON Schema: valid (so requests reach the engine and the
 * store and change state), valid but for one thing, or wrong all over.
 */
export function fromSchema(schema: unknown, profile: Profile): fc.Arbitrary<unknown> {
  const s = (schema ?? NO_FIELDS) as Schema
  return fc.oneof(
    { weight: profile === 'routes' ? 8 : 3, arbitrary: validFor(s) },
    { weight: 4, arbitrary: mutated(s) },
    { weight: 1, arbitrary: wild(s, 0) },
  )
}

/** Every property name any request schema knows, plus names that are dangerous as keys. */
const FIELD_NAMES: string[] = (() => {
  const names = new Set<string>(['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', ''])
  const walk = (schema: unknown): void => {
    if (typeof schema !== 'object' || schema === null) return
    const { properties } = schema as { properties?: Record<string, unknown> }
    for (const [name, sub] of Object.entries(properties ?? {})) {
      names.add(name)
      walk(sub)
    }
    for (const value of Object.values(schema)) if (typeof value === 'object') walk(value)
  }
  for (const route of ROUTES) walk(route.schema)
  return [...names]
})()
