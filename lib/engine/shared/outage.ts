/**
 * The one place where a store outage becomes the caller's error: a
 * StoreUnavailableError from any store is ServiceUnavailable (HTTP 503). The
 * engine wraps every operation with {@link guard}; layers above it that reach
 * the store through contextOf (the test-double controls, the dashboard) use
 * the same functions, and the HTTP error handler asks {@link asServiceError}
 * instead of knowing the store's error class.
 */
import { ServiceError } from '../../errors.js'
import { StoreUnavailableError } from '../../store/contract/index.js'

/** Whether a failure is a store outage (for health checks that report it rather than fail). */
export function isOutage(error: unknown): boolean {
  return error instanceof StoreUnavailableError
}

/** ServiceUnavailable for a store outage; any other value unchanged. */
export function asServiceError(error: unknown): unknown {
  if (isOutage(error)) {
    return new ServiceError('ServiceUnavailable', 'the store is unavailable; try again shortly', { cause: error })
  }
  return error
}

/** Rethrows with a store outage turned into ServiceUnavailable. */
export function unavailable(error: unknown): never {
  throw asServiceError(error)
}

/**
 * Runs `work` with {@link unavailable} on its failures. A plain `catch` on the
 * returned promise rather than an async wrapper: the recording methods run
 * hundreds of thousands of times a second, and each layer of async costs.
 */
export function guard<T>(work: () => Promise<T>): Promise<T> {
  try {
    return work().catch(unavailable)
  } catch (error) {
    return Promise.reject(error).catch(unavailable)
  }
}
