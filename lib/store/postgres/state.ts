/**
 * PostgresStore's state operations (clear, export, import) for the
 * test-double controls, each one transaction. Visitors are exact
 * (`day_visitors`), so a PostgreSQL export imports into any store; a dump
 * holding visitor sketches (from RedisStore) cannot be imported here.
 *
 * A dump gives each visitor's system cells and geo cells separately; the
 * (visitor, system, geo) rows written pair each of a visitor's cells with one
 * cell of the other dimension that visitor is in, which reproduces every
 * distinct count the queries make (per day, per system value, per geo value).
 */
import type { PoolClient } from 'pg'
import { ACTIVITY_KINDS, type ActivityKind } from '../../../types/index.js'
import type { AnalyticsCellDump, AnalyticsDayDump, StateDump } from '../contract.js'
import { StateConflictError } from '../contract.js'
import { activityTotals } from '../shared/analytics-rows.js'
import type { StateOps } from '../shared/composed-store.js'
import { checkDump, referencedNames } from '../shared/dump-checks.js'
import { byText } from '../shared/order.js'
import type { PgConn } from './conn.js'

const KINDS = ACTIVITY_KINDS
const TABLES = [
  'grants',
  'sites',
  'accounts',
  'masters',
  'charges',
  'subscriptions',
  'limits',
  'site_days',
  'dim_days',
  'day_visitors',
  'sso_tokens',
  'sessions',
]

