/**
 * fast-check arbitraries of hostile HTTP requests for test/http/http-fuzz.ts:
 * paths built from the real route table, query strings, bodies shaped by the
 * real JSON Schemas (with wrong types and boundary values), raw bodies, content
 * types, encodings and Authorization headers. A request is plain data, so a
 * failing case prints as something one can replay by hand.
 */
import { gzipSync } from 'node:zlib'
import fc from 'fast-check'
import { AGENTS_PATH, ROUTES } from '../../lib/http/routes.js'
import { PASSWORDS, chars } from './api.js'
import {
  ACCOUNTS,
  DATES,
  EXTERNAL_UIDS,
  NO_FIELDS,
  SITES,
  fromSchema,
  validFor,
  type Profile,
  type Schema,
} from './fuzz-values.js'

export type { Profile } from './fuzz-values.js'

/** One generated request. `path` and `query` are already URL-encoded (or deliberately not). */
export interface FuzzRequest {
  method: string
  /** The route template the path came from (for coverage). */
  template: string
  path: string
  query: string
  body: FuzzBody
  /** Raw Authorization header; undefined means none is sent. */
  auth: string | undefined
  /** Headers a browser adds (Origin, Sec-Fetch-Site), as a forged cross-site request would carry them. */
  browser: Record<string, string>
  /** Sent before the request: how the builder answers builds it triggers. */
  build: 'succeed' | 'FAILED_CONTENT_TOO_BIG' | 'reject-plain'
  /** Seconds the fake clock moves before the request. */
  advance: number
}

/** What goes on the wire after the headers. */
export type FuzzBody =
  | { kind: 'none' }
  | {
      kind: 'text'
      text: string
      contentType: string
      encoding?: 'gzip' | 'gzip-broken' | 'deflate' | 'br' | 'identity' | 'snappy'
      /** Written as latin1 bytes instead of UTF-8, so any non-ASCII character is invalid UTF-8. */
      latin1?: true
    }

/** Percent-encodes the UTF-8 bytes of `s` (lone surrogates become U+FFFD), keeping unreserved characters. */
export function percent(s: string): string {
  let out = ''
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte)
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

const b64 = (s: string): string => Buffer.from(s).toString('base64')
const basic = (user: string, password: string): string => `Basic ${b64(`${user}:${password}`)}`

/** JSON text of a value with extra raw members (e.g. `"__proto__": {...}`) spliced into its outer objects. */
function withRawKeys(value: unknown, extra: [string, unknown][]): string {
  const text = JSON.stringify(value) ?? 'null'
  if (extra.length === 0 || !text.startsWith('{')) return text
  const members = extra.map(([key, inner]) => `${JSON.stringify(key)}:${JSON.stringify(inner) ?? 'null'}`).join(',')
  const spliced = `{${members}${text === '{}' ? '' : ','}${text.slice(1)}`
  // Also inside site_data, the object most of the engine reads.
  if (spliced.includes('"site_data":{}')) return spliced.replace('"site_data":{}', `"site_data":{${members}}`)
  return spliced.replace('"site_data":{', `"site_data":{${members},`)
}

// ------------------------------------------------------------------ bodies

const CONTENT_TYPES = [
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; charset=koi8-z',
  'application/merge-patch+json',
  'application/octet-stream',
  '*/*',
  'garbage',
]

const deep = (n: number, open: string, close: string, middle = '1'): string => open.repeat(n) + middle + close.repeat(n)

