/**
 * Direct serialization of API answers: one JSON.stringify and one res.end,
 * without Express's res.json/res.send pass (content negotiation of charset,
 * ETag hashing, freshness checks).
 *
 * API answers carry no ETag and never answer 304: they are per-caller,
 * authenticated and change with every write, the callers are programs that
 * do not send If-None-Match, and a body-hash ETag would cost a hash of every
 * answer to save nothing (the server must build the answer to hash it).
 * The wire format is fixed: compact JSON whatever the host app's
 * `json spaces` or `json replacer` settings.
 */
import type { Response } from 'express'

/** Answers `status` with `value` as JSON. HEAD answers get the same headers and no body (Node drops it). */
export function sendJson(res: Response, status: number, value: unknown): void {
  const body = JSON.stringify(value) ?? 'null'
  res.statusCode = status
  res.setHeader('Content-Type', 'application/json; charset=utf-8')
  res.setHeader('Content-Length', Buffer.byteLength(body))
  res.end(body)
}

/** Answers 204 No Content. */
export function sendEmpty(res: Response): void {
  res.statusCode = 204
  res.end()
}
