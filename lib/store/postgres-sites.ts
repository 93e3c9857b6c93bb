/**
 * Sites and billing of PostgresStore. A site row is its record as jsonb plus
 * columns generated from it (owner, created_at, modified_at, external_uid)
 * that the listing indexes use; a patch is applied inside the UPDATE
 * (`rec - removed || set`), so the generated columns and indexes follow in the
 * same statement. Each method is one statement: one round trip.
 */
import type { BillingRecord, PublishOutcome, SiteExpectation, SitePatch, SiteRecord } from './contract.js'
import { expectationEntries, sitePatchEntries } from './guards.js'
import { Batcher, TurnGroup, insertGroup } from './postgres-batch.js'
import { statement, type PgConn, type Statement } from './postgres-conn.js'

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

/** The statements of {@link PgSites} for the schema `S` (quoted); also what docs/postgres.md EXPLAINs. */
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
export class PgSites {
  private readonly st: Record<string, Statement>

  constructor(private readonly conn: PgConn) {
    this.st = siteStatements(conn.s)
  }

  /** One INSERT for every create that arrives while earlier ones are in flight (lib/store/postgres-batch.ts). */
  createSite(site: SiteRecord): Promise<boolean> {
    // Serialised now: the caller's object may change once this returns.
    return this.creates.add({ name: site.site_name, json: JSON.stringify(site) })
  }

  private readonly creates = new Batcher<{ name: string; json: string }, boolean>((sites) =>
    insertGroup(
      sites,
      (s) => s.name,
      async (group) => {
        const values = [group.map((s) => s.name), group.map((s) => s.json)]
        const rows = await this.conn.query<{ site_name: string }>(this.st.create!, values, 'write')
        return new Set(rows.map((r) => r.site_name))
      },
    ),
  )

  /** The API's most frequent call: the getSite calls of one turn go as one statement (lib/store/postgres-batch.ts). */
  getSite(site_name: string): Promise<SiteRecord | undefined> {
    return this.gets.add(site_name)
  }

  private readonly gets = new TurnGroup<string, SiteRecord | undefined>(async (names) => {
    if (names.length > 1) return this.getSites(names)
    const [row] = await this.conn.query<RecRow>(this.st.get!, names)
    return [row?.rec ?? undefined]
  })

  async getSites(site_names: string[]): Promise<(SiteRecord | undefined)[]> {
    if (site_names.length === 0) return []
    const rows = await this.conn.query<RecRow>(this.st.getMany!, [site_names])
    return rows.map((r) => r.rec ?? undefined)
  }

  async findSiteByExternalUid(owner: string, external_uid: string): Promise<SiteRecord | undefined> {
    const [row] = await this.conn.query<RecRow>(this.st.byExternalUid!, [owner, external_uid])
    return row?.rec ?? undefined
  }

  async updateSite(
    owner: string,
    site_name: string,
    patch: SitePatch,
    expect?: SiteExpectation,
  ): Promise<SiteRecord | undefined> {
    const [set, removed] = encodePatch(sitePatchEntries(patch))
    const [created, build] = encodeExpectation(expect, 'updateSite')
    const [row] = await this.conn.query<RecRow>(
      this.st.update!,
      [owner, site_name, created, build, removed, set],
      'write',
    )
    return row?.rec ?? undefined
  }

  async publishSite(
    owner: string,
    site_name: string,
    at: number,
    charge: boolean,
    expect?: SiteExpectation,
  ): Promise<PublishOutcome | undefined> {
    const [created, build] = encodeExpectation(expect, 'publishSite')
    const [row] = await this.conn.query<{ outcome: number }>(
      this.st.publish!,
      [owner, site_name, at, charge, created, build],
      'write',
    )
    return row === undefined || row.outcome === -1 ? undefined : { charged: row.outcome === 1 }
  }

  async deleteSite(owner: string, site_name: string, expect?: SiteExpectation): Promise<boolean> {
    const [created, build] = encodeExpectation(expect, 'deleteSite')
    const [row] = await this.conn.query<{ deleted: boolean }>(
      this.st.delete!,
      [owner, site_name, created, build],
      'write',
    )
    return row?.deleted === true
  }

  async listSites(owner: string, by: 'created' | 'modified', from: number, to: number): Promise<string[]> {
    if (from > to) return []
    const st = by === 'created' ? this.st.listCreated! : this.st.listModified!
    const rows = await this.conn.query<{ site_name: string }>(st, [owner, from, to])
    return rows.map((r) => r.site_name)
  }

  async getBilling(owner: string): Promise<BillingRecord> {
    const [row] = await this.conn.query<BillingRecord>(this.st.billing!, [owner])
    return { charges: row?.charges ?? [], subscriptions: row?.subscriptions ?? [] }
  }
}
