/**
 * PostgresStore's state operations (clear, export, import) for the
 * test-double controls, each one transaction. Analytics go through
 * state-analytics.ts: visitors are kept as hashes (migration 6), so they are
 * exported as this store's exact sketches, which only a PostgresStore
 * imports; a dump with exact ids imports too.
 */
import type { PoolClient } from 'pg'
import type { StateDump } from '../contract/index.js'
import { StateConflictError } from '../contract/index.js'
import type { StateStore } from '../contract/state.js'
import { checkDump, referencedNames } from '../shared/dump-checks.js'
import { byText } from '../shared/order.js'
import type { PgConn } from './conn.js'
import { badSketches, exportAnalytics, writeDay } from './state-analytics.js'

const TABLES = [
  'grants',
  'sites',
  'accounts',
  'masters',
  'charges',
  'subscriptions',
  'limits',
  'site_days',
  'visitor_overflow',
  'sso_tokens',
  'sessions',
]

/** The state methods of the Store contract, on PostgreSQL: each one transaction. */
export function pgState(conn: PgConn): StateStore {
  const S = conn.s
  return {
    /** TRUNCATEs every table of the store's schema. */
    clearState() {
      return conn.transaction(async (c) => {
        await c.query(`TRUNCATE ${TABLES.map((t) => `${S}.${t}`).join(', ')}`)
      })
    },

    /** The whole state, from one snapshot of the database. Visitors are exact ids. */
    exportState() {
      return conn.transaction((c) => exportAll(c, S))
    },

    /** Adds a dump in one transaction, all or nothing. */
    async importState(dump) {
      const problems = await conn.transaction((c) => tryImport(c, S, dump))
      if (problems.length > 0) throw new StateConflictError(problems)
    },
  }
}

async function exportAll(c: PoolClient, S: string): Promise<StateDump> {
  const rows = async <R>(sql: string): Promise<R[]> => (await c.query(sql)).rows as R[]
  const masters = (
    await rows<{ rec: StateDump['masters'][number] }>(`SELECT rec FROM ${S}.masters ORDER BY user_name`)
  ).map((r) => r.rec)
  const sites = (await rows<{ rec: StateDump['sites'][number] }>(`SELECT rec FROM ${S}.sites ORDER BY site_name`)).map(
    (r) => r.rec,
  )
  const accounts = (
    await rows<{ rec: StateDump['accounts'][number] }>(`SELECT rec FROM ${S}.accounts ORDER BY account_name`)
  ).map((r) => r.rec)
  const grants = (
    await rows<{ account_name: string; site_name: string; permissions: string[] | null }>(
      `SELECT account_name, site_name, permissions FROM ${S}.grants ORDER BY account_name, site_name`,
    )
  ).map(({ account_name, site_name, permissions }): StateDump['grants'][number] =>
    permissions === null ? { account_name, site_name } : { account_name, site_name, permissions },
  )
  const billing = new Map<string, StateDump['billing'][number]>()
  const ledger = (owner: string) => {
    let l = billing.get(owner)
    if (!l) billing.set(owner, (l = { owner, charges: [], subscriptions: [] }))
    return l
  }
  for (const r of await rows<{ owner: string; site_name: string; at: number }>(
    `SELECT owner, site_name, at FROM ${S}.charges ORDER BY owner, id`,
  )) {
    ledger(r.owner).charges.push({ site_name: r.site_name, at: Number(r.at) })
  }
  for (const r of await rows<{ owner: string; site_name: string; status: 'active' | 'cancelled' }>(
    `SELECT owner, site_name, status FROM ${S}.subscriptions ORDER BY owner, id`,
  )) {
    ledger(r.owner).subscriptions.push({ site_name: r.site_name, status: r.status })
  }
  return {
    masters,
    sites,
    accounts,
    grants,
    billing: [...billing.values()].sort(byText((l) => l.owner)),
    analytics: await exportAnalytics(c, S),
  }
}

/** The problems (then nothing is written: the caller rolls back by throwing), or none. */
async function tryImport(c: PoolClient, S: string, dump: StateDump): Promise<string[]> {
  const refs = referencedNames(dump)
  // Names are unique regardless of letter case here: look them up folded, and lock the rows read.
  const found = async (table: 'sites' | 'accounts', column: string, names: string[]) => {
    const { rows } = await c.query(
      `SELECT ${column} AS name, owner FROM ${S}.${table} WHERE lower(${column}) = ANY($1::text[]) FOR SHARE`,
      [names.map((n) => n.toLowerCase())],
    )
    return rows as { name: string; owner: string }[]
  }
  const sites = await found('sites', 'site_name', refs.sites)
  const accounts = await found('accounts', 'account_name', refs.accounts)
  const existing = {
    sites: new Map(sites.map((r) => [r.name, r.owner])),
    accounts: new Map(accounts.map((r) => [r.name, r.owner])),
  }
  const { problems, siteOwners } = checkDump(dump, existing, true)
  problems.push(...badSketches(dump))
  const folded = (rows: { name: string }[], names: string[], what: string) => {
    const taken = new Map(rows.map((r) => [r.name.toLowerCase(), r.name]))
    const seen = new Set<string>()
    for (const name of names) {
      const other = taken.get(name.toLowerCase())
      if (other !== undefined && other !== name)
        problems.push(`${what} ${name} already exists as ${other} (names are unique regardless of case)`)
      if (seen.has(name.toLowerCase()) && !problems.some((p) => p.startsWith(`${what} ${name} `)))
        problems.push(`${what} ${name} is given twice (regardless of case)`)
      seen.add(name.toLowerCase())
    }
  }
  folded(
    sites,
    dump.sites.map((s) => s.site_name),
    'site',
  )
  folded(
    accounts,
    dump.accounts.map((a) => a.account_name),
    'account',
  )
  if (problems.length > 0) return problems
  for (const m of dump.masters) {
    await c.query(
      `INSERT INTO ${S}.masters (user_name, rec) VALUES ($1, $2) ON CONFLICT (user_name) DO UPDATE SET rec = excluded.rec`,
      [m.user, m],
    )
  }
  for (const s of dump.sites) await c.query(`INSERT INTO ${S}.sites (site_name, rec) VALUES ($1, $2)`, [s.site_name, s])
  for (const a of dump.accounts)
    await c.query(`INSERT INTO ${S}.accounts (account_name, rec) VALUES ($1, $2)`, [a.account_name, a])
  for (const g of dump.grants) {
    await c.query(
      `INSERT INTO ${S}.grants (account_name, site_name, permissions) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
      [g.account_name, g.site_name, g.permissions === undefined ? null : JSON.stringify(g.permissions)],
    )
  }
  for (const { owner, charges, subscriptions } of dump.billing) {
    for (const ch of charges)
      await c.query(`INSERT INTO ${S}.charges (owner, site_name, at) VALUES ($1, $2, $3)`, [owner, ch.site_name, ch.at])
    for (const sub of subscriptions) {
      const { rows } = await c.query(
        `INSERT INTO ${S}.subscriptions (owner, site_name, status) VALUES ($1, $2, $3) RETURNING id`,
        [owner, sub.site_name, sub.status],
      )
      // The live subscription of a site that exists: Delete Site must cancel it.
      if (sub.status === 'active' && siteOwners.get(sub.site_name) === owner) {
        await c.query(`UPDATE ${S}.sites SET subscription_id = $1 WHERE site_name = $2`, [rows[0].id, sub.site_name])
      }
    }
  }
  for (const day of dump.analytics) await writeDay(c, S, day, siteOwners.get(day.site_name)!)
  return []
}