/** A body for a route: schema-shaped JSON, any JSON, raw keys, deep nesting, non-JSON text, too large, or nothing. */
export function bodyFor(schema: unknown, profile: Profile): fc.Arbitrary<FuzzBody> {
  const calm = profile === 'routes'
  const encodings = fc.oneof(
    { weight: calm ? 30 : 10, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom('gzip', 'gzip-broken', 'deflate', 'br', 'identity', 'snappy' as const) },
  )
  const json = (text: fc.Arbitrary<string>): fc.Arbitrary<FuzzBody> =>
    fc
      .tuple(
        text,
        fc.oneof(
          { weight: calm ? 6 : 1, arbitrary: fc.constant('application/json') },
          { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
        ),
        encodings,
      )
      .map(([t, contentType, encoding]) => ({ kind: 'text', text: t, contentType, ...(encoding ? { encoding } : {}) }))
  const shapedText = fromSchema(schema, profile).map((value) => JSON.stringify(value) ?? 'null')
  const rawKeys = fc
    .tuple(
      validFor((schema ?? NO_FIELDS) as Schema),
      fc.array(
        fc.tuple(
          fc.constantFrom('__proto__', 'constructor', 'prototype', 'site_name', 'original_site_url'),
          fc.jsonValue({ maxDepth: 2 }),
        ),
        { minLength: 1, maxLength: 2 },
      ),
    )
    .map(([value, extra]) => withRawKeys(value, extra))
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant<FuzzBody>({ kind: 'none' }) },
    { weight: calm ? 30 : 8, arbitrary: json(shapedText) },
    { weight: 2, arbitrary: json(fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v))) },
    { weight: 1, arbitrary: json(fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }).map((v) => JSON.stringify(v))) },
    { weight: 3, arbitrary: json(rawKeys) },
    {
      weight: 1,
      arbitrary: json(
        fc.constantFrom(
          deep(10_000, '[', ']'),
          deep(100_000, '{"a":', '}'),
          `{"site_data":${deep(50_000, '{"site_business_info":', '}', '{}')}}`,
          `[${deep(20_000, '{"site_name":', '}', '"x"')}]`,
          deep(200_000, '[', ']'),
        ),
      ),
    },
    {
      weight: 2,
      arbitrary: json(
        fc.oneof(
          fc.constantFrom(
            '',
            ' ',
            'null',
            '"text"',
            '42',
            'true',
            '{',
            '[1,]',
            "{'a':1}",
            'a=b&c=d',
            '<x/>',
            '\ufeff{}',
            '{"a":1}{"b":2}',
            '{"a":1e999}',
            '{"a":"\\ud800"}',
          ),
          fc.string({ unit: 'binary', maxLength: 40 }),
        ),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constant<FuzzBody>({
        kind: 'text',
        text: `{"x":"${'v'.repeat(1024 * 1024)}"}`,
        contentType: 'application/json',
      }),
    },
    { weight: calm ? 1 : 3, arbitrary: probeBody },
  )
}

/** The reliability probe's hostile bodies: forms smuggling JSON, control characters, lone surrogates, invalid UTF-8, names differing in case. */
const probeBody: fc.Arbitrary<FuzzBody> = fc.oneof(
  fc.constantFrom<FuzzBody>(
    {
      kind: 'text',
      text: '{"site_data":{"original_site_url":"https://probe.example/","site_name":"probeform","x":"="}}',
      contentType: 'text/plain',
    },
    { kind: 'text', text: '', contentType: 'application/x-www-form-urlencoded' },
    {
      kind: 'text',
      text: '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\n{}\r\n--xyz--\r\n',
      contentType: 'multipart/form-data; boundary=xyz',
    },
    {
      kind: 'text',
      text: '{"site_data":{"original_site_url":"https://probe.example/\\u0000"}}',
      contentType: 'application/json',
    },
    {
      kind: 'text',
      text: '{"site_data":{"original_site_url":"https://probe.example/","site_vertical":"\\ud800"}}',
      contentType: 'application/json',
    },
    { kind: 'text', text: '{"account_name":"probe\\u001b","first_name":"A"}', contentType: 'application/json' },
    {
      kind: 'text',
      text: '{"site_data":{"original_site_url":"https://probe.example/","site_vertical":"caf\u00e9"}}',
      contentType: 'application/json',
      latin1: true,
    },
  ),
  fc.tuple(fc.constantFrom('FUZZSITE', 'FuzzSite', 'Created', 'MODIFIED', 'BOBSITE', 'ANN'), fc.boolean()).map(
    ([name, site]): FuzzBody => ({
      kind: 'text',
      text: site
        ? JSON.stringify({ site_data: { site_name: name, original_site_url: 'https://probe.example/' } })
        : JSON.stringify({ account_name: name }),
      contentType: 'application/json',
    }),
  ),
  fc
    .tuple(
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.constantFrom('\u0000', '\ud800', '\udfff', '\u0007', '\t', '\u2028'),
    )
    .map(
      ([text, bad]): FuzzBody => ({
        kind: 'text',
        text: JSON.stringify({
          site_data: {
            original_site_url: 'https://probe.example/',
            site_business_info: { business_name: `${text}${bad}` },
          },
        }),
        contentType: 'application/json',
      }),
    ),
)

