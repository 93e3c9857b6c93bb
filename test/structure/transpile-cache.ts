/**
 * The transpiler tap's ts-node uses (scripts/ts-transpile-cache.cjs, named in
 * tsconfig.json): its output is byte for byte ts-node's own, so stack
 * traces, source maps and coverage are what they were without it; a second
 * service reads the same text back from disk; an edited file replaces its
 * entry; and a file with syntax errors is reported every time, never cached.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)))
const require = createRequire(import.meta.url)
type Service = { compile(code: string, fileName: string): string }
const tsNode = require('@isaacs/ts-node-temp-fork-for-pr-2009') as {
  create(options: { project: string; transpileOnly: boolean }): Service
}
const transpiler = require(join(root, 'scripts/ts-transpile-cache.cjs')) as {
  create(options: { service: { config: { options: object } }; nodeModuleEmitKind?: string }): {
    transpile(code: string, options: { fileName: string }): { outputText: string; diagnostics?: unknown[] }
  }
}

const work = mkdtempSync(join(tmpdir(), 'mobisite-transpile-'))
t.teardown(() => rmSync(work, { recursive: true, force: true }))
const cache = join(work, 'cache')
const previous = process.env.MOBISITE_TS_CACHE
process.env.MOBISITE_TS_CACHE = cache
t.teardown(() => {
  if (previous === undefined) delete process.env.MOBISITE_TS_CACHE
  else process.env.MOBISITE_TS_CACHE = previous
})

// ts-node as it is without the cache: the same compiler options, no "ts-node" section.
const plainConfig = join(work, 'plain', 'tsconfig.json')
mkdirSync(join(work, 'plain'))
const { compilerOptions } = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')) as { compilerOptions: object }
writeFileSync(plainConfig, JSON.stringify({ compilerOptions }))
const plain = tsNode.create({ project: plainConfig, transpileOnly: true })
const cached = () => tsNode.create({ project: join(root, 'tsconfig.json'), transpileOnly: true })

const FILES = ['lib/index.ts', 'lib/engine/auth/ttl-cache.ts', 'lib/agents/compile.ts', 'test/helpers/cli.ts']
const read = (path: string) => readFileSync(join(root, path), 'utf8')

t.test("the output is ts-node's own, from a cold cache and from a warm one", async (t) => {
  const cold = cached()
  for (const path of FILES) {
    const expected = plain.compile(read(path), join(root, path))
    t.equal(cold.compile(read(path), join(root, path)), expected, `${path}: a miss`)
  }
  t.equal(readdirSync(cache).length, FILES.length, 'one entry per file')
  const warm = cached()
  for (const path of FILES) {
    t.equal(warm.compile(read(path), join(root, path)), plain.compile(read(path), join(root, path)), `${path}: a hit`)
  }
})

t.test('an edited file replaces its entry; one with syntax errors is never cached', async (t) => {
  const own = join(work, 'own')
  process.env.MOBISITE_TS_CACHE = own
  t.teardown(() => {
    process.env.MOBISITE_TS_CACHE = cache
  })
  const esm = transpiler.create({ service: { config: { options: compilerOptions } }, nodeModuleEmitKind: 'nodeesm' })
  const fileName = join(root, 'lib', 'edited.ts')
  t.match(esm.transpile('export const a: number = 1\n', { fileName }).outputText, 'export const a = 1;')
  t.match(esm.transpile('export const a: number = 2\n', { fileName }).outputText, 'export const a = 2;')
  t.equal(readdirSync(own).length, 1, 'the edit replaced the entry')
  t.match(esm.transpile('export const a: number = 2\n', { fileName }).outputText, 'export const a = 2;', 'and is read')

  const broken = join(root, 'lib', 'broken.ts')
  for (const attempt of [1, 2]) {
    const result = esm.transpile('export const = \n', { fileName: broken })
    t.ok(result.diagnostics?.length, `attempt ${attempt}: the syntax error is reported`)
  }
  t.equal(readdirSync(own).length, 1, 'and not cached')
})
