#!/usr/bin/env node
/**
 * `npm start`: serves the API on PORT (default 3000) under /api, on a
 * MemoryStore, or on the store `--store <url>` / MOBISITE_STORE / REDIS_URL /
 * DATABASE_URL names (lib/cli-store.ts). Creates one partner
 * master account from MOBISITE_USER / MOBISITE_PASSWORD, or generates one,
 * and prints it with a ready-to-run curl line.
 */
import { randomBytes } from 'node:crypto'
import { chooseStore, openPostgres } from './cli-store.js'
import { createEngine } from './engine/index.js'
import type { Store } from './store/contract.js'
import { startServer } from './server.js'

/** Quotes a value for a POSIX shell. */
const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`

async function storeFromEnv(): Promise<{ store?: Store; label: string }> {
  const choice = chooseStore(process.argv.slice(2), process.env)
  if (choice.kind === 'postgres') return openPostgres(choice.url, process.env)
  const url = choice.kind === 'redis' ? choice.url : undefined
  if (!url) return { label: 'memory store: state lives in this process' }
  // Only here is ioredis loaded: a memory-store server does not need it installed.
  const { RedisStore } = await import('./redis.js').catch((error: unknown) => {
    throw new Error(`REDIS_URL is set but the optional peer dependency ioredis could not be loaded (npm install ioredis): ${String(error)}`)
  })
  const prefix = process.env.MOBISITE_REDIS_PREFIX
  return { store: new RedisStore({ url, ...(prefix ? { prefix } : {}) }), label: `Redis store at ${url}` }
}

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 3000)
  const host = process.env.HOST ?? '127.0.0.1'
  const user = process.env.MOBISITE_USER || 'admin'
  const password = process.env.MOBISITE_PASSWORD || randomBytes(12).toString('hex')
  const { store, label } = await storeFromEnv()
  const engine = createEngine(store ? { store } : {})
  // On a shared store a second instance must not replace the account (and the
  // password) the first one printed; a given MOBISITE_PASSWORD always applies.
  const shared = store !== undefined && !process.env.MOBISITE_PASSWORD && (await engine.store.getMaster(user)) !== undefined
  if (!shared) await engine.addMasterAccount({ user, password, partner: true })
  const server = await startServer({ engine, port, host })
  const api = `${server.url}/api`
  const body = JSON.stringify({ site_data: { original_site_url: 'https://www.example.com' } })
  console.log(`mobisite API: ${api} (${label})`)
  console.log(`user:     ${user}`)
  if (shared) {
    console.log('password: unchanged: this account already exists in the shared store (set MOBISITE_PASSWORD to choose one)')
  } else {
    console.log(`password: ${password}${process.env.MOBISITE_PASSWORD ? ' (from MOBISITE_PASSWORD)' : ' (generated)'}`)
  }
  const credentials = shared ? `${user}:PASSWORD` : `${user}:${password}`
  console.log(`try:      curl -u ${shellQuote(credentials)} -H 'content-type: application/json' -d ${shellQuote(body)} ${api}/sites/create`)

  let stopping = false
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return
    stopping = true
    console.log(`mobisite: ${signal} received, shutting down`)
    await server.close()
    await engine.close()
    process.exit(0)
  }
  process.on('SIGINT', () => void stop('SIGINT'))
  process.on('SIGTERM', () => void stop('SIGTERM'))
}

main().catch((error: unknown) => {
  console.error('mobisite: could not start:', error instanceof Error ? error.message : error)
  process.exit(1)
})