/** Browser headers: mostly none (an API client), sometimes those of a forged cross-site request, or of a same-origin page. */
export const browserHeaders: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({}) },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        'sec-fetch-site': fc.constantFrom('cross-site', 'same-site', 'same-origin', 'none', 'CROSS-SITE', ''),
        origin: fc.constantFrom('null', 'https://evil.example', 'http://127.0.0.1', 'file://'),
      },
      { requiredKeys: [] },
    ),
  },
)

/** The bytes and headers of a body. */
export function encodeBody(body: Extract<FuzzBody, { kind: 'text' }>): {
  data: Buffer
  headers: Record<string, string>
} {
  const headers: Record<string, string> = { 'content-type': body.contentType }
  let data = Buffer.from(body.text, body.latin1 ? 'latin1' : 'utf8')
  if (body.encoding === 'gzip') data = gzipSync(data)
  if (body.encoding) headers['content-encoding'] = body.encoding === 'gzip-broken' ? 'gzip' : body.encoding
  return { data, headers }
}

// ------------------------------------------------------------------ paths, queries, auth

/** The names a path parameter usually takes: those of its kind (any kind for unknown paths). */
function namesFor(param: string): readonly string[] {
  if (param.includes('site')) return SITES
  if (param.includes('account')) return ACCOUNTS
  if (param.includes('external')) return EXTERNAL_UIDS
  return [...SITES, ...ACCOUNTS, ...EXTERNAL_UIDS]
}

