/**
 * Name claims: how a create that spans slots (the claim, the record, the
 * owner's indexes) still has exactly one winner and never leaves a visible
 * half state. The claim is taken first, in its own slot; the record, written
 * last, is the commit point. A claim whose record does not exist reads as
 * absent (nothing reads claims but creates) and, once older than the claim
 * timeout, is taken over by the next create of that name; the record step
 * refuses to write after half that time, so a slow create never meets the
 * create that took its claim over.
 */
import type { RedisConn } from './conn.js'
import { CLAIM, RELEASE } from './lua/claims.js'

/**
 * Claims `name` under `key`. Resolves to the claim's `at` (to pass to the
 * record step), or undefined when the name is held: by a record that exists
 * (`held` says so), or by a create still within `timeout` ms.
 */
export async function claimName(
  conn: RedisConn,
  key: string,
  name: string,
  timeout: number,
  held: (holder: string) => Promise<boolean>,
): Promise<string | undefined> {
  let expected = ''
  for (let attempt = 0; attempt < 3; attempt++) {
    const reply = (await conn.write(CLAIM, [key], [name, expected])) as string[]
    if (reply[0] === '') return reply[1]
    const [holder, at, now] = reply as [string, string, string]
    if (await held(holder)) return undefined
    if (Number(now) - Number(at) < timeout) return undefined
    expected = at // stale: take it over, unless another create did first
  }
  return undefined
}

/** Releases the claim if `name` (and the claim made at `at`, when known) still holds it. */
export async function releaseName(conn: RedisConn, key: string, name: string, at: string | undefined) {
  await conn.write(RELEASE, [key], [name, at ?? ''])
}
