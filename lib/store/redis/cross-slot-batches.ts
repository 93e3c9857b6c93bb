/**
 * Multi-key batches that work on a single Redis and on a Redis Cluster alike,
 * for the state operations (state.ts) and the layout migration (migrate.ts),
 * which touch many slots: on a single Redis a pipeline or a MULTI as usual;
 * on a cluster the reads go out one command each (the client routes them)
 * and the writes go in one MULTI per hash tag, i.e. per slot. SCAN walks
 * every primary of a cluster.
 */
import { Redis } from 'ioredis'
import type { RedisClient } from './conn.js'

type Pipeline = ReturnType<Redis['pipeline']>
type Multi = ReturnType<Redis['multi']>
type Call = [name: string, args: unknown[]]
type Client = Record<string, (...args: unknown[]) => unknown>

/** The `{...}` hash tag of a key (what decides its slot), or the whole key without one. */
export function tagOf(key: string): string {
  const open = key.indexOf('{')
  const close = open < 0 ? -1 : key.indexOf('}', open + 1)
  return close > open + 1 ? key.slice(open, close + 1) : key
}

/** The name inside a key's tag (`prefix{kind:name}...` → name), percent-decoded (keys.ts). */
export function untag(key: string): string {
  const open = key.indexOf('{')
  const colon = key.indexOf(':', open)
  const inner = key.slice(colon + 1, key.indexOf('}', colon))
  return inner.replace(/%(25|7B|7D)/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
}

/** Records calls on a stand-in for a pipeline or MULTI; `run` executes them at `exec`. */
function recorder<T>(run: (calls: Call[]) => Promise<unknown>): T {
  const calls: Call[] = []
  const proxy: unknown = new Proxy(
    {},
    {
      get(_, name) {
        if (name === 'exec') return () => run(calls)
        if (name === 'then') return undefined
        return (...args: unknown[]) => {
          calls.push([String(name), args])
          return proxy
        }
      },
    },
  )
  return proxy as T
}

/** A pipeline of reads: one on a single Redis, one command each on a cluster. */
export function readPipe(c: RedisClient): Pipeline {
  if (c instanceof Redis) return c.pipeline()
  const client = c as unknown as Client
  return recorder<Pipeline>((calls) =>
    Promise.all(
      calls.map(([name, args]) =>
        (client[name]!(...args) as Promise<unknown>).then(
          (value) => [null, value],
          (err: unknown) => [err, null],
        ),
      ),
    ),
  )
}

/** A MULTI of writes: one on a single Redis, one per hash tag on a cluster. */
export function writeMulti(c: RedisClient): Multi {
  if (c instanceof Redis) return c.multi()
  return recorder<Multi>(async (calls) => {
    const bySlot = new Map<string, Call[]>()
    for (const call of calls) {
      // A script's first key follows the script and the key count.
      const [name, args] = call
      const tag = tagOf(String(name === 'eval' || name === 'evalsha' ? args[2] : args[0]))
      bySlot.set(tag, [...(bySlot.get(tag) ?? []), call])
    }
    const out: unknown[] = []
    for (const group of bySlot.values()) {
      const m = c.multi() as unknown as Client
      for (const [name, args] of group) m[name]!(...args)
      out.push(...(((await (m.exec as () => Promise<unknown[] | null>)()) ?? []) as unknown[]))
    }
    return out
  })
}

/** `text` with the glob characters of SCAN's MATCH escaped, so that the pattern matches it literally. */
export function globLiteral(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`)
}

/** Every key matching `pattern` (SCAN, never KEYS), on every primary of a cluster. */
export async function scanKeys(c: RedisClient, pattern: string): Promise<string[]> {
  const nodes = c instanceof Redis ? [c] : c.nodes('master')
  const keys: string[] = []
  for (const node of nodes) {
    let cursor = '0'
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000)
      keys.push(...batch)
      cursor = next
    } while (cursor !== '0')
  }
  return [...new Set(keys)]
}
