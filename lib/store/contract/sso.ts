/**
 * The single sign-on part of the Store contract: sign-in tokens and the
 * dashboard sessions they are redeemed for. Conventions: see index.ts.
 */
import type { Operations } from './shared.js'

/** Where an SSO link lands: the dashboard, or one site's statistics page. */
export type SsoTarget = 'DASHBOARD' | 'STATS'

/**
 * What a single sign-on token grants, copied unchanged into the session it is
 * redeemed for. The session belongs to the account whatever the target.
 */
export interface SsoGrant {
  account_name: string
  /** The partner master account the sub-account belongs to. */
  owner: string
  /** The account's `AccountRecord.incarnation` when the token was issued. */
  incarnation: string
  target: SsoTarget
  /** The site of a `STATS` link. */
  site_name?: string
}

/** A token or a session as the store keeps it. */
export interface SsoRecord extends SsoGrant {
  /** Epoch ms on the ENGINE clock after which it is dead. */
  expires_at: number
}

/**
 * Single sign-on tokens and dashboard sessions. Both are keyed by a digest
 * (the engine hashes the secret), so the store never holds a usable secret.
 * Expiry is decided by the engine clock passed in `now`; a store may also
 * drop a record on its own clock, but no earlier than `expires_at - now` ms
 * after it was written.
 */
export interface SsoStore {
  /** Keeps a sign-in token under `digest` (a new, random digest: it replaces nothing). */
  issueSsoToken(digest: string, token: SsoRecord, now: number): Promise<void>
  /**
   * Redeems a token once, atomically: removes it and, if it was alive at
   * `now` (`now < expires_at`), keeps a session under `session_digest` holding
   * the token's grant and `session_expires_at`, and answers the grant.
   * Undefined when there was no such token or it had expired (it is removed
   * either way). Of any number of parallel redemptions, one at most succeeds.
   */
  redeemSsoToken(
    digest: string,
    now: number,
    session_digest: string,
    session_expires_at: number,
  ): Promise<SsoGrant | undefined>
  /** The session, or undefined when there is none or it has expired at `now`. */
  getSession(digest: string, now: number): Promise<SsoRecord | undefined>
  /** Ends a session. False when there was none. */
  deleteSession(digest: string): Promise<boolean>
}

/** The methods of {@link SsoStore}, as {@link Operations} lists them. */
export const SSO_OPERATIONS = {
  issueSsoToken: 'write',
  redeemSsoToken: 'write',
  getSession: 'read',
  deleteSession: 'write',
} as const satisfies Operations<SsoStore>