/** A path parameter, percent-encoded or deliberately raw. */
const segment = (param: string, profile: Profile): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: profile === 'routes' ? 24 : 6, arbitrary: fc.constantFrom(...namesFor(param)).map(percent) },
    { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,46}$/) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '',
        '__proto__',
        'constructor',
        'prototype',
        'toString',
        'hasOwnProperty',
        'created',
        'modified',
        'byexternal',
        '..',
        '.',
        '%2e%2e',
        '%2F',
        '%2F..%2F',
        '%00',
        '%',
        '%zz',
        '%E0%A4%A',
        '%C0%AF',
        '%FF',
        '%ED%A0%80',
        '%uD800',
        '%20',
        '+',
        'null',
        'undefined',
        'NaN',
        '-1',
        chars(3),
        chars(45),
        chars(46),
        chars(4000),
        percent('é'.repeat(600)),
        percent('__proto__') + '%00',
        'a%2Fb',
      ),
    },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }).map(percent) },
    {
      weight: 1,
      arbitrary: fc
        .uint8Array({ maxLength: 12 })
        .map((bytes) => Array.from(bytes, (b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
    },
  )

/** Templates outside the route table: unknown paths, near misses and the public document. */
const UNKNOWN = [
  '/',
  '/nope',
  '/sites',
  '/Sites/created',
  '/sites/:x/:y',
  '/sites/create/:x',
  '/accounts/grant-access/:a/sites',
  '/analytics',
  '/nope/:x',
  '/openapi.json',
  '/agents/:x',
]
/** Every path template the fuzz tries: the route table, /agents and the unknown ones. */
export const TEMPLATES = [...ROUTES.map((r) => r.path), AGENTS_PATH, ...UNKNOWN]

/** A path from a template: every `:param` replaced, sometimes with a trailing or doubled slash. */
export function pathFrom(template: string, profile: Profile): fc.Arbitrary<string> {
  const params = template.match(/:[a-z_]+/g) ?? []
  const tail = fc.oneof(
    { weight: 12, arbitrary: fc.constant('') },
    { weight: 1, arbitrary: fc.constantFrom('/', '//x', '/extra') },
  )
  return fc.tuple(fc.tuple(...params.map((param) => segment(param, profile))), tail).map(([values, end]) => {
    let i = 0
    return template.replace(/:[a-z_]+/g, () => values[i++]!) + (template === '/' ? '' : end)
  })
}

const QUERY_KEYS = [
  'from',
  'to',
  'dimension',
  'result',
  'test',
  'republish',
  'site_name',
  'from[x]',
  'from[]',
  'to[0]',
  '__proto__',
  '__proto__[polluted]',
  'constructor',
  'hasOwnProperty',
  '',
  'a.b',
  'now',
]
const QUERY_VALUES = [
  ...DATES,
  'true',
  'false',
  'TRUE',
  '1',
  'system',
  'geo',
  'traffic',
  'activities',
  'null',
  chars(2000),
]

type QueryPair = [key: string, value: string | undefined, rawKey: boolean]

/** `?k=v&...`; a raw key keeps its brackets unencoded (qs reads `from[x]` as an object). */
function encodeQuery(pairs: QueryPair[]): string {
  if (pairs.length === 0) return ''
  const parts = pairs.map(([key, value, rawKey]) => {
    const k = rawKey ? key.replace(/[^A-Za-z0-9_.[\]-]/g, (c) => percent(c)) : percent(key)
    return value === undefined ? k : `${k}=${percent(value)}`
  })
  return `?${parts.join('&')}`
}

/** The query pairs a client would send for a value: arrays repeat the key, objects use brackets, null has no value. */
function pairsOf(key: string, value: unknown): QueryPair[] {
  if (value === null) return [[key, undefined, false]]
  if (Array.isArray(value)) return value.flatMap((item) => pairsOf(key, item))
  if (typeof value === 'object')
    return Object.entries(value).flatMap(([sub, inner]) =>
      pairsOf(`${key}[${sub}]`, inner).map(([k, v]) => [k, v, true] as QueryPair),
    )
  return [[key, String(value), false]]
}

/** Random pairs: known and unknown keys, repeated keys, bracket keys and weird values. */
const randomPairs: fc.Arbitrary<QueryPair[]> = fc.array(
  fc.tuple(
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...QUERY_KEYS) },
      { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
    ),
    fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...QUERY_VALUES) },
      { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
    fc.boolean(),
  ),
  { maxLength: 5 },
)

/**
 * Longest query generated: a request whose head passes Node's 16 KB header
 * limit never reaches the API (the server answers 431 itself, see
 * test/server/limits.ts), so it would test Node, not the routes.
 */
const MAX_QUERY = 12 * 1024

/** A query string for a route: from its schema (valid, one thing wrong, or wild), random pairs, or both. */
export function queryFor(schema: unknown, profile: Profile): fc.Arbitrary<string> {
  const shaped = fromSchema(schema, profile).map((value) =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? Object.entries(value).flatMap(([k, v]) => pairsOf(k, v))
      : pairsOf('q', value),
  )
  return fc
    .oneof(
      { weight: 4, arbitrary: shaped },
      { weight: 2, arbitrary: randomPairs },
      { weight: 1, arbitrary: fc.tuple(shaped, randomPairs).map(([a, b]) => [...a, ...b]) },
    )
    .map(encodeQuery)
    .filter((query) => query.length <= MAX_QUERY)
}

