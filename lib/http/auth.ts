/**
 * HTTP Basic authentication of master accounts: the credentials
 * are split at the first ':', so passwords may hold ':'.
 */
import type { Request, RequestHandler } from 'express'
import type { Caller, Engine } from '../engine/types.js'
import { ServiceError } from '../errors.js'

/** `Basic ` and canonical base64: the standard alphabet, padding required, nothing after it, no whitespace. */
const BASIC = /^basic ((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/i

const UTF8 = new TextDecoder('utf-8', { fatal: true })

/**
 * Decodes `Authorization: Basic ...` into user and password, or undefined.
 * Only canonical base64 of valid UTF-8 is read: Node's lenient decoder would
 * otherwise accept many spellings of one credential (`...====AAAA`, stray
 * bits, whitespace), which hides probes and makes cache keys ambiguous.
 */
export function parseBasic(header: string | undefined): { user: string; password: string } | undefined {
  const match = header === undefined ? null : BASIC.exec(header)
  if (!match) return undefined
  const bytes = Buffer.from(match[1]!, 'base64')
  // The unused low bits of the last character must be zero, or two encodings give one value.
  if (bytes.toString('base64') !== match[1]) return undefined
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

/** The master account these request credentials belong to; Unauthorized (401) otherwise. */
export async function authenticateRequest(engine: Engine, req: Request): Promise<Caller> {
  const credentials = parseBasic(req.headers.authorization)
  const caller = credentials && (await engine.authenticate(credentials.user, credentials.password))
  if (!caller) throw new ServiceError('Unauthorized', 'valid HTTP Basic credentials of a master account are required')
  return caller
}

/** Middleware form of {@link authenticateRequest}: puts the Caller in `res.locals.caller`, or answers 401. */
export function basicAuth(engine: Engine): RequestHandler {
  return async (req, res, next) => {
    res.locals.caller = await authenticateRequest(engine, req)
    next()
  }
}
