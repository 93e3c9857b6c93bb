/**
 * Package-internal access to an engine's context (store, clock, builder), for
 * the layers above the engine that must steer or read it directly: the
 * test-double controls, the dashboard and the CLI. Not exported from the
 * package root; users go through the Engine interface.
 */
import { randomUUID } from 'node:crypto'
import { type BeaconRecorder, beaconRecorder } from './recording/beacon-recorder.js'
import type { EngineContext } from './context.js'
import { ServiceError } from '../errors.js'
import type { Credentials, LoginClient } from './auth/masters.js'
import { unavailable } from './shared/outage.js'
import { ClientGoneError } from './auth/password-gate.js'
import { uuidFrom } from './shared/random.js'
import type { Caller, Engine } from './types.js'

export type { BeaconRecorder, Credentials, LoginClient }

const contexts = new WeakMap<Engine, EngineContext>()

/** Called once by createEngine. */
export function registerContext(engine: Engine, ctx: EngineContext): void {
  contexts.set(engine, ctx)
}

/** The context of an engine made by createEngine; throws for any other object. */
export function contextOf(engine: Engine): EngineContext {
  const ctx = contexts.get(engine)
  if (!ctx) throw new TypeError('not an engine made by createEngine()')
  return ctx
}

/**
 * A source of fresh random UUIDs from the engine's randomness (repeatable
 * under `randomSeed`), or from node:crypto for an object that is not an
 * engine. Resolved once, as the collector draws one per new visitor.
 */
export function uuidSourceOf(engine: object): () => string {
  const ctx = contexts.get(engine as Engine)
  if (ctx === undefined) return randomUUID
  const random = ctx.randomBytes
  return () => uuidFrom(random)
}

/**
 * Counts a beacon a collector answered but dropped (`queue`: its bound of
 * pending recordings reached; `rate`: the client's beacons per minute) in the
 * engine's recording counters; nothing for an object that is not an engine.
 */
export function countBeaconDrop(engine: object, reason: 'queue' | 'rate'): void {
  contexts.get(engine as Engine)?.recorder.countDropped(reason)
}

/**
 * A recorder of beacons without a promise per event (see
 * {@link beaconRecorder}) for an engine made by createEngine; undefined for
 * any other object, whose `recordVisit` / `recordActivity` are used instead.
 * `settled` must not throw: it runs inside the recording queue.
 */
export function beaconRecorderOf(engine: object, settled: (error?: unknown) => void): BeaconRecorder | undefined {
  const ctx = contexts.get(engine as Engine)
  return ctx && beaconRecorder(ctx, settled)
}

/** Checks encoded credentials; see {@link tokenAuthenticator}. */
export type TokenAuthenticator = (
  token: string,
  decode: (token: string) => Credentials | undefined,
  client?: LoginClient,
) => Readonly<Caller> | undefined | Promise<Readonly<Caller> | undefined>

/** A check skipped because its client went away: answered (to nobody) as 503. */
function gone(error: unknown): never {
  if (error instanceof ClientGoneError) {
    throw new ServiceError('ServiceUnavailable', 'the client went away before its password check', { cause: error })
  }
  return unavailable(error)
}

/**
 * How a layer above the engine checks credentials that arrive encoded (the
 * token of an HTTP Basic header): for an engine made by createEngine, a
 * verdict cached for the same token is answered synchronously (see
 * MasterRegistry.authenticateToken), and a store outage while checking is
 * ServiceUnavailable as with `engine.authenticate`. `client` (IP and an
 * AbortSignal for "the client went away") brings the failed-login limits
 * and lets a queued check be skipped. Any other Engine is asked
 * through `authenticate` after decoding.
 */
export function tokenAuthenticator(engine: Engine): TokenAuthenticator {
  const ctx = contexts.get(engine)
  if (!ctx) {
    return (token, decode) => {
      const credentials = decode(token)
      return credentials && engine.authenticate(credentials.user, credentials.password)
    }
  }
  return (token, decode, client) => {
    const verdict = ctx.masters.authenticateToken(token, decode, client)
    return verdict instanceof Promise ? verdict.catch(gone) : verdict
  }
}
