/**
 * The accounts part of the Store contract: master accounts (who may call the
 * API), sub-user accounts, their grants of sites, and the limit counters.
 * Conventions: see index.ts.
 */
import type { Lang } from '../../../types/index.js'
import type { Operations } from './shared.js'

/** A sub-user account as the store keeps it. */
export interface AccountRecord {
  account_name: string
  /** The master user that created it. */
  owner: string
  first_name?: string
  last_name?: string
  email?: string
  lang?: Lang
  created_at: number
  /**
   * A random id given when the account is created. Sign-in sessions carry it,
   * so an account deleted and re-created under the same name (even within
   * the same millisecond of a frozen test clock) does not inherit them.
   * Absent on accounts created without one; stores keep it like any field.
   */
  incarnation?: string
}

/** A partial update of an account; `null` removes the field. */
export type AccountPatch = {
  [K in 'first_name' | 'last_name' | 'email' | 'lang']?: AccountRecord[K] | null
}

/** A master account: who may call the API. */
export interface MasterRecord {
  user: string
  partner: boolean
  /** Hex salt (the one inside an scrypt `password_hash`, or the salt of an older SHA-256 hash). */
  salt: string
  /**
   * `$scrypt$ln=..,r=..,p=..$<salt hex>$<key hex>`, or, from older versions,
   * hex SHA-256 of salt + password (upgraded on the next successful login).
   * The store keeps it as an opaque string.
   */
  password_hash: string
}

/** Result of {@link AccountsStore.grantAccess} and {@link AccountsStore.revokeAccess}. */
export type GrantOutcome = 'ok' | 'no-account' | 'no-site'

/**
 * Result of {@link AccountsStore.getGrant}: the grant's permissions (`null`: every
 * permission, as a grant made by Grant Access holds), `'no-grant'` when the
 * owner's account and site exist but are not granted, else why not.
 */
export type GrantLookup = { permissions: string[] | null } | 'no-grant' | 'no-account' | 'no-site'

/** Result of {@link AccountsStore.incrementWithinLimit}. */
export interface LimitOutcome {
  /** True when the call fits within the limit and was counted. */
  allowed: boolean
  /** The count after this call (a refused call is not counted). */
  count: number
}

/** Master accounts, sub-user accounts, grants and the limit counters. */
export interface AccountsStore {
  // Master accounts
  /** Adds or replaces a master account. */
  putMaster(master: MasterRecord): Promise<void>
  getMaster(user: string): Promise<MasterRecord | undefined>
  /**
   * Writes the master only if the stored one's password_hash equals
   * `expected_hash`, or, when `expected_hash` is null, only if no master has
   * that user. One atomic step; true when written. Lets the engine upgrade a
   * hash or re-create a lost master without overwriting what another
   * instance wrote meanwhile.
   */
  putMasterIf(master: MasterRecord, expected_hash: string | null): Promise<boolean>

  // Sub-user accounts
  /** Creates the account if no account has its name (names are global). False when taken. */
  createAccount(account: AccountRecord): Promise<boolean>
  getAccount(account_name: string): Promise<AccountRecord | undefined>
  updateAccount(owner: string, account_name: string, patch: AccountPatch): Promise<boolean>
  /** Deletes the owner's account and its grants. False when not found. */
  deleteAccount(owner: string, account_name: string): Promise<boolean>
  /**
   * Grants when both the account and the site exist and are the owner's;
   * idempotent. `permissions` (today's Duda API) replaces the grant's
   * permissions; without it the grant holds every permission, whatever it
   * held before. The permission list is kept as given (the engine normalises it).
   */
  grantAccess(owner: string, account_name: string, site_name: string, permissions?: string[]): Promise<GrantOutcome>
  /** The permissions of one grant of the owner's, under the same checks as grantAccess. */
  getGrant(owner: string, account_name: string, site_name: string): Promise<GrantLookup>
  /** Revokes under the same checks; revoking a missing grant is 'ok'. */
  revokeAccess(owner: string, account_name: string, site_name: string): Promise<GrantOutcome>
  /** Sites granted to the owner's account, sorted; undefined when the account is not the owner's. */
  listGrants(owner: string, account_name: string): Promise<string[] | undefined>

  // Limits
  /**
   * Atomically counts one call against `key` unless the count has reached
   * `limit`. The counter may be dropped after `expiresAt` (epoch ms), but
   * correctness never depends on expiry: the engine puts the period in the key.
   */
  incrementWithinLimit(key: string, limit: number, expiresAt: number): Promise<LimitOutcome>
}

/** The methods of {@link AccountsStore}, as {@link Operations} lists them. */
export const ACCOUNTS_OPERATIONS = {
  putMaster: 'write',
  getMaster: 'read',
  putMasterIf: 'write',
  createAccount: 'write',
  getAccount: 'read',
  updateAccount: 'write',
  deleteAccount: 'write',
  grantAccess: 'write',
  getGrant: 'read',
  revokeAccess: 'write',
  listGrants: 'read',
  incrementWithinLimit: 'write',
} as const satisfies Operations<AccountsStore>
