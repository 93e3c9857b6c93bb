/**
 * The one error type of mobisite and the registry of its error codes. The
 * engine throws ServiceError for every rule it enforces; the HTTP layer answers
 * with the status the registry gives the code. The same registry drives the
 * OpenAPI `error_code` enum and docs/errors.md.
 */

/** What the registry says about one error code. */
export interface ErrorCodeInfo {
  /** The HTTP status it is answered with. */
  readonly status: number
  /** Other statuses the same code is answered with, and when. */
  readonly alsoStatus?: Readonly<Record<number, string>>
  /** When it happens, for the reference docs. */
  readonly meaning: string
  /** Response headers that come with it. */
  readonly headers?: readonly string[]
}

/**
 * Every `error_code` the service answers with: code → status → meaning.
 * Add a code here (and nowhere else) to make it exist.
 */
export const ERROR_CODES = {
  InvalidInput: {
    status: 400,
    alsoStatus: { 413: 'the request body is larger than the limit (1 MiB by default)' },
    meaning:
      'The request is malformed or breaks a rule: bad JSON, an unknown field or query parameter, a value of the wrong type, ' +
      'out of its limits or not a real date, `from` after `to`. The message names the field. The standalone server also ' +
      'answers it for requests Node itself refuses (400 malformed, 431 headers too large).',
  },
  ResourceNotExist: {
    status: 400,
    meaning:
      'The site or account named does not exist, or belongs to another master account (the two are not told apart).',
  },
  ResourceAlreadyExist: {
    status: 400,
    meaning:
      'The site or account name is taken (names are unique across all master accounts, regardless of letter case).',
  },
  Unauthorized: {
    status: 401,
    meaning: 'The HTTP Basic credentials of a master account are missing or wrong.',
    headers: ['WWW-Authenticate'],
  },
  AccessForbidden: {
    status: 403,
    meaning:
      'The master account may not do this: Accounts endpoints need a partner account, and a state-changing request ' +
      'from a browser page of another origin is refused.',
  },
  NotFound: {
    status: 404,
    meaning: 'Nothing is served at this path.',
  },
  MethodNotAllowed: {
    status: 405,
    meaning: 'The path exists but not with this method; the message and the `Allow` header name the methods it takes.',
    headers: ['Allow'],
  },
  RequestTimeout: {
    status: 408,
    meaning: 'The request was not received in time (standalone server).',
  },
  UnsupportedMediaType: {
    status: 415,
    meaning: 'The request carries a body or a Content-Type that is not `application/json` (charset utf-8 or none).',
  },
  DailyLimitExceeded: {
    status: 429,
    meaning:
      'The master account has used its 300 calls of this analytics method for the UTC day; `Retry-After` gives the seconds ' +
      'to the next UTC midnight.',
    headers: ['Retry-After'],
  },
  TooManyRequests: {
    status: 429,
    meaning:
      'Too many calls or failed logins. Past the per-account rate limit (off unless the server sets one, as Duda ' +
      'applies 10 calls per second) the master account gets this until its second has passed. Past the failed-login ' +
      'limits (by default 10 per minute per client IP and 5 per user name and IP) any credential that is not already ' +
      'known to be valid gets this without a password check. `Retry-After` gives the seconds to wait.',
    headers: ['Retry-After'],
  },
  InternalError: {
    status: 500,
    meaning: 'An unexpected failure. It is reported to the `onError` option; the body never holds a stack trace.',
  },
  ServiceUnavailable: {
    status: 503,
    meaning:
      'The store cannot be reached, or too many password checks are already waiting (then with `Retry-After`); ' +
      'try again shortly.',
  },
} as const satisfies Record<string, ErrorCodeInfo>

/** Every `error_code` the service answers with. */
export type ErrorCode = keyof typeof ERROR_CODES

/** The codes of {@link ERROR_CODES}, in registry order. */
export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as ErrorCode[]

/** The HTTP status of an error code. */
export function statusOf(code: ErrorCode): number {
  return ERROR_CODES[code].status
}

/**
 * Marks every ServiceError, whichever copy of the package made it: the ESM and
 * CJS builds each define their own class, and an application may load both
 * (directly and through a dependency). `Symbol.for` is shared by the realm.
 */
const BRAND = Symbol.for('mobisite.ServiceError')

/**
 * A failure the caller can act on: `{ error_code, message }` on the wire.
 * `error instanceof ServiceError` holds for errors from either module format.
 */
export class ServiceError extends Error {
  /** Recognises ServiceErrors of every copy of the package by their brand. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // A subclass keeps ordinary instanceof semantics.
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class instanceof was asked about, maybe a subclass
    if (this !== ServiceError) return Function.prototype[Symbol.hasInstance].call(this, value)
    return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true
  }

  /** Machine-readable name, e.g. `ResourceNotExist`. */
  readonly error_code: ErrorCode
  /** Seconds until the call may succeed again (DailyLimitExceeded, TooManyRequests). */
  readonly retryAfter?: number

  constructor(error_code: ErrorCode, message: string, options?: { retryAfter?: number; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'ServiceError'
    this.error_code = error_code
    if (options?.retryAfter !== undefined) this.retryAfter = options.retryAfter
  }

  /** The JSON error body: `{ error_code, message }`. */
  toJSON(): { error_code: ErrorCode; message: string } {
    return { error_code: this.error_code, message: this.message }
  }
}

Object.defineProperty(ServiceError.prototype, BRAND, { value: true })

/** Shorthands for the errors the engine raises most. */
export const invalidInput = (message: string): ServiceError => new ServiceError('InvalidInput', message)
export const notExist = (message: string): ServiceError => new ServiceError('ResourceNotExist', message)
export const alreadyExist = (message: string): ServiceError => new ServiceError('ResourceAlreadyExist', message)
