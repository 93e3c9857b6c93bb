/**
 * What the built package (`npm run build`) loads, and when, in a fresh
 * process per build: ua-parser-js with the first visit that has a
 * User-Agent (its system dimension reduced as always), pino and prom-client
 * with startServer or the CLI, the precompiled validators (one copy) with
 * the first validation, the server with the first startServer; the root is
 * three files of the ES module build; and the edge entry reaches nothing
 * outside the package.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const probe = `
import { createRequire } from 'node:module'
const require = createRequire(import.meta.url)
const loaded = () => Object.keys(require.cache).some((k) => k.includes('/ua-parser-js/'))
const m = await import(process.argv[1])
const steps = { imported: loaded() }
const engine = m.createEngine()
await engine.addMasterAccount({ user: 'u', password: 'p' })
await engine.as('u').createSite({ site_data: { site_name: 'lazy1', original_site_url: 'https://a.example/' } })
await engine.recordVisit({ site_name: 'lazy1', visitor_id: 'v1' })
await engine.recordActivity({ site_name: 'lazy1', kind: 'click_to_call' })
steps.withoutUserAgent = loaded()
await Promise.all([1, 2, 3].map((i) => engine.recordVisit({ site_name: 'lazy1', visitor_id: 'p' + i, user_agent: process.argv[2] })))
steps.withUserAgent = loaded()
steps.rows = await engine.as('u').siteAnalytics('lazy1', { result: 'traffic', dimension: 'system' })
await engine.close()
console.log(JSON.stringify(steps))
`
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1'

for (const build of ['esm', 'cjs']) {
  t.test(`${build} build: ua-parser-js is loaded by the first visit with a User-Agent, not before`, async (t) => {
    const entry = fileURLToPath(new URL(`../../dist/${build}/lib/index.js`, import.meta.url))
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', probe, entry, IPHONE], {
      encoding: 'utf8',
    })
    const steps = JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, unknown>
    t.equal(steps.imported, false, 'not loaded by importing the package')
    t.equal(steps.withoutUserAgent, false, 'not loaded by events without a User-Agent')
    t.equal(steps.withUserAgent, true, 'loaded by the first User-Agent to reduce')
    t.same(
      steps.rows,
      [
        {
          data: { UNIQUE_VISITORS: 3, VISITS: 3, PAGE_VIEWS: 3 },
          dimension: { browser: 'Mobile Safari 17', os: 'iOS' },
        },
        { data: { UNIQUE_VISITORS: 1, VISITS: 1, PAGE_VIEWS: 1 }, dimension: { browser: 'Unknown', os: 'Unknown' } },
      ],
      'visits that arrived while it loaded are reduced like any other',
    )
  })
}

t.test(
  'importing the package root loads neither prom-client nor pino (ops deps load with startServer / the CLI)',
  async (t) => {
    for (const build of ['esm', 'cjs']) {
      const entry = fileURLToPath(new URL(`../../dist/${build}/lib/index.js`, import.meta.url))
      const code = `import { createRequire } from 'node:module'
const require = createRequire(import.meta.url)
await import(process.argv[1])
console.log(JSON.stringify(Object.keys(require.cache).filter((k) => /node_modules\\/(prom-client|pino)/.test(k))))`
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', code, entry], { encoding: 'utf8' })
      t.same(JSON.parse(out.trim()), [], `${build} build`)
    }
  },
)

t.test('the precompiled validators load with the first validation, not with the package (both builds)', async (t) => {
  const code = `import { createRequire } from 'node:module'
const require = createRequire(import.meta.url)
const loaded = () => Object.keys(require.cache).filter((k) => k.endsWith('validators.generated.js'))
const m = await import(process.argv[1])
const steps = { imported: loaded() }
const engine = m.createEngine()
await engine.addMasterAccount({ user: 'u', password: 'p' })
steps.message = await engine.as('u').createSite({ site_data: { site_name: 'x!' } }).catch((error) => error.message)
steps.validated = loaded().map((k) => k.slice(k.indexOf('dist/')))
await engine.close()
console.log(JSON.stringify(steps))`
  for (const build of ['esm', 'cjs']) {
    const entry = fileURLToPath(new URL(`../../dist/${build}/lib/index.js`, import.meta.url))
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', code, entry], { encoding: 'utf8' })
    t.strictSame(
      JSON.parse(out.trim()),
      {
        imported: [],
        message: 'site_data.original_site_url is required',
        validated: ['dist/cjs/lib/schema/validators.generated.js'],
      },
      `${build} build: one copy, required by the first validation`,
    )
  }
})

/** The files of the ES module build that `file` imports statically, itself included, and what it imports from outside. */
function staticGraph(file: string): { files: Set<string>; external: Set<string> } {
  const files = new Set<string>()
  const external = new Set<string>()
  const visit = (file: string): void => {
    if (files.has(file)) return
    files.add(file)
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*["']([^"']+)["']/g)) {
      if (specifier!.startsWith('.')) visit(join(dirname(file), specifier!))
      else external.add(specifier!)
    }
  }
  visit(file)
  return { files, external }
}

t.test('importing the built root loads three files of the package: each costs Node about 0.5 ms', async (t) => {
  const dir = fileURLToPath(new URL('../../dist/esm/lib/', import.meta.url))
  const { files } = staticGraph(join(dir, 'index.js'))
  t.strictSame(
    [...files].map((file) => file.slice(dir.length)).sort(),
    ['chunks/core.js', 'chunks/redirect.js', 'index.js'],
    'the entry, the core chunk and the redirect chunk the edge entry shares',
  )
})

t.test('the server behind startServer loads with the first start, not with the package root', async (t) => {
  const entry = fileURLToPath(new URL('../../dist/cjs/lib/index.js', import.meta.url))
  const code = `const m = require(process.argv[1])
const loaded = () => Object.keys(require.cache).some((k) => k.endsWith('/lib/server/start.js'))
const steps = { imported: loaded() }
m.startServer().then(async (server) => {
  steps.started = loaded()
  await server.close()
  console.log(JSON.stringify(steps))
})`
  const out = execFileSync(process.execPath, ['-e', code, entry], { encoding: 'utf8' })
  t.strictSame(JSON.parse(out.trim()), { imported: false, started: true })
})

t.test('the built edge entry and the chunks it imports name no express and no Node built-in', async (t) => {
  const dir = fileURLToPath(new URL('../../dist/esm/lib/', import.meta.url))
  const { files, external } = staticGraph(join(dir, 'edge.js'))
  t.ok(files.size > 1, `edge.js and ${files.size - 1} chunks`)
  t.strictSame([...external], [], 'nothing imported from outside the package')
})
