/**
 * How errors look on the wire: a status per error_code and the
 * JSON body `{ error_code, message }`, never a stack trace.
 */
import type { ErrorRequestHandler, Response } from 'express'
import { ERROR_CODE_NAMES, ServiceError, statusOf, type ErrorCode } from '../errors.js'
import { asServiceError } from '../engine/shared/outage.js'
import { sendJson } from './reply.js'

/** HTTP status of each error_code, from the registry in lib/errors.ts. */
export const STATUS: Readonly<Record<ErrorCode, number>> = Object.fromEntries(
  ERROR_CODE_NAMES.map((code) => [code, statusOf(code)]),
) as Record<ErrorCode, number>

/** Sends a ServiceError with its status and the headers its code calls for. */
export function sendError(res: Response, error: ServiceError, status = STATUS[error.error_code]): void {
  if (error.error_code === 'Unauthorized') res.set('WWW-Authenticate', 'Basic realm="mobisite"')
  if (error.retryAfter !== undefined) res.set('Retry-After', String(error.retryAfter))
  // Read by the request journal of the test-double controls.
  res.locals.errorCode = error.error_code
  res.locals.errorMessage = error.message
  sendJson(res, status, error.toJSON())
}

/** A failure while reading the request body: always the caller's, never logged. */
export class BodyReadError extends Error {
  constructor(
    readonly service: ServiceError,
    readonly status: number,
  ) {
    super(service.message)
    this.name = 'BodyReadError'
  }
}

/**
 * Translates anything the body parser raised into the caller's error: 413 for
 * a body over the limit, 400 for the rest (bad JSON, a JSON value that is not
 * an object or array, bad compression, an unsupported charset or encoding).
 */
export function bodyReadError(error: unknown): BodyReadError {
  const type = (error as { type?: unknown } | null)?.type
  if (type === 'entity.too.large')
    return new BodyReadError(
      new ServiceError('InvalidInput', 'request body is larger than the limit (1 MiB by default)'),
      413,
    )
  // The body parser's verify step (utf8Body) throws the caller's error itself.
  if (type === 'entity.verify.failed' && error instanceof ServiceError) return new BodyReadError(error, 400)
  if (type === 'entity.parse.failed') {
    return new BodyReadError(new ServiceError('InvalidInput', 'request body is not a valid JSON object or array'), 400)
  }
  const reason = typeof type === 'string' ? type : ((error as Error | null)?.message ?? 'unreadable')
  return new BodyReadError(new ServiceError('InvalidInput', `request body could not be read (${reason})`), 400)
}

/** The router's last handler: every failure becomes a JSON error body. */
export function errorHandler(onError: (error: unknown) => void): ErrorRequestHandler {
  return (error: unknown, _req, res, next) => {
    if (res.headersSent) return next(error)
    if (error instanceof ServiceError) return sendError(res, error)
    // A store outage that reached here without the engine's guard: the engine says what it is.
    const mapped = asServiceError(error)
    if (mapped instanceof ServiceError) return sendError(res, mapped)
    if (error instanceof BodyReadError) return sendError(res, error.service, error.status)
    // The router's only own failure: a path parameter that is not valid percent-encoding.
    if (error instanceof URIError)
      return sendError(res, new ServiceError('InvalidInput', 'malformed percent-encoding in the path'))
    onError(error)
    sendError(res, new ServiceError('InternalError', 'unexpected error; it has been logged'))
  }
}
