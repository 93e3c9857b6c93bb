/**
 * MemoryStore's maps of sign-in tokens and dashboard sessions: records that
 * die at `expires_at` on the engine clock, swept now and then so dead ones do
 * not pile up.
 */
import type { SsoRecord } from '../contract/index.js'

/** Records kept before a sweep of the expired ones is considered. */
const SWEEP_FLOOR = 1024

/** A map of records that die at `expires_at` on the engine clock. */
export class ExpiringRecords {
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
