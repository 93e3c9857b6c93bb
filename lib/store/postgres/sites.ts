/**
 * Sites and billing of PostgresStore. A site row is its record as jsonb plus
 * columns generated from it (owner, created_at, modified_at, external_uid)
 * that the listing indexes use; a patch is applied inside the UPDATE
 * (`rec - removed || set`), so the generated columns and indexes follow in the
 * same statement. Each method is one statement: one round trip.
 */
import type { BillingRecord, SiteExpectation, SiteRecord } from '../contract/index.js'
import type { SitesStore } from '../contract/sites.js'
import { expectationEntries, sitePatchEntries } from '../shared/patch-checks.js'
import { Batcher, TurnGroup, insertGroup } from './batch.js'
import { type PgConn, type Statement, statement } from './conn.js'

/** A patch as two parameters: the fields to set (jsonb) and the keys to remove (text[]). */
export function encodePatch(entries: [string, unknown][]): [string, string[]] {
  const set: Record<string, unknown> = Object.create(null)
  const removed: string[] = []
  for (const [key, value] of entries) {
    if (value === null) removed.push(key)
    else set[key] = value
  }
  return [JSON.stringify(set), removed]
}

/** An expectation as two parameters (created_at, build), null where not expected. */
function encodeExpectation(expect: SiteExpectation | undefined, method: string): [number | null, string | null] {
  const out: [number | null, string | null] = [null, null]
  for (const [key, value] of expectationEntries(expect, method)) {
    if (key === 'created_at') out[0] = value as number
    else out[1] = value as string
  }
  return out
}

type RecRow = { rec: SiteRecord | null }

/** The statements of pgSites for the schema `S` (quoted); also what docs/postgres.md EXPLAINs. */
export function siteStatements(S: string): Record<string, Statement> {
  const expected = `($3::float8 IS NULL OR created_at = $3) AND ($4::text IS NULL OR rec->>'build' = $4)`
  return {
    create: statement(
      `INSERT INTO ${S}.sites (site_name, rec) SELECT u.n, u.r FROM unnest($1::text[], $2::jsonb[]) AS u(n, r) ON CONFLICT DO NOTHING RETURNING site_name`,
    ),
    get: statement(`SELECT rec FROM ${S}.sites WHERE site_name = $1`),
    getMany: statement(
      `SELECT s.rec FROM unnest($1::text[]) WITH ORDINALITY AS n(name, i) LEFT JOIN ${S}.sites s ON s.site_name = n.name ORDER BY n.i`,
    ),
    byExternalUid: statement(
      `SELECT rec FROM ${S}.sites WHERE owner = $1 AND external_uid = $2 ORDER BY created_at DESC, site_name DESC LIMIT 1`,
    ),
    update: statement(
      `UPDATE ${S}.sites SET rec = (rec - $5::text[]) || $6::jsonb WHERE site_name = $2 AND owner = $1 AND ${expected} RETURNING rec`,
    ),
    publish: statement(`SELECT ${S}.publish_site($1, $2, $3, $4, $5, $6) AS outcome`),
    // One statement: the log is read and rewritten under the row lock, so concurrent appends all land.
    appendActivity: statement(
      `UPDATE ${S}.sites SET rec = jsonb_set(rec, '{activity_log}', (
         SELECT coalesce(jsonb_agg(e ORDER BY i), '[]'::jsonb) FROM (
           SELECT e, i FROM jsonb_array_elements(coalesce(rec->'activity_log', '[]'::jsonb) || jsonb_build_array($3::jsonb))
             WITH ORDINALITY AS a(e, i) ORDER BY i DESC LIMIT $4) kept))
       WHERE site_name = $2 AND owner = $1 RETURNING 1 AS ok`,
    ),
    // A publish that does not charge (test=true) is not a first publish: it leaves first_published_at
    // unset, so publish_site (which sets it and charges) is left to the first publish that charges.
    publishTest:
      statement(`UPDATE ${S}.sites SET rec = rec || jsonb_build_object('published_at', $3::float8, 'modified_at', $3::float8)
       WHERE site_name = $2 AND owner = $1
         AND ($4::float8 IS NULL OR created_at = $4::float8)
         AND ($5::text IS NULL OR rec->>'build' = $5::text)
       RETURNING 0 AS outcome`),
    delete: statement(`SELECT ${S}.delete_site($1, $2, $3, $4) AS deleted`),
    listCreated: statement(
      `SELECT site_name FROM ${S}.sites WHERE owner = $1 AND created_at BETWEEN $2 AND $3 ORDER BY created_at, site_name`,
    ),
    listModified: statement(
      `SELECT site_name FROM ${S}.sites WHERE owner = $1 AND modified_at BETWEEN $2 AND $3 ORDER BY modified_at, site_name`,
    ),
    billing: statement(`SELECT
  (SELECT coalesce(json_agg(json_build_object('site_name', site_name, 'at', at) ORDER BY id), '[]') FROM ${S}.charges WHERE owner = $1) AS charges,
  (SELECT coalesce(json_agg(json_build_object('site_name', site_name, 'status', status) ORDER BY id), '[]') FROM ${S}.subscriptions WHERE owner = $1) AS subscriptions`),
  }
}

