/**
 * The layers run one way: http/dashboard/collector/redirect/testing → engine
 * → store, with agents, schema, errors and the public types below them all.
 * Every import and re-export of every file under lib/ is read with the
 * TypeScript API, so `import type`, `export … from` and dynamic `import()`
 * all count.
 */
import t from 'tap'
import ts from 'typescript'
import { importsOf, readSources } from '../helpers/source-files.js'

/** Rank of each layer: a file may import only its own rank or lower. */
const RANKS: ReadonlyArray<readonly [prefix: string, rank: number]> = [
  ['types/', 0],
  ['lib/errors.ts', 0],
  ['lib/agents/', 0],
  ['lib/schema/', 0],
  ['lib/store/', 1],
  ['lib/engine/', 2],
  ['lib/http/', 3],
  ['lib/dashboard/', 3],
  ['lib/collector/', 3],
  ['lib/redirect/', 3],
  ['lib/testing/', 3],
  ['lib/server/', 4],
  ['lib/cli/', 6],
]
/** The package's entry points directly under lib/ (index.ts, edge.ts, redis.ts, postgres.ts) sit above what they export. */
const TOP = 5

function rankOf(file: string): number {
  for (const [prefix, rank] of RANKS) if (file === prefix || file.startsWith(prefix)) return rank
  return TOP
}

/**
 * Where a file under lib/store/ may import from besides the rank-0 layers: an
 * adapter (memory/, redis/, postgres/) only the contract, shared/ and its own
 * folder, never another adapter; shared/ only the contract and itself.
 */
function storeScope(file: string): string[] | undefined {
  const adapter = /^lib\/store\/(memory|redis|postgres)\//.exec(file)?.[1]
  if (adapter) return ['lib/store/contract/', 'lib/store/shared/', `lib/store/${adapter}/`]
  if (file.startsWith('lib/store/shared/')) return ['lib/store/contract/', 'lib/store/shared/']
  return undefined
}

function allowed(file: string, target: string): boolean {
  if (rankOf(target) > rankOf(file)) return false
  const scope = storeScope(file)
  return scope === undefined || rankOf(target) === 0 || scope.some((prefix) => target.startsWith(prefix))
}

/** Every import that runs up the layers, or out of a store adapter's scope, as `from -> to`. */
function violations(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = []
  for (const [file, text] of files) {
    for (const target of importsOf(file, text)) {
      if (!allowed(file, target)) out.push(`${file} -> ${target}`)
    }
  }
  return out
}

/** Every import cycle among `files`, each as `a -> b -> ... -> a`, found once. */
function cycles(files: ReadonlyMap<string, string>): string[] {
  const edges = new Map([...files].map(([file, text]) => [file, importsOf(file, text).filter((f) => files.has(f))]))
  const found: string[] = []
  const done = new Set<string>()
  const path: string[] = []
  const visit = (file: string): void => {
    const at = path.indexOf(file)
    if (at >= 0) {
      found.push([...path.slice(at), file].join(' -> '))
      return
    }
    if (done.has(file)) return
    path.push(file)
    for (const next of edges.get(file) ?? []) visit(next)
    path.pop()
    done.add(file)
  }
  for (const file of [...edges.keys()].sort()) visit(file)
  return found
}

t.test('no file under lib/ imports from a layer above its own', async (t) => {
  const files = readSources('lib')
  t.ok(files.size > 40, `read ${files.size} files`)
  t.ok(
    [...files.keys()].some((f) => f.startsWith('lib/engine/')),
    'the engine is among them',
  )
  t.same(violations(files), [])
})

