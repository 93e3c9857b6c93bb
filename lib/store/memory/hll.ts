/**
 * A HyperLogLog sketch for MemoryAnalytics: the visitors of a site-day (and of
 * its cells) once they pass the store's `exactVisitors` threshold. Same
 * precision class as Redis' PFCOUNT: 2^14 registers, about 0.81 % standard
 * error, Ertl's improved estimator (the one Redis uses), so no bias at the
 * switch from small to large cardinalities.
 *
 * Registers are one byte each (16 KiB) rather than packed 6-bit (12 KiB): a
 * register update is then a plain typed-array store on the hot path, and
 * sketches exist only for site-days past the threshold.
 */

/** log2 of the register count. */
const P = 14
const M = 1 << P
/** Hash bits left for the rank (h2 is 32 bits): registers hold 0..Q+1. */
const Q = 32
const ALPHA_INF = 0.5 / Math.LN2
/**
 * Header of a MemoryStore sketch in a state dump (before base64, which the
 * state schema requires), so another store's sketch (Redis' starts "HYLL") is told apart.
 */
const HEADER = Buffer.from('MHL1', 'latin1')

/** The two 32-bit halves of the last {@link hashVisitor}: module state, so hashing allocates nothing. */
let h1 = 0
let h2 = 0

/** Hashes a visitor id (cyrb53-style, two 32-bit lanes: 64 bits, of which 46 are used). */
export function hashVisitor(id: string): void {
  let a = 0xdeadbeef
  let b = 0x41c6ce57
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i)
    a = Math.imul(a ^ c, 2654435761)
    b = Math.imul(b ^ c, 1597334677)
  }
  a = Math.imul(a ^ (a >>> 16), 2246822507) ^ Math.imul(b ^ (b >>> 13), 3266489909)
  b = Math.imul(b ^ (b >>> 16), 2246822507) ^ Math.imul(a ^ (a >>> 13), 3266489909)
  h1 = a >>> 0
  h2 = b >>> 0
}

function sigma(x: number): number {
  if (x === 1) return Number.POSITIVE_INFINITY
  let y = 1
  let z = x
  for (;;) {
    x *= x
    const before = z
    z += x * y
    y += y
    if (z === before) return z
  }
}

function tau(x: number): number {
  if (x === 0 || x === 1) return 0
  let y = 1
  let z = 1 - x
  for (;;) {
    x = Math.sqrt(x)
    const before = z
    y *= 0.5
    z -= (1 - x) ** 2 * y
    if (z === before) return z / 3
  }
}

/** A HyperLogLog sketch of visitor ids; see the module comment. */
export class Hll {
  readonly registers: Uint8Array

  constructor(registers?: Uint8Array) {
    this.registers = registers ?? new Uint8Array(M)
  }

  /** Adds the id hashed last by {@link hashVisitor}. */
  addHashed(): void {
    const index = h1 >>> (32 - P)
    const rank = Math.clz32(h2) + 1
    if (this.registers[index]! < rank) this.registers[index] = rank
  }

  /** Adds a visitor id. */
  add(id: string): void {
    hashVisitor(id)
    this.addHashed()
  }

  /** Makes this sketch the union of itself and `other`. */
  merge(other: Hll): void {
    const mine = this.registers
    const theirs = other.registers
    for (let i = 0; i < M; i++) if (theirs[i]! > mine[i]!) mine[i] = theirs[i]!
  }

  /** The estimated number of distinct ids added. */
  count(): number {
    const histogram = new Array<number>(Q + 2).fill(0)
    for (let i = 0; i < M; i++) histogram[this.registers[i]!]! += 1
    let z = M * tau((M - histogram[Q + 1]!) / M)
    for (let k = Q; k >= 1; k--) z = 0.5 * (z + histogram[k]!)
    z += M * sigma(histogram[0]! / M)
    return Math.round((ALPHA_INF * M * M) / z)
  }

  /** The sketch as a dump string: base64 of the header and the registers. */
  toDump(): string {
    return Buffer.concat([HEADER, this.registers]).toString('base64')
  }

  /** A sketch from {@link toDump}'s string, or undefined when it is not one. */
  static fromDump(text: string): Hll | undefined {
    const bytes = Buffer.from(text, 'base64')
    if (bytes.length !== HEADER.length + M || !bytes.subarray(0, HEADER.length).equals(HEADER)) return undefined
    const registers = new Uint8Array(bytes.subarray(HEADER.length))
    return registers.some((r) => r > Q + 1) ? undefined : new Hll(registers)
  }
}
