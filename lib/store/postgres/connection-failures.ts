/**
 * What a PostgresStore failure means, and what becomes of the connection it
 * happened on (conn.ts decides when to retry and when to give up): a
 * failure of the database to serve is {@link StoreUnavailableError} (the API
 * answers 503), a statement's own error is passed on (a 500); a connection
 * that broke, or may sit on a silent socket, is destroyed, never reused.
 */
import pg from 'pg'
import type { PoolClient } from 'pg'
import { StoreUnavailableError } from '../contract/index.js'

/** SQLSTATE classes and codes that mean "the database cannot serve now", not "the statement is wrong". */
export const UNAVAILABLE_CODE = /^(08|53|57P0[1-4]|57014|55P03|58|XX000$)/

/**
 * Turns a connection failure into StoreUnavailableError. A server error with
 * a SQLSTATE outside the "unavailable" classes (a constraint or a bug) is
 * passed on unchanged, so it surfaces as a 500, not as an outage.
 */
export function toStoreError(err: unknown): unknown {
  if (err instanceof StoreUnavailableError || err instanceof TypeError) return err
  const code = (err as { code?: unknown } | null)?.code
  const fromServer = err instanceof pg.DatabaseError
  if (fromServer && typeof code === 'string' && !UNAVAILABLE_CODE.test(code)) return err
  const message = err instanceof Error ? err.message : String(err)
  return new StoreUnavailableError(`PostgreSQL unavailable: ${message}`, { cause: err })
}

/** Connections that already carry the store's error listener. */
const listening = new WeakSet<object>()

/** Gives a connection the error listener without which an ended backend would crash the process. */
export function listen(client: { on(event: 'error', fn: () => void): unknown }): void {
  if (listening.has(client)) return
  listening.add(client)
  client.on('error', () => {})
}

/** Removes a connection from the pool for good, closing its socket at once. */
export function discard(client: PoolClient): void {
  const stream = (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream
  try {
    client.release(new Error('mobisite: connection discarded'))
  } catch {
    // already released
  }
  stream?.destroy()
}

/** Whether an error says the connection itself broke (as opposed to a timeout or a refused connect). */
export function brokenConnection(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  if (typeof code === 'string' && /^(57P01|57P02|08006|08003|ECONNRESET|EPIPE)$/.test(code)) return true
  const message = err instanceof Error ? err.message : ''
  return /Connection terminated|terminating connection|Client has encountered a connection error|not queryable/i.test(
    message,
  )
}
