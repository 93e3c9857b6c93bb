/**
 * Password hashes of master accounts. New hashes are scrypt (node:crypto),
 * written self-contained as `$scrypt$ln=15,r=8,p=1$<salt hex>$<key hex>` so a
 * record carries its own cost parameters and can be moved between stores as
 * one string. The older form (the record's `salt` plus hex SHA-256 of salt +
 * password) still verifies, and {@link needsRehash} says when to replace it.
 */
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto'

/** log2 of scrypt's N. 2^15 with r=8 uses 32 MiB and about 70 ms of one core per hash. */
const LOG_N = 15
const BLOCK = 8
const PARALLEL = 1
const KEY_BYTES = 32
const SALT_BYTES = 16
/** scrypt needs 128 * N * r bytes; Node's default ceiling (32 MiB) is just too small for N = 2^15. */
const MAX_MEMORY = 64 * 1024 * 1024

const SCRYPT_FORM = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([0-9a-f]{2,128})\$([0-9a-f]{32,256})$/

function derive(password: string, salt: Buffer, logN: number, r: number, p: number, bytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, bytes, { N: 2 ** logN, r, p, maxmem: MAX_MEMORY }, (error, key) =>
      error ? reject(error) : resolve(key),
    )
  })
}

/** A fresh scrypt hash of the password, and its salt (also kept in the record's `salt` field). */
export async function hashPassword(password: string): Promise<{ salt: string; password_hash: string }> {
  const salt = randomBytes(SALT_BYTES)
  const key = await derive(password, salt, LOG_N, BLOCK, PARALLEL, KEY_BYTES)
  const saltHex = salt.toString('hex')
  return {
    salt: saltHex,
    password_hash: `$scrypt$ln=${LOG_N},r=${BLOCK},p=${PARALLEL}$${saltHex}$${key.toString('hex')}`,
  }
}

let decoy: Promise<{ salt: string; password_hash: string }> | undefined

/**
 * A hash of a random password: unknown users are checked against it, so they
 * cost what a wrong password costs. Made on first use, not at import: a
 * scrypt is about 150 ms of CPU and 32 MiB, which every process importing the
 * package (and `npm start`, before its first answer) would otherwise pay.
 * Only the first check that needs it in a process also waits for it.
 */
export function decoyHash(): Promise<{ salt: string; password_hash: string }> {
  decoy ??= hashPassword(randomBytes(18).toString('base64'))
  return decoy
}

/** {@link decoyHash} as an awaitable value (`await DECOY_HASH`); made on first await. */
export const DECOY_HASH: PromiseLike<{ salt: string; password_hash: string }> = {
  // biome-ignore lint/suspicious/noThenProperty: a lazy thenable is the point.
  then: (onFulfilled, onRejected) => decoyHash().then(onFulfilled, onRejected),
}

/** Whether the stored hash is of an older form or weaker parameters than {@link hashPassword} writes. */
export function needsRehash(password_hash: string): boolean {
  const match = SCRYPT_FORM.exec(password_hash)
  return !match || Number(match[1]) < LOG_N || Number(match[2]) < BLOCK || Number(match[3]) < PARALLEL
}

/**
 * Whether the password matches the stored hash, compared in constant time.
 * A legacy SHA-256 record is checked and then also pays one scrypt of the
 * decoy, so neither form nor existence shows in the time taken. An
 * unreadable hash never matches (and costs the same).
 */
export async function verifyPassword(
  record: { salt: string; password_hash: string },
  password: string,
): Promise<boolean> {
  const match = SCRYPT_FORM.exec(record.password_hash)
  if (match) {
    const [, logN, r, p, saltHex, keyHex] = match
    const expected = Buffer.from(keyHex!, 'hex')
    const cost = { logN: Number(logN), r: Number(r), p: Number(p) }
    // Parameters from the store are bounded before use: a tampered record must not make scrypt allocate gigabytes.
    if (cost.logN >= 10 && cost.logN <= 20 && cost.r >= 1 && cost.r <= 16 && cost.p >= 1 && cost.p <= 4) {
      const key = await derive(password, Buffer.from(saltHex!, 'hex'), cost.logN, cost.r, cost.p, expected.length)
      return timingSafeEqual(key, expected)
    }
  }
  await verifyPassword(await decoyHash(), password)
  if (match || !/^[0-9a-f]{64}$/.test(record.password_hash)) return false
  const legacy = createHash('sha256').update(record.salt).update(password).digest()
  return timingSafeEqual(legacy, Buffer.from(record.password_hash, 'hex'))
}