t.test('the checker sees every form of import that could run upward', async (t) => {
  const cases: Array<[file: string, text: string, expected: string]> = [
    ['lib/engine/x.ts', "import { mobileRedirect } from '../redirect/middleware.js'", 'lib/redirect/middleware.ts'],
    ['lib/engine/x.ts', "import type { ApiRouterOptions } from '../http/router.js'", 'lib/http/router.ts'],
    ['lib/engine/x.ts', "export { analyticsCollector } from '../collector/index.js'", 'lib/collector/index.ts'],
    ['lib/engine/x.ts', "export * from '../dashboard/index.js'", 'lib/dashboard/index.ts'],
    ['lib/engine/x.ts', "const m = await import('../testing/index.js')", 'lib/testing/index.ts'],
    ['lib/store/x.ts', "import { createEngine } from '../engine/index.js'", 'lib/engine/index.ts'],
    ['lib/store/x.ts', "import { startServer } from '../server/index.js'", 'lib/server/index.ts'],
    ['lib/agents/x.ts', "import type { Store } from '../store/contract/index.js'", 'lib/store/contract/index.ts'],
    ['lib/redirect/x.ts', "import { startServer } from '../server/index.js'", 'lib/server/index.ts'],
    ['lib/store/redis/x.ts', "import { MemoryStore } from '../memory/store.js'", 'lib/store/memory/store.ts'],
    ['lib/store/postgres/x.ts', "import type { RedisConn } from '../redis/conn.js'", 'lib/store/redis/conn.ts'],
    ['lib/store/memory/x.ts', "export { PgConn } from '../postgres/conn.js'", 'lib/store/postgres/conn.ts'],
    ['lib/store/shared/x.ts', "import type { MemoryData } from '../memory/data.js'", 'lib/store/memory/data.ts'],
    ['lib/store/redis/x.ts', "import type { Engine } from '../../engine/types.js'", 'lib/engine/types.ts'],
  ]
  for (const [file, text, target] of cases) t.same(violations(new Map([[file, text]])), [`${file} -> ${target}`], text)
  const allowed: Array<[string, string]> = [
    ['lib/redirect/x.ts', "import { DEFAULT_AGENTS } from '../agents/default.js'"],
    ['lib/engine/x.ts', "import { DEFAULT_AGENTS } from '../agents/default.js'"],
    ['lib/engine/x.ts', "import { MemoryStore } from '../store/memory/store.js'"],
    ['lib/http/x.ts', "import type { Engine } from '../engine/types.js'"],
    ['lib/server/index.ts', "import { apiRouter } from './http/router.js'"],
    ['lib/engine/x.ts', "import express from 'express'"],
    ['lib/store/redis/x.ts', "import type { Store } from '../contract/index.js'"],
    ['lib/store/memory/x.ts', "import type { SitesStore } from '../contract/sites.js'"],
    ['lib/store/redis/x.ts', "import { foldName } from '../shared/name-fold.js'"],
    ['lib/store/redis/lua/x.ts', "import { lua } from '../conn.js'"],
    ['lib/store/postgres/x.ts', "import { ACTIVITY_KINDS } from '../../../types/index.js'"],
    ['lib/store/memory/x.ts', "import { ServiceError } from '../../errors.js'"],
    ['lib/store/shared/x.ts', "import type { Store } from '../contract/index.js'"],
    ['lib/engine/x.ts', "import { RedisStore } from '../store/redis/store.js'"],
  ]
  for (const [file, text] of allowed) t.same(violations(new Map([[file, text]])), [], text)
})

t.test('no import cycle in lib/store, type-only imports included', async (t) => {
  const files = readSources('lib/store')
  t.ok(files.size > 30, `read ${files.size} files`)
  t.same(cycles(files), [])
})

t.test('the cycle finder sees a cycle through type-only imports and re-exports', async (t) => {
  const files = new Map([
    ['lib/store/postgres/conn.ts', "import { migrate } from './migrate.js'"],
    ['lib/store/postgres/migrate.ts', "import type { Sso } from './sso.js'"],
    ['lib/store/postgres/sso.ts', "export { statement } from './conn.js'"],
    ['lib/store/postgres/sites.ts', "import { statement } from './conn.js'"],
  ])
  t.same(cycles(files), [
    'lib/store/postgres/conn.ts -> lib/store/postgres/migrate.ts -> lib/store/postgres/sso.ts -> lib/store/postgres/conn.ts',
  ])
  files.delete('lib/store/postgres/sso.ts')
  t.same(cycles(files), [], 'no cycle once the loop is broken')
})

t.test('the engine never imports express', async (t) => {
  for (const [file, text] of readSources('lib/engine')) {
    const names = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName)
    t.notOk(names.includes('express'), file)
  }
})
