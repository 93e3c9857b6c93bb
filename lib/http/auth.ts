/**
 * HTTP Basic authentication of master accounts (DESIGN.md): the credentials
 * are split at the first ':', so passwords may hold ':'.
 */
import type { RequestHandler } from 'express'
import type { Engine } from '../engine/types.js'
import { ServiceError } from '../errors.js'

/** Decodes `Authorization: Basic ...` into user and password, or undefined. */
export function parseBasic(header: string | undefined): { user: string; password: string } | undefined {
  const match = header === undefined ? null : /^Basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*$/i.exec(header)
  if (!match) return undefined
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) return undefined
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

/** Puts the authenticated Caller in `res.locals.caller`, or answers 401. */
export function basicAuth(engine: Engine): RequestHandler {
  return async (req, res, next) => {
    const credentials = parseBasic(req.get('authorization'))
    const caller = credentials && (await engine.authenticate(credentials.user, credentials.password))
    if (!caller) throw new ServiceError('Unauthorized', 'valid HTTP Basic credentials of a master account are required')
    res.locals.caller = caller
    next()
  }
}
