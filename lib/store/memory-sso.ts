/**
 * MemoryStore's single sign-on tokens and dashboard sessions. Each operation
 * is synchronous from its read to its write, so a redemption is atomic: no
 * other call can run between finding the token and removing it.
 */
import type { SsoGrant, SsoRecord } from './contract.js'

/** Records kept before a sweep of the expired ones is considered. */
const SWEEP_FLOOR = 1024

/** A map of records that die at `expires_at` on the engine clock. */
class ExpiringRecords {
  private readonly records = new Map<string, SsoRecord>()
  /** Size after the last sweep: the next one runs when the map has doubled. */
  private swept = 0

  set(digest: string, record: SsoRecord, now: number): void {
    this.records.set(digest, record)
    if (this.records.size > Math.max(SWEEP_FLOOR, this.swept * 2)) this.sweep(now)
  }

  /** The live record, or undefined; a dead one is dropped on the way. */
  live(digest: string, now: number): SsoRecord | undefined {
    const record = this.records.get(digest)
    if (record === undefined) return undefined
    if (now < record.expires_at) return record
    this.records.delete(digest)
    return undefined
  }

  take(digest: string): SsoRecord | undefined {
    const record = this.records.get(digest)
    this.records.delete(digest)
    return record
  }

  delete(digest: string): boolean {
    return this.records.delete(digest)
  }

  clear(): void {
    this.records.clear()
  }

  /** Amortised O(1) per insert: a full pass only when the map has doubled since the last one. */
  private sweep(now: number): void {
    for (const [digest, record] of this.records) if (record.expires_at <= now) this.records.delete(digest)
    this.swept = this.records.size
  }
}

/** Copies only the grant's own fields, so nothing else a caller passed is kept. */
function grantOf(record: SsoGrant): SsoGrant {
  const grant: SsoGrant = {
    account_name: record.account_name,
    owner: record.owner,
    incarnation: record.incarnation,
    target: record.target,
  }
  if (record.site_name !== undefined) grant.site_name = record.site_name
  return grant
}

/** The tokens and sessions of one MemoryStore. */
export class MemorySso {
  private readonly tokens = new ExpiringRecords()
  private readonly sessions = new ExpiringRecords()

  issue(digest: string, token: SsoRecord, now: number): void {
    this.tokens.set(digest, { ...grantOf(token), expires_at: token.expires_at }, now)
  }

  redeem(digest: string, now: number, session_digest: string, session_expires_at: number): SsoGrant | undefined {
    const token = this.tokens.take(digest)
    if (token === undefined || now >= token.expires_at) return undefined
    const grant = grantOf(token)
    this.sessions.set(session_digest, { ...grant, expires_at: session_expires_at }, now)
    return grant
  }

  session(digest: string, now: number): SsoRecord | undefined {
    const session = this.sessions.live(digest, now)
    return session && { ...session }
  }

  endSession(digest: string): boolean {
    return this.sessions.delete(digest)
  }

  clear(): void {
    this.tokens.clear()
    this.sessions.clear()
  }
}
