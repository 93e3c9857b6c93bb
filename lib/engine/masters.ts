/**
 * Master accounts: who may call the API. Passwords are kept as salted SHA-256
 * and compared in constant time; an unknown user costs the same as a wrong password.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { invalidInput } from '../errors.js'
import type { Store } from '../store/contract.js'
import type { Caller } from './types.js'

function hash(salt: string, password: string): Buffer {
  return createHash('sha256').update(salt).update(password).digest()
}

/** A stand-in record so unknown users take as long as known ones. */
const DECOY = { salt: randomBytes(16).toString('hex'), password_hash: randomBytes(32).toString('hex') }

/** Adds or replaces a master account. */
export async function addMasterAccount(
  store: Store,
  account: { user: string; password: string; partner?: boolean },
): Promise<void> {
  const { user, password, partner = false } = account ?? {}
  // HTTP Basic splits at the first ':', so a user name holding one could never log in.
  if (typeof user !== 'string' || user === '' || user.includes(':')) {
    throw invalidInput('user must be a non-empty string without ":"')
  }
  if (typeof password !== 'string' || password === '') throw invalidInput('password must be a non-empty string')
  if (typeof partner !== 'boolean') throw invalidInput('partner must be a boolean')
  const salt = randomBytes(16).toString('hex')
  await store.putMaster({ user, partner, salt, password_hash: hash(salt, password).toString('hex') })
}

/** The caller for these credentials, or undefined. */
export async function authenticate(store: Store, user: string, password: string): Promise<Caller | undefined> {
  const master = await store.getMaster(user)
  const { salt, password_hash } = master ?? DECOY
  const matches = timingSafeEqual(hash(salt, password), Buffer.from(password_hash, 'hex'))
  return master && matches ? { user: master.user, partner: master.partner } : undefined
}
