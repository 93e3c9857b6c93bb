/**
 * `mobisite/edge` runs where Node does not: Cloudflare Workers, Vercel's edge
 * runtime, Deno, Bun. So everything its bundle holds must be runtime-neutral:
 * esbuild bundles lib/edge.ts for a neutral platform with nothing external
 * (a `node:` import or a Node-only package would fail to resolve), and no
 * bundled file of ours names express, `Buffer`, or `process` other than
 * through a guarded `globalThis` read.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import t from 'tap'

const root = fileURLToPath(new URL('../..', import.meta.url))

const result = await build({
  entryPoints: [`${root}lib/edge.ts`],
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'neutral',
  minify: true,
  metafile: true,
  logLevel: 'silent',
})
const inputs = Object.keys(result.metafile.inputs)

t.test('lib/edge.ts bundles for a neutral platform with no externals', async (t) => {
  t.same(result.errors, [])
  t.ok(inputs.includes('lib/edge.ts'))
  t.same(
    inputs.filter((path) => path.startsWith('node_modules/')),
    [],
    'no package: lru-cache, express and the rest stay out',
  )
})

t.test('no bundled source names express, Buffer or a bare process', async (t) => {
  for (const path of inputs) {
    const code = readFileSync(`${root}${path}`, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '')
    t.notMatch(code, /from ['"](?:express|node:)/, `${path}: no express or node: import`)
    t.notMatch(code, /\bBuffer\b/, `${path}: no Buffer`)
    t.notMatch(code, /(?<!globalThis as [^)]*\)\.)\bprocess\./, `${path}: process only through globalThis`)
  }
})

t.test('the redirect decision and its adapters are all in the bundle', async (t) => {
  for (const path of ['lib/redirect/decision.ts', 'lib/redirect/edge.ts', 'lib/agents/compile.ts'])
    t.ok(inputs.includes(path), path)
  t.notOk(inputs.includes('lib/redirect/middleware.ts'), 'the Express adapter is not')
})
