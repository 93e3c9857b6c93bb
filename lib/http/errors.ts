/**
 * How errors look on the wire (DESIGN.md): a status per error_code and the
 * JSON body `{ error_code, message }`, never a stack trace.
 */
import type { ErrorRequestHandler, Response } from 'express'
import { ServiceError, type ErrorCode } from '../errors.js'
import { StoreUnavailableError } from '../store/contract.js'

/** HTTP status of each error_code. */
export const STATUS: Record<ErrorCode, number> = {
  InvalidInput: 400,
  ResourceNotExist: 400,
  ResourceAlreadyExist: 400,
  Unauthorized: 401,
  AccessForbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  DailyLimitExceeded: 429,
  InternalError: 500,
  ServiceUnavailable: 503,
}

/** Sends a ServiceError with its status and the headers its code calls for. */
export function sendError(res: Response, error: ServiceError, status = STATUS[error.error_code]): void {
  if (error.error_code === 'Unauthorized') res.set('WWW-Authenticate', 'Basic realm="mobisite"')
  if (error.retryAfter !== undefined) res.set('Retry-After', String(error.retryAfter))
  res.status(status).json(error.toJSON())
}

/** Errors raised by express's body parser carry a `type` and a 4xx `status`. */
interface ParserError {
  type?: string
  status?: number
}

/**
 * Translates a body-parser or express error into a ServiceError with its
 * status. Only errors raised while reading the request qualify: the body
 * parser's (they carry a `type`) and the router's undecodable path parameter
 * (a URIError). Any other error with a `status` came from deeper down and is
 * unexpected (500), not the caller's fault.
 */
function fromParser(error: ParserError): [ServiceError, number] | undefined {
  if (error.type === 'entity.too.large') return [new ServiceError('InvalidInput', 'request body is larger than 1 MiB'), 413]
  if (error.type === 'entity.parse.failed') return [new ServiceError('InvalidInput', 'request body is not valid JSON'), 400]
  const fromRequest = typeof error.type === 'string' || error instanceof URIError
  if (fromRequest && typeof error.status === 'number' && error.status >= 400 && error.status < 500) {
    const message = error.type ? `request body could not be read (${error.type})` : 'malformed request'
    return [new ServiceError('InvalidInput', message), 400]
  }
  return undefined
}

/** The router's last handler: every failure becomes a JSON error body. */
export function errorHandler(onError: (error: unknown) => void): ErrorRequestHandler {
  return (error: unknown, _req, res, next) => {
    if (res.headersSent) return next(error)
    if (error instanceof ServiceError) return sendError(res, error)
    if (error instanceof StoreUnavailableError) {
      return sendError(res, new ServiceError('ServiceUnavailable', 'the store is unavailable; try again shortly'))
    }
    const parsed = fromParser((error ?? {}) as ParserError)
    if (parsed) return sendError(res, parsed[0], parsed[1])
    onError(error)
    sendError(res, new ServiceError('InternalError', 'unexpected error; it has been logged'))
  }
}