/** Authorization headers: valid (mostly, to get past authentication), wrong, malformed or absent. */
const authorization = (profile: Profile): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    { weight: profile === 'routes' ? 40 : 10, arbitrary: fc.constant(basic('alice', PASSWORDS.alice)) },
    { weight: 3, arbitrary: fc.constant(basic('bob', PASSWORDS.bob)) },
    { weight: 3, arbitrary: fc.constant(basic('carol', PASSWORDS.carol)) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        undefined,
        basic('alice', 'wrong'),
        basic('mallory', PASSWORDS.alice),
        basic('__proto__', 'x'),
        basic('constructor', ''),
        basic('bob', 'b'),
        'Basic',
        'Basic ',
        'Basic !!!',
        `Basic ${b64('alice')}`,
        `Basic ${b64(':')}`,
        `Basic ${'A'.repeat(6000)}`,
        'Bearer token',
        'Digest username="alice"',
        `basic   ${b64(`alice:${PASSWORDS.alice}`)}`,
        `Basic ${b64(`alice:${PASSWORDS.alice}`)}====AAAA`,
        `Basic\t${b64(`alice:${PASSWORDS.alice}`)}`,
        `Basic ${b64(`alice:${PASSWORDS.alice}`)}==`,
        `Basic ${b64(`alice:${PASSWORDS.alice}`).replace(/=+$/, '')}`,
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
    {
      weight: 1,
      arbitrary: fc.uint8Array({ maxLength: 40 }).map((bytes) => `Basic ${Buffer.from(bytes).toString('base64')}`),
    },
  )

const METHODS = ['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE']

/** A short, replayable description of a request (bodies and long paths cut). */
export function describeRequest(req: FuzzRequest): string {
  const cut = (text: string, n: number): string =>
    text.length > n ? `${text.slice(0, n)}...(${text.length} chars)` : text
  const body =
    req.body.kind === 'none'
      ? 'no body'
      : `${req.body.contentType}${req.body.encoding ? ` (${req.body.encoding})` : ''}: ${cut(req.body.text, 200)}`
  const browser = Object.entries(req.browser)
    .map(([k, v]) => ` ${k}: ${v}`)
    .join('')
  return `${req.method} ${cut(`/api${req.path}${req.query}`, 300)} auth=${req.auth === undefined ? 'none' : cut(req.auth, 60)}${browser} ${body}${req.body.kind === 'text' && req.body.latin1 ? ' (latin1 bytes)' : ''}`
}

/**
 * A whole request, mostly with the template's own method (to reach its
 * handler), sometimes any other. It prints as {@link describeRequest}, so a
 * counterexample never dumps a 1 MiB body.
 */
export function fuzzRequest(templates: readonly string[], profile: Profile): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...templates).chain((template) => {
    const route = ROUTES.find((r) => r.path === template)
    const own = route?.method ?? 'GET'
    const takesBody = route !== undefined && (route.input === 'body' || route.input === 'optional-body')
    return fc
      .record({
        method: fc.oneof(
          { weight: profile === 'routes' ? 15 : 3, arbitrary: fc.constant(own) },
          { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
        ),
        template: fc.constant(template),
        path: pathFrom(template, profile),
        query:
          route?.input === 'query'
            ? queryFor(route.schema, profile)
            : fc.oneof(
                { weight: 1, arbitrary: queryFor(undefined, profile) },
                { weight: 3, arbitrary: fc.constant('') },
              ),
        body: takesBody
          ? bodyFor(route.schema, profile)
          : fc.oneof(
              { weight: 3, arbitrary: fc.constant<FuzzBody>({ kind: 'none' }) },
              { weight: 1, arbitrary: bodyFor(undefined, profile) },
            ),
        auth: authorization(profile),
        browser: browserHeaders,
        build: fc.constantFrom('succeed', 'succeed', 'succeed', 'FAILED_CONTENT_TOO_BIG', 'reject-plain' as const),
        // 'routes' stays within the seeded day (at most a minute a run from noon); 'hostile' crosses days.
        advance: fc.oneof(
          { weight: 9, arbitrary: fc.constant(0) },
          { weight: 1, arbitrary: fc.integer({ min: 1, max: profile === 'routes' ? 60 : 2 * 86_400 }) },
        ),
      })
      .map((req) =>
        Object.assign(req, {
          [fc.toStringMethod]: () => `${describeRequest(req)} [build ${req.build}, +${req.advance}s]`,
        }),
      )
  })
}
