/**
 * The one error type of mobisite. The engine throws it for every rule it
 * enforces; the HTTP layer maps `error_code` to a status (see lib/http/errors.ts).
 */

/** Every `error_code` the service answers with. */
export type ErrorCode =
  | 'InvalidInput'
  | 'ResourceNotExist'
  | 'ResourceAlreadyExist'
  | 'Unauthorized'
  | 'AccessForbidden'
  | 'DailyLimitExceeded'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'ServiceUnavailable'
  | 'InternalError'
  | 'UnsupportedMediaType'
  | 'RequestTimeout'

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
    if (this !== ServiceError) return Function.prototype[Symbol.hasInstance].call(this, value)
    return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true
  }

  /** Machine-readable name, e.g. `ResourceNotExist`. */
  readonly error_code: ErrorCode
  /** Seconds until the call may succeed again (DailyLimitExceeded). */
  readonly retryAfter?: number

  constructor(error_code: ErrorCode, message: string, options?: { retryAfter?: number; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'ServiceError'
    this.error_code = error_code
    if (options?.retryAfter !== undefined) this.retryAfter = options.retryAfter
  }

  /** The JSON error body of DESIGN.md. */
  toJSON(): { error_code: ErrorCode; message: string } {
    return { error_code: this.error_code, message: this.message }
  }
}

Object.defineProperty(ServiceError.prototype, BRAND, { value: true })

/** Shorthands for the errors the engine raises most. */
export const invalidInput = (message: string): ServiceError => new ServiceError('InvalidInput', message)
export const notExist = (message: string): ServiceError => new ServiceError('ResourceNotExist', message)
export const alreadyExist = (message: string): ServiceError => new ServiceError('ResourceAlreadyExist', message)
