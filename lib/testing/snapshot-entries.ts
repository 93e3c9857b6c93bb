/**
 * The entries of a snapshot (a seed body, `GET /__admin/snapshot`), one
 * stored record at a time: `snapshot()` in seed.ts maps a whole export with
 * them, and the state file (state-file-writer.ts) serializes a large state
 * with them a slice at a time. Each builds a new object and changes nothing.
 */
import { propertiesOf } from '../engine/rules/site-view.js'
import type { AccountRecord, LedgerDump, MasterRecord, SiteRecord } from '../store/contract/index.js'

/** What starts a `password_hash` that a snapshot gave (seed.ts reads it back). */
export const HASH_PREFIX = 'record:'

/** The times of a site record that a snapshot carries, as ISO strings. */
export const TIME_FIELDS = [
  'created_at',
  'modified_at',
  'published_at',
  'first_published_at',
  'redirect_confirmed_at',
  'cache_reset_at',
  'unpublished_at',
] as const

const iso = (ms: number): string => new Date(ms).toISOString()

/** A master's credential fields (whatever the engine keeps), as one opaque string. */
function hashOf(master: MasterRecord): string {
  const { user: _user, partner: _partner, ...secret } = master
  return HASH_PREFIX + Buffer.from(JSON.stringify(secret)).toString('base64url')
}

/** A master as a snapshot entry: its credentials as one opaque `password_hash`. */
export function masterEntry(master: MasterRecord): { user: string; password_hash: string; partner: boolean } {
  return { user: master.user, password_hash: hashOf(master), partner: master.partner }
}

/** A site as a snapshot entry: its properties flat, with the state that reads depend on. */
export function siteEntry(site: SiteRecord): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    owner: site.owner,
    site_name: site.site_name,
    ...propertiesOf(site),
    published: site.published_at !== undefined,
  }
  for (const field of TIME_FIELDS) if (site[field] !== undefined) entry[field] = iso(site[field]!)
  entry.build = site.build
  if (site.publish_when_built !== undefined) entry.publish_when_built = site.publish_when_built
  entry.initial = propertiesOf(site.initial)
  if (site.template_id !== undefined) entry.template_id = site.template_id
  if (site.activity_log !== undefined)
    entry.activity_log = site.activity_log.map((e) => ({ at: iso(e.at), activity: e.activity }))
  return entry
}

/** An account as a snapshot entry. */
export function accountEntry({ created_at, ...account }: AccountRecord): Record<string, unknown> {
  return { ...account, created_at: iso(created_at) }
}

/** A ledger as a snapshot entry. */
export function ledgerEntry(ledger: LedgerDump): {
  owner: string
  charges: { site_name: string; at: string }[]
  subscriptions: LedgerDump['subscriptions']
} {
  return {
    owner: ledger.owner,
    charges: ledger.charges.map((c) => ({ site_name: c.site_name, at: iso(c.at) })),
    subscriptions: ledger.subscriptions,
  }
}
