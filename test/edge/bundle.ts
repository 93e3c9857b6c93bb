/**
 * mobisite/edge bundles for a platform without Node: esbuild, `neutral`,
 * minified, nothing external. A `node:` import, `Buffer`, `process` or a
 * Node-only package anywhere under lib/edge.ts fails the build or this
 * test. Its size stays within the budget docs/redirect.md states: at most
 * 32 KB minified and 12 KB gzip.
 */
import { gzipSync } from 'node:zlib'
import t from 'tap'
import { bundleEdge } from '../helpers/edge-runtimes.js'

/** The budget (bytes). */
const MAX_MINIFIED = 32 * 1024
const MAX_GZIP = 12 * 1024

t.test('lib/edge.ts bundles with no Node built-in, express or Node-only package', async (t) => {
  const { code, inputs } = await bundleEdge('esm')
  t.same(
    inputs.filter((path) => path.startsWith('node:') || !/^(lib|types)\//.test(path)),
    [],
    'every input is a file of lib/ (no package, no built-in)',
  )
  t.notOk(inputs.includes('lib/redirect/middleware.ts'), 'not the Express middleware')
  // Names a runtime without Node lacks; a reference that survives minification would throw there.
  for (const name of ['process.', 'Buffer', 'require(', 'setInterval', '__dirname']) {
    t.notOk(code.includes(name), `no ${name} in the bundle`)
  }
})

t.test('the minified bundle is within 32 KB and 12 KB gzip', async (t) => {
  const { code } = await bundleEdge('esm')
  const bytes = Buffer.byteLength(code)
  const gzip = gzipSync(code, { level: 9 }).length
  t.comment(`mobisite/edge, esbuild ESM minified: ${bytes} bytes, ${gzip} bytes gzip (level 9)`)
  t.ok(bytes <= MAX_MINIFIED, `${bytes} bytes ≤ ${MAX_MINIFIED}`)
  t.ok(gzip <= MAX_GZIP, `${gzip} bytes gzip ≤ ${MAX_GZIP}`)
})

t.test('the IIFE build defines the public names', async (t) => {
  const { code } = await bundleEdge('iife')
  const exported = new Function(`${code}; return mobisiteEdge`)() as Record<string, unknown>
  for (const name of [
    'createMobileRedirect',
    'createAgentMatcher',
    'AgentsSourceError',
    'DEFAULT_AGENTS',
    'DEFAULT_SKIP',
  ])
    t.ok(name in exported, name)
})
