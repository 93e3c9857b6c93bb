/**
 * MemoryStore's single sign-on tokens and dashboard sessions. Each operation
 * is synchronous from its read to its write, so a redemption is atomic: no
 * other call can run between finding the token and removing it.
 */
import type { SsoStore } from '../contract/sso.js'
import { grantOf } from '../shared/sso-records.js'
import type { MemoryData } from './data.js'

/** The SSO methods of the Store contract, in memory. */
export function memorySso(data: MemoryData): SsoStore {
  return {
    async issueSsoToken(digest, token, now) {
      data.ensureOpen()
      data.tokens.set(digest, { ...grantOf(token), expires_at: token.expires_at }, now)
    },

    async redeemSsoToken(digest, now, session_digest, session_expires_at) {
      data.ensureOpen()
      const token = data.tokens.take(digest)
      if (token === undefined || now >= token.expires_at) return undefined
      const grant = grantOf(token)
      data.sessions.set(session_digest, { ...grant, expires_at: session_expires_at }, now)
      return grant
    },

    async getSession(digest, now) {
      data.ensureOpen()
      const session = data.sessions.live(digest, now)
      return session && { ...session }
    },

    async deleteSession(digest) {
      data.ensureOpen()
      return data.sessions.delete(digest)
    },
  }
}
