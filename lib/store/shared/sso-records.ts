/**
 * What every store keeps of a sign-in token or session: the grant's own
 * fields, nothing else a caller passed, and (for stores that expire records
 * on their own clock) a life long enough that the engine clock decides.
 */
import type { SsoGrant } from '../contract/index.js'

/** Kept past a record's remaining life, so an engine clock a little behind the store's never loses one early. */
const TTL_MARGIN_MS = 60_000

/** How long, in ms of the store's own clock, a record that dies at `expires_at` on the engine clock is kept. */
export function keepFor(expires_at: number, now: number): number {
  return Math.max(1, Math.ceil(expires_at - now)) + TTL_MARGIN_MS
}

/** Only the grant's own fields, in a fixed order. */
export function grantOf(record: SsoGrant): SsoGrant {
  const { account_name, owner, incarnation, target, site_name } = record
  return site_name === undefined
    ? { account_name, owner, incarnation, target }
    : { account_name, owner, incarnation, target, site_name }
}
