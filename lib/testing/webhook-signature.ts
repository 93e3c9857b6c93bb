/**
 * Duda's webhook signature, which the test double's deliveries carry when
 * their webhook has a secret: `x-duda-signature` is
 * base64(HMAC-SHA256(secret, timestamp + "." + body)), where the timestamp is
 * the `x-duda-signature-timestamp` header (epoch milliseconds) and the body
 * the exact bytes received. The secret is used as its UTF-8 bytes: that is
 * what reproduces the worked example of Duda's documentation (secret
 * `mysecretsecret`, timestamp 1570350275357, body
 * `{'key1':'world','key2':'world'}` give `+DCfT1wIMUiaZnlZB4u59/d5wkXKA89lv67Ov66vnyc=`).
 */
import { createHmac, timingSafeEqual } from 'node:crypto'

/** The header holding the signature. */
export const SIGNATURE_HEADER = 'x-duda-signature'
/** The header holding the timestamp the signature covers. */
export const SIGNATURE_TIMESTAMP_HEADER = 'x-duda-signature-timestamp'

/** The signature of a delivery: base64 of HMAC-SHA256 over `${timestamp}.${body}`. */
export function signWebhook(secret: string, timestamp: string | number, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('base64')
}

/**
 * Whether a received delivery carries the signature `secret` gives it: pass
 * the two headers as received and the raw body. Compares in constant time.
 */
export function verifyWebhook(
  secret: string,
  headers: { signature: string | undefined; timestamp: string | undefined },
  body: string | Buffer,
): boolean {
  if (headers.signature === undefined || headers.timestamp === undefined) return false
  const expected = Buffer.from(signWebhook(secret, headers.timestamp, body))
  const given = Buffer.from(headers.signature)
  return given.length === expected.length && timingSafeEqual(given, expected)
}