/** The site and billing methods of the Store contract, on PostgreSQL. */
export function pgSites(conn: PgConn): SitesStore {
  const st = siteStatements(conn.s)

  const getSites = async (site_names: string[]): Promise<(SiteRecord | undefined)[]> => {
    if (site_names.length === 0) return []
    const rows = await conn.query<RecRow>(st.getMany!, [site_names])
    return rows.map((r) => r.rec ?? undefined)
  }

  /** Creates that arrive while earlier ones are in flight go as one INSERT (batch.ts). */
  const creates = new Batcher<{ name: string; json: string }, boolean>((sites) =>
    insertGroup(
      sites,
      (s) => s.name,
      async (group) => {
        const values = [group.map((s) => s.name), group.map((s) => s.json)]
        const rows = await conn.query<{ site_name: string }>(st.create!, values, 'write')
        return new Set(rows.map((r) => r.site_name))
      },
    ),
  )

  /** The getSite calls of one turn go as one statement (batch.ts). */
  const gets = new TurnGroup<string, SiteRecord | undefined>(async (names) => {
    if (names.length > 1) return getSites(names)
    const [row] = await conn.query<RecRow>(st.get!, names)
    return [row?.rec ?? undefined]
  })

  return {
    createSite(site) {
      // Serialised now: the caller's object may change once this returns.
      return creates.add({ name: site.site_name, json: JSON.stringify(site) })
    },

    /** The API's most frequent call. */
    getSite(site_name) {
      return gets.add(site_name)
    },

    getSites,

    async findSiteByExternalUid(owner, external_uid) {
      const [row] = await conn.query<RecRow>(st.byExternalUid!, [owner, external_uid])
      return row?.rec ?? undefined
    },

    async updateSite(owner, site_name, patch, expect) {
      const [set, removed] = encodePatch(sitePatchEntries(patch))
      const [created, build] = encodeExpectation(expect, 'updateSite')
      const [row] = await conn.query<RecRow>(st.update!, [owner, site_name, created, build, removed, set], 'write')
      return row?.rec ?? undefined
    },

    async appendSiteActivity(owner, site_name, entry, max) {
      const entryJson = JSON.stringify({ at: entry.at, activity: entry.activity })
      const rows = await conn.query(st.appendActivity!, [owner, site_name, entryJson, max], 'write')
      return rows.length > 0
    },

    async publishSite(owner, site_name, at, charge, expect) {
      const [created, build] = encodeExpectation(expect, 'publishSite')
      const [row] = charge
        ? await conn.query<{ outcome: number }>(st.publish!, [owner, site_name, at, charge, created, build], 'write')
        : await conn.query<{ outcome: number }>(st.publishTest!, [owner, site_name, at, created, build], 'write')
      return row === undefined || row.outcome === -1 ? undefined : { charged: row.outcome === 1 }
    },

    async deleteSite(owner, site_name, expect) {
      const [created, build] = encodeExpectation(expect, 'deleteSite')
      const [row] = await conn.query<{ deleted: boolean }>(st.delete!, [owner, site_name, created, build], 'write')
      return row?.deleted === true
    },

    async listSites(owner, by, from, to) {
      if (from > to) return []
      const rows = await conn.query<{ site_name: string }>(by === 'created' ? st.listCreated! : st.listModified!, [
        owner,
        from,
        to,
      ])
      return rows.map((r) => r.site_name)
    },

    async getBilling(owner) {
      const [row] = await conn.query<BillingRecord>(st.billing!, [owner])
      return { charges: row?.charges ?? [], subscriptions: row?.subscriptions ?? [] }
    },
  }
}
