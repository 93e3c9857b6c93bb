/**
 * One delivery attempt of a test-double webhook over the wire: a POST with
 * a deadline, and why an attempt failed in a few words (webhooks.ts logs it).
 */
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { guardedLookup } from './webhook-destination.js'

/** How long an attempt may wait for an answer; past it, it failed. */
export const ATTEMPT_TIMEOUT_MS = 10_000

/** Why an attempt got no answer, in a few words. */
export function failureOf(error: unknown): string {
  const { name, message, code } = error as { name?: string; message?: string; code?: string }
  if (name === 'AbortError' || name === 'TimeoutError') return `no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`
  return code ? `${code}: ${message}` : (message ?? String(error))
}

/**
 * POSTs the body and resolves with the answer's status, on node:http rather
 * than fetch, which refuses some ports (6000, 6665...) a local receiver may
 * use. No connection is kept alive; the answer's body is read and dropped.
 */
export function post(
  url: string,
  headers: Record<string, string>,
  body: string,
  lookup: ReturnType<typeof guardedLookup>,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = (url.toLowerCase().startsWith('https:') ? httpsRequest : httpRequest)(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent: false,
      lookup,
      signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
    })
    request.once('response', (answer) => {
      answer.resume()
      answer.once('error', () => {})
      resolve(answer.statusCode ?? 0)
    })
    request.once('error', reject)
    request.end(body)
  })
}
