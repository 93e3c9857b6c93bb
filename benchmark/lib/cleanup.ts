/**
 * Removing what a benchmark wrote to the shared Redis and PostgreSQL. Other
 * runs and test suites use the same servers, so a benchmark writes only under
 * a random key prefix or schema of its own and removes exactly that: never
 * FLUSHDB, never a schema it did not create.
 *
 * ioredis and pg are imported when called, so a run without REDIS_URL or
 * DATABASE_URL never loads them.
 */

/** Deletes every key under each of `prefixes` (SCAN and DEL, 1,000 at a time) on the Redis at `url`. */
export async function deleteRedisPrefixes(url: string, prefixes: readonly string[]): Promise<void> {
  const { Redis } = await import('ioredis')
  const redis = new Redis(url)
  for (const prefix of prefixes) {
    let cursor = '0'
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
      if (keys.length) await redis.del(...keys)
      cursor = next
    } while (cursor !== '0')
  }
  await redis.quit()
}

/** Drops `schema` and everything in it, on a connection of its own to `databaseUrl`. */
export async function dropPgSchema(databaseUrl: string, schema: string): Promise<void> {
  const pg = (await import('pg')).default
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  await client.end()
}