/** The state methods of the Store contract, on PostgreSQL: each one transaction. */
export function pgState(conn: PgConn): StateOps {
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

async function exportAnalytics(c: PoolClient, S: string): Promise<AnalyticsDayDump[]> {
  const days = new Map<string, AnalyticsDayDump & { cells: Map<string, AnalyticsCellDump> }>()
  const dayRows = await c.query(`
      SELECT s.site_name, d.day::text AS day, d.visits, d.page_views, d.click_to_call, d.click_to_map, d.click_to_email, d.form_submit
        FROM ${S}.site_days d JOIN ${S}.sites s ON s.id = d.site_id ORDER BY s.site_name, d.day`)
  for (const r of dayRows.rows) {
    const activities = activityTotals((kind) => Number(r[kind]))
    days.set(`${r.site_name}\0${r.day}`, {
      site_name: r.site_name,
      day: r.day,
      visits: Number(r.visits),
      page_views: Number(r.page_views),
      activities,
      visitors: [],
      system: [],
      geo: [],
      cells: new Map(),
    })
  }
  const cellRows = await c.query(`
      SELECT s.site_name, d.day::text AS day, v.id, v.dim, v.k1, v.k2, d.visits, d.page_views, d.click_to_call, d.click_to_map, d.click_to_email, d.form_submit
        FROM ${S}.dim_days d JOIN ${S}.sites s ON s.id = d.site_id JOIN ${S}.dim_values v ON v.id = d.dim_id`)
  for (const r of cellRows.rows) {
    const day = days.get(`${r.site_name}\0${r.day}`)
    if (!day) continue
    const activities = activityTotals((kind) => Number(r[kind]))
    const cell: AnalyticsCellDump = {
      key: [r.k1, r.k2],
      visits: Number(r.visits),
      page_views: Number(r.page_views),
      activities,
      visitors: [],
    }
    day.cells.set(String(r.id), cell)
    ;(r.dim === 0 ? day.system : day.geo).push(cell)
  }
  const visitorRows = await c.query(`
      SELECT s.site_name, x.day::text AS day, x.visitor_id, x.sys_id, x.geo_id
        FROM ${S}.day_visitors x JOIN ${S}.sites s ON s.id = x.site_id`)
  for (const r of visitorRows.rows) {
    const day = days.get(`${r.site_name}\0${r.day}`)
    if (!day) continue
    day.visitors!.push(r.visitor_id)
    day.cells.get(String(r.sys_id))?.visitors?.push(r.visitor_id)
    day.cells.get(String(r.geo_id))?.visitors?.push(r.visitor_id)
  }
  const unique = (ids: string[]): string[] => [...new Set(ids)].sort()
  return [...days.values()].map(({ cells: _cells, ...day }) => ({
    ...day,
    visitors: unique(day.visitors!),
    system: day.system
      .map((cell) => ({ ...cell, visitors: unique(cell.visitors!) }))
      .sort(byText((x) => JSON.stringify(x.key))),
    geo: day.geo
      .map((cell) => ({ ...cell, visitors: unique(cell.visitors!) }))
      .sort(byText((x) => JSON.stringify(x.key))),
  }))
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
  const { problems, siteOwners } = checkDump(dump, existing, false)
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

async function writeDay(c: PoolClient, S: string, day: AnalyticsDayDump, owner: string): Promise<void> {
  const { rows } = await c.query(`SELECT id FROM ${S}.sites WHERE site_name = $1`, [day.site_name])
  const siteId = rows[0].id as string
  const counts = (a: Record<ActivityKind, number>) => KINDS.map((k) => a[k])
  await c.query(
    `INSERT INTO ${S}.site_days AS d (site_id, day, owner, visits, page_views, click_to_call, click_to_map, click_to_email, form_submit)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (site_id, day) DO UPDATE SET visits = d.visits + excluded.visits, page_views = d.page_views + excluded.page_views,
         click_to_call = d.click_to_call + excluded.click_to_call, click_to_map = d.click_to_map + excluded.click_to_map,
         click_to_email = d.click_to_email + excluded.click_to_email, form_submit = d.form_submit + excluded.form_submit`,
    [siteId, day.day, owner, day.visits, day.page_views, ...counts(day.activities)],
  )
  // Each visitor's cells, by dimension: the ids its (visitor, system, geo) rows pair up.
  const cellsOf = new Map<string, [number[], number[]]>()
  for (const [dim, cells] of [
    [0, day.system],
    [1, day.geo],
  ] as const) {
    for (const cell of cells) {
      const { rows: ids } = await c.query(`SELECT ${S}.dim_id($1::smallint, $2, $3) AS id`, [
        dim,
        cell.key[0],
        cell.key[1],
      ])
      const id = Number(ids[0].id)
      await c.query(
        `INSERT INTO ${S}.dim_days AS d (site_id, day, dim_id, visits, page_views, click_to_call, click_to_map, click_to_email, form_submit)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
           ON CONFLICT (site_id, day, dim_id) DO UPDATE SET visits = d.visits + excluded.visits, page_views = d.page_views + excluded.page_views,
             click_to_call = d.click_to_call + excluded.click_to_call, click_to_map = d.click_to_map + excluded.click_to_map,
             click_to_email = d.click_to_email + excluded.click_to_email, form_submit = d.form_submit + excluded.form_submit`,
        [siteId, day.day, id, cell.visits, cell.page_views, ...counts(cell.activities)],
      )
      for (const visitor of cell.visitors ?? []) {
        let pair = cellsOf.get(visitor)
        if (!pair) cellsOf.set(visitor, (pair = [[], []]))
        pair[dim].push(id)
      }
    }
  }
  const visitors: string[] = []
  const sys: number[] = []
  const geo: number[] = []
  for (const [visitor, [s, g]] of cellsOf) {
    if (s.length === 0 || g.length === 0) continue
    for (let i = 0; i < Math.max(s.length, g.length); i++) {
      visitors.push(visitor)
      sys.push(s[Math.min(i, s.length - 1)]!)
      geo.push(g[Math.min(i, g.length - 1)]!)
    }
  }
  await c.query(
    `INSERT INTO ${S}.day_visitors (site_id, day, visitor_id, sys_id, geo_id)
       SELECT $1, $2, v, s, g FROM unnest($3::text[], $4::int[], $5::int[]) AS x(v, s, g) ON CONFLICT DO NOTHING`,
    [siteId, day.day, visitors, sys, geo],
  )
}
