/**
 * HTTP Basic authentication of master accounts: the credentials
 * are split at the first ':', so passwords may hold ':'.
 */
import type { Request, RequestHandler } from 'express'
import {
  type Credentials,
  type LoginClient,
  type TokenAuthenticator,
  tokenAuthenticator,
} from '../engine/context-access.js'
import type { Caller, Engine } from '../engine/types.js'
import { ServiceError } from '../errors.js'

/** The scheme of HTTP Basic, in any letter case, and the one space before the token. */
const SCHEME = /^basic /i

/** Canonical base64: the standard alphabet, padding required, nothing after it, no whitespace. */
const TOKEN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

const UTF8 = new TextDecoder('utf-8', { fatal: true })

/** The token of `Authorization: Basic <token>`, not yet checked, or undefined for another scheme. */
function basicToken(header: string | undefined): string | undefined {
  return header !== undefined && SCHEME.test(header) ? header.slice(6) : undefined
}

/**
 * Decodes the token of a Basic header into user and password, or undefined.
 * Only canonical base64 of valid UTF-8 is read: Node's lenient decoder would
 * otherwise accept many spellings of one credential (`...====AAAA`, stray
 * bits, whitespace), which hides probes and makes cache keys ambiguous. So a
 * token that decodes stands for exactly one user and password, and back.
 */
function decodeBasicToken(token: string): Credentials | undefined {
  if (!TOKEN.test(token)) return undefined
  const bytes = Buffer.from(token, 'base64')
  // The unused low bits of the last character must be zero, or two encodings give one value.
  if (bytes.toString('base64') !== token) return undefined
  let decoded: string
  try {
    decoded = UTF8.decode(bytes)
  } catch {
    return undefined
  }
  const colon = decoded.indexOf(':')
  if (colon < 0) return undefined
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

/** Decodes `Authorization: Basic ...` into user and password, or undefined (see {@link decodeBasicToken}). */
export function parseBasic(header: string | undefined): Credentials | undefined {
  const token = basicToken(header)
  return token === undefined ? undefined : decodeBasicToken(token)
}

function unauthorized(): ServiceError {
  return new ServiceError('Unauthorized', 'valid HTTP Basic credentials of a master account are required')
}

/** Throws Unauthorized for no caller. */
function known(caller: Readonly<Caller> | undefined): Readonly<Caller> {
  if (!caller) throw unauthorized()
  return caller
}

/**
 * The client of a request as the failed-login limits and the password gate
 * see it, read only when a credential is not answered from the cache (a
 * getter, so the hot path builds no AbortController and reads no `req.ip`).
 */
class RequestClient implements LoginClient {
  private controller: AbortController | undefined

  constructor(private readonly req: Request) {}

  /** `req.ip`, so Express's `trust proxy` decides; a socket already closed has no address. */
  get ip(): string {
    return this.req.ip ?? this.req.socket?.remoteAddress ?? 'unknown'
  }

  /** Fires when the connection closes before the answer was written. */
  get signal(): AbortSignal {
    if (this.controller) return this.controller.signal
    const controller = new AbortController()
    this.controller = controller
    const res = this.req.res
    const socket = this.req.socket
    // Ended (FIN received) counts as gone: the server closes such a socket without answering.
    if (socket?.destroyed || socket?.readableEnded || res?.closed) controller.abort()
    else res?.once('close', () => res.writableFinished || controller.abort())
    return controller.signal
  }
}

/**
 * The master account these request credentials belong to; Unauthorized (401)
 * otherwise; TooManyRequests (429) past the failed-login limits, and
 * ServiceUnavailable (503) when the password gate's queue is full. Synchronous when the engine has a verdict for the same
 * credentials cached, a promise otherwise: a request pays no promise turns
 * for a cached check.
 */
export function requestCaller(
  authenticate: TokenAuthenticator,
  req: Request,
): Readonly<Caller> | Promise<Readonly<Caller>> {
  const token = basicToken(req.headers.authorization)
  const verdict = token === undefined ? undefined : authenticate(token, decodeBasicToken, new RequestClient(req))
  return verdict instanceof Promise ? verdict.then(known) : known(verdict)
}

/** The master account these request credentials belong to; Unauthorized (401) otherwise. */
export async function authenticateRequest(engine: Engine, req: Request): Promise<Caller> {
  return { ...(await requestCaller(tokenAuthenticator(engine), req)) }
}

/** Middleware form of {@link authenticateRequest}: puts the Caller in `res.locals.caller`, or answers 401. */
export function basicAuth(engine: Engine): RequestHandler {
  const authenticate = tokenAuthenticator(engine)
  // Express 4 does not catch a rejected middleware: a refusal goes to next() by hand.
  return async (req, res, next) => {
    let caller: Caller
    try {
      caller = { ...(await requestCaller(authenticate, req)) }
    } catch (error) {
      return next(error)
    }
    res.locals.caller = caller
    next()
  }
}
