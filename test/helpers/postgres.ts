/**
 * Shared pieces of the PostgreSQL tests: the DATABASE_URL gate, random
 * schemas dropped afterwards (never any other schema), cutting the store's
 * own connections, and a TCP proxy the test can drop or freeze.
 */
import { randomBytes } from 'node:crypto'
import { createServer, connect, type Server, type Socket } from 'node:net'
import pg from 'pg'
import type { Test as Tap } from 'tap'

/** The PostgreSQL under test, or undefined when the PostgreSQL suites are to be skipped. */
export const DATABASE_URL: string | undefined = process.env.DATABASE_URL || undefined

/**
 * Gate for a PostgreSQL test file. Without DATABASE_URL the file skips with a
 * visible reason; with it, an unreachable database FAILS the file. Returns a
 * connected admin pool (ended at teardown), or undefined when the caller must stop.
 */
export async function postgresOrSkip(t: Tap, what: string): Promise<pg.Pool | undefined> {
  if (!DATABASE_URL) {
    t.plan(0, `DATABASE_URL not set: ${what} skipped`)
    return undefined
  }
  const admin = new pg.Pool({
    connectionString: DATABASE_URL,
    max: 3,
    connectionTimeoutMillis: 5000,
    application_name: 'mobisite-test-admin',
  })
  admin.on('error', () => {})
  try {
    await admin.query('SELECT 1')
  } catch (err) {
    await admin.end().catch(() => {})
    t.fail(`DATABASE_URL=${DATABASE_URL} is set but PostgreSQL is unreachable: ${(err as Error).message}`)
    return undefined
  }
  t.teardown(() => admin.end())
  return admin
}

/** A fresh schema name no other test uses (lower case: no quoting surprises in psql). */
export function randomSchema(tag = 'test'): string {
  return `mobisite_${tag}_${randomBytes(6).toString('hex')}`
}

/** Drops one schema the test created, with everything in it. Only ever called with a {@link randomSchema} name. */
export async function dropSchema(admin: pg.Pool, schema: string): Promise<void> {
  if (!/^mobisite_[a-z]+_[0-9a-f]{12}$/.test(schema)) throw new Error(`refusing to drop schema ${schema}`)
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
}

/** Whether a schema exists. */
export async function schemaExists(admin: pg.Pool, schema: string): Promise<boolean> {
  const { rows } = await admin.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])
  return rows.length === 1
}

/**
 * Terminates the backends whose application_name is `applicationName` (the
 * store's own connections, named by the test), never anyone else's. Returns
 * how many were terminated.
 */
export async function terminateBackends(admin: pg.Pool, applicationName: string): Promise<number> {
  const { rows } = await admin.query(
    `SELECT count(*)::int AS n FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE application_name = $1 AND pid <> pg_backend_pid()) t`,
    [applicationName],
  )
  return rows[0].n as number
}

/** A connection string for the same database through another host:port (a proxy). */
export function viaPort(url: string, port: number): string {
  const u = new URL(url)
  u.hostname = '127.0.0.1'
  u.port = String(port)
  return u.toString()
}

/**
 * A TCP proxy in front of PostgreSQL that the test controls: `drop()` cuts
 * every connection and refuses new ones; `freeze()` keeps connections open
 * but passes no byte either way (a silent network) and leaves new
 * connections hanging; `restore()` goes back to normal.
 */
export class PgProxy {
  private server: Server | undefined
  private readonly pairs = new Set<[Socket, Socket]>()
  private mode: 'up' | 'down' | 'frozen' = 'up'
  port = 0

  constructor(private readonly target: { host: string; port: number }) {}

  static forUrl(url: string): PgProxy {
    const u = new URL(url)
    return new PgProxy({ host: u.hostname || '127.0.0.1', port: Number(u.port || 5432) })
  }

  async start(): Promise<void> {
    this.server = createServer((client) => this.accept(client))
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    this.port = (this.server.address() as { port: number }).port
  }

  private accept(client: Socket): void {
    client.on('error', () => {})
    if (this.mode === 'down') {
      client.destroy()
      return
    }
    const upstream = connect(this.target.port, this.target.host)
    upstream.on('error', () => client.destroy())
    client.on('error', () => upstream.destroy())
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
    const pair: [Socket, Socket] = [client, upstream]
    this.pairs.add(pair)
    client.on('close', () => this.pairs.delete(pair))
    client.pipe(upstream)
    upstream.pipe(client)
    if (this.mode === 'frozen') this.pause(pair)
  }

  private pause([a, b]: [Socket, Socket]): void {
    a.unpipe(b)
    b.unpipe(a)
    a.pause()
    b.pause()
  }

  /** Cuts every connection; new ones are refused until {@link restore}. */
  drop(): void {
    this.mode = 'down'
    for (const [a, b] of this.pairs) {
      a.destroy()
      b.destroy()
    }
    this.pairs.clear()
  }

  /** Stops passing bytes on every connection, old and new, without closing any. */
  freeze(): void {
    this.mode = 'frozen'
    for (const pair of this.pairs) this.pause(pair)
  }

  /** Back to normal: frozen connections resume (held bytes flow on), new ones pass. */
  restore(): void {
    if (this.mode === 'frozen') {
      for (const [a, b] of this.pairs) {
        a.pipe(b)
        b.pipe(a)
        a.resume()
        b.resume()
      }
    }
    this.mode = 'up'
  }

  async close(): Promise<void> {
    this.drop()
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()))
  }
}
