/**
 * The layers run one way: http/dashboard/collector/redirect/testing → engine
 * → store, with agents, schema, errors and the public types below them all.
 * Every import and re-export of every file under lib/ is read with the
 * TypeScript API, so `import type`, `export … from` and dynamic `import()`
 * all count.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import ts from 'typescript'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

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
]
/** Files directly under lib/ (server.ts, cli.ts, index.ts, subpath entries) sit on top. */
const TOP = 4

function rankOf(file: string): number {
  for (const [prefix, rank] of RANKS) if (file === prefix || file.startsWith(prefix)) return rank
  return TOP
}

function sources(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(join(root, dir))) {
    const path = `${dir}/${name}`
    if (statSync(join(root, path)).isDirectory()) out.push(...sources(path))
    else if (name.endsWith('.ts')) out.push(path)
  }
  return out
}

/** Repository-relative paths of the local files `file` imports or re-exports. */
function importsOf(file: string, text: string): string[] {
  const info = ts.preProcessFile(text, true, true)
  return info.importedFiles
    .map((f) => f.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => relative(root, resolve(root, dirname(file), name)).replace(/\.js$/, '.ts'))
}

/** Every import that runs up the layers, as `from -> to`. */
function violations(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = []
  for (const [file, text] of files) {
    for (const target of importsOf(file, text)) {
      if (rankOf(target) > rankOf(file)) out.push(`${file} -> ${target}`)
    }
  }
  return out
}

t.test('no file under lib/ imports from a layer above its own', async (t) => {
  const files = new Map(sources('lib').map((f) => [f, readFileSync(join(root, f), 'utf8')]))
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
    ['lib/store/x.ts', "import { startServer } from '../server.js'", 'lib/server.ts'],
    ['lib/agents/x.ts', "import type { Store } from '../store/contract.js'", 'lib/store/contract.ts'],
    ['lib/redirect/x.ts', "import { startServer } from '../server.js'", 'lib/server.ts'],
  ]
  for (const [file, text, target] of cases) t.same(violations(new Map([[file, text]])), [`${file} -> ${target}`], text)
  const allowed: Array<[string, string]> = [
    ['lib/redirect/x.ts', "import { DEFAULT_AGENTS } from '../agents/default.js'"],
    ['lib/engine/x.ts', "import { DEFAULT_AGENTS } from '../agents/default.js'"],
    ['lib/engine/x.ts', "import { MemoryStore } from '../store/memory.js'"],
    ['lib/http/x.ts', "import type { Engine } from '../engine/types.js'"],
    ['lib/server.ts', "import { apiRouter } from './http/router.js'"],
    ['lib/engine/x.ts', "import express from 'express'"],
  ]
  for (const [file, text] of allowed) t.same(violations(new Map([[file, text]])), [], text)
})

t.test('the engine never imports express', async (t) => {
  for (const file of sources('lib/engine')) {
    const names = ts
      .preProcessFile(readFileSync(join(root, file), 'utf8'), true, true)
      .importedFiles.map((f) => f.fileName)
    t.notOk(names.includes('express'), file)
  }
})
