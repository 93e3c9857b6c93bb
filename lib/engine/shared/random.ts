/**
 * Where an engine's randomness comes from: node:crypto, or, with
 * `randomSeed`, a repeatable stream (SHA-256 of the seed and a block counter),
 * so a test suite sees the same generated site names and visitor ids on every
 * run. The seeded stream is predictable by design: never use it in production.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto'

/** A source of random bytes. */
export type RandomBytes = (size: number) => Buffer

/** node:crypto without a seed; otherwise a deterministic stream derived from it. */
export function randomSource(seed: string | number | undefined): RandomBytes {
  if (seed === undefined) return randomBytes
  const key = `mobisite:${typeof seed}:${String(seed)}:`
  let block = 0
  let pool = Buffer.alloc(0)
  return (size) => {
    while (pool.length < size) {
      pool = Buffer.concat([pool, createHash('sha256').update(`${key}${block++}`).digest()])
    }
    const out = pool.subarray(0, size)
    pool = pool.subarray(size)
    return Buffer.from(out)
  }
}

/** A version-4-shaped UUID drawn from `random`. */
export function uuidFrom(random: RandomBytes): string {
  // node:crypto's own UUIDs draw from a cached block of entropy: several times
  // cheaper than 16 fresh bytes (a visitor id per cookieless beacon adds up).
  if (random === randomBytes) return randomUUID()
  const b = random(16)
  b[6] = (b[6]! & 0x0f) | 0x40
  b[8] = (b[8]! & 0x3f) | 0x80
  const h = b.toString('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}
