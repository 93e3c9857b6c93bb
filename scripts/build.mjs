#!/usr/bin/env node
/**
 * `npm run build`: dist/esm (ES modules) and dist/cjs (CommonJS) from lib/
 * and types/, sized for the tarball (issue 37: at most 4 MB unpacked).
 *
 * - Declarations: one type-checked tsc run; the same .d.ts text serves both
 *   builds (each folder's package.json type tells TypeScript the format), and
 *   keeps every TSDoc comment, which is where users read the documentation.
 * - ES modules: each entry point bundled by esbuild, code shared between
 *   entries split into dist/esm/lib/chunks (one copy of each module, so a
 *   class is the same class whichever entry exports it), dependencies left
 *   as imports. esbuild makes a chunk per set of entries sharing code (eleven
 *   for the root); rollup then merges the root's into two (mergeChunks), since
 *   each file costs Node's loader about half a millisecond whatever its size.
 *   Three files instead of 140 modules: importing the root costs about what
 *   importing express does (issue 37), not twice that.
 * - CommonJS: each file transpiled on its own with `ts.transpileModule`,
 *   which under `isolatedModules` is exactly what tsc emits, without
 *   comments (a third of the JavaScript's size).
 * - Declarations ship only where an entry point's types reach them (the
 *   "exports" map lets nobody import the rest), and json-schema-to-ts's
 *   declarations, which the schema types are written in, ship with them in
 *   dist/vendor (MIT, licence included): it is a types-only need, so it is
 *   not a runtime dependency (issue 37).
 * - The CLI (lib/cli) is in the ESM build only: package.json's "bin" runs it.
 * - The precompiled validators (lib/schema/validators.generated.ts, 2.6 MB as
 *   tsc writes it) ship once, minified by esbuild as CommonJS in dist/cjs,
 *   which both builds require on the first validation (LAZY_VALIDATORS
 *   replaces lib/schema/validators-load.ts). esbuild leaves the requires of its two
 *   imports to the CommonJS build's own modules.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, transformSync } from 'esbuild'
import { rollup } from 'rollup'
import ts from 'typescript'

const root = fileURLToPath(new URL('..', import.meta.url))
const dist = join(root, 'dist')
const tsc = join(root, 'node_modules/typescript/bin/tsc')
const VALIDATORS = 'lib/schema/validators.generated'
const VALIDATORS_LOAD = 'lib/schema/validators-load'
/**
 * lib/schema/validators-load.ts in the builds: the validators required on
 * first use. CommonJS requires its sibling; the ES module bundle finds
 * dist/cjs from its own chunk's location (import.meta.url).
 */
const LAZY_VALIDATORS = {
  cjs: `"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.loadValidators = loadValidators;
let generated;
function loadValidators() {
    return (generated ??= require("./validators.generated.js"));
}
`,
  esm: `import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
let generated
export function loadValidators() {
  if (generated === undefined) {
    const url = import.meta.url
    const dist = url.slice(0, url.lastIndexOf('/dist/esm/'))
    generated = createRequire(url)(fileURLToPath(\`\${dist}/dist/cjs/${VALIDATORS}.js\`))
  }
  return generated
}
`,
}

/** Every .ts file under the given source folders, relative to the root. */
function sources(...folders) {
  const out = []
  const walk = (dir) => {
    for (const name of readdirSync(join(root, dir))) {
      const path = join(dir, name)
      if (statSync(join(root, path)).isDirectory()) walk(path)
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path)
    }
  }
  for (const folder of folders) walk(folder)
  return out.sort()
}

function write(path, text) {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
}

/** The entry points' declarations (package.json "exports"), relative to a build folder. */
const ENTRY_DECLARATIONS = ['lib/index', 'lib/redis', 'lib/postgres', 'lib/testing/index', 'lib/edge']
/** Types-only packages whose declarations ship in dist/vendor: name → where its declarations are. */
const VENDORED_TYPES = { 'json-schema-to-ts': 'lib/types', 'ts-algebra': 'lib' }

function files(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
}

/** Deletes every .d.ts under `folder` that no entry point's declarations import, directly or not. */
function pruneUnreachableDeclarations(folder) {
  const reached = new Set()
  const pending = ENTRY_DECLARATIONS.map((entry) => join(folder, `${entry}.d.ts`))
  while (pending.length > 0) {
    const file = pending.pop()
    if (reached.has(file)) continue
    reached.add(file)
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/(?:from|import\()\s*['"](\.[^'"]+)['"]/g)) {
      pending.push(join(dirname(file), specifier.replace(/\.js$/, '.d.ts')))
    }
  }
  for (const file of files(folder)) if (file.endsWith('.d.ts') && !reached.has(file)) rmSync(file)
}

/**
 * Copies each VENDORED_TYPES package's declarations and licence into
 * dist/vendor/<name>. They are extensionless CommonJS-style declarations,
 * hence the folder's `type: commonjs`; their imports of each other become
 * relative paths.
 */
function vendorTypes() {
  const vendor = join(dist, 'vendor')
  for (const [name, types] of Object.entries(VENDORED_TYPES)) {
    const from = join(root, 'node_modules', name)
    for (const file of files(join(from, types))) {
      if (!file.endsWith('.d.ts')) continue
      const target = join(vendor, name, relative(join(from, types), file))
      write(target, withVendoredSpecifiers(readFileSync(file, 'utf8'), dirname(target)))
    }
    cpSync(join(from, 'LICENSE'), join(vendor, name, 'LICENSE'))
  }
  write(join(vendor, 'package.json'), JSON.stringify({ type: 'commonjs' }))
}

/** `text` with each vendored package's quoted name replaced by its path from `dir`. */
function withVendoredSpecifiers(text, dir) {
  let out = text
  for (const name of Object.keys(VENDORED_TYPES)) {
    const path = relative(dir, join(dist, 'vendor', name, 'index.js'))
    out = out.replaceAll(`'${name}'`, `'${path}'`).replaceAll(`"${name}"`, `"${path}"`)
  }
  return out
}

/** Points the declarations of a build folder at dist/vendor. */
function pointAtVendoredTypes(folder) {
  for (const file of files(folder)) {
    if (!file.endsWith('.d.ts')) continue
    const text = readFileSync(file, 'utf8')
    const pointed = withVendoredSpecifiers(text, dirname(file))
    if (pointed !== text) writeFileSync(file, pointed)
  }
}

rmSync(dist, { recursive: true, force: true })

// Declarations, type-checked once (tsconfig.build.json: lib and types).
const checked = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--emitDeclarationOnly'], {
  cwd: root,
  stdio: 'inherit',
})
if (checked.status !== 0) process.exit(checked.status ?? 1)
pruneUnreachableDeclarations(join(dist, 'esm'))
vendorTypes()

// The CLI runs as ES modules only (package.json "bin"); CommonJS users never load it.
const ONLY_ESM = 'lib/cli/'
cpSync(join(dist, 'esm'), join(dist, 'cjs'), {
  recursive: true,
  filter: (path) => !`${relative(join(dist, 'esm'), path)}/`.startsWith(ONLY_ESM),
})

const ESM_ENTRIES = [...ENTRY_DECLARATIONS, 'lib/cli/index']
const split = join(dist, '.split')
await build({
  entryPoints: ESM_ENTRIES.map((entry) => join(root, `${entry}.ts`)),
  outdir: split,
  outbase: root,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  chunkNames: 'lib/chunks/[name]-[hash]',
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [
    {
      name: 'lazy-validators',
      setup(build) {
        build.onResolve({ filter: /\/validators-load\.js$/ }, () => ({ path: VALIDATORS_LOAD, namespace: 'lazy' }))
        build.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({ contents: LAZY_VALIDATORS.esm, loader: 'js' }))
      },
    },
  ],
})

await mergeChunks(split, join(dist, 'esm'))
rmSync(split, { recursive: true })

/**
 * Rewrites esbuild's split output (`from`) into `to` with fewer chunks: every
 * chunk the root entry imports statically becomes one `core` chunk, except
 * those the edge entry imports, which become one `redirect` chunk (the edge
 * entry must not load express). Chunks loaded by dynamic import stay apart.
 * Nothing is re-bundled: each esbuild chunk is one rollup module.
 */
async function mergeChunks(from, to) {
  const input = Object.fromEntries(ESM_ENTRIES.map((entry) => [entry, join(from, `${entry}.js`)]))
  let graphs
  const bundle = await rollup({
    input,
    external: (id) => !id.startsWith('.') && !id.startsWith('/'),
    treeshake: false,
    onwarn(warning, warn) {
      if (warning.code !== 'CIRCULAR_DEPENDENCY') warn(warning)
    },
  })
  await bundle.write({
    dir: to,
    format: 'es',
    entryFileNames: '[name].js',
    chunkFileNames: 'lib/chunks/[name].js',
    manualChunks(id, { getModuleInfo }) {
      if (!id.startsWith(join(from, 'lib/chunks/'))) return undefined
      const reached = (entry) => {
        const seen = new Set()
        const pending = [input[entry]]
        while (pending.length > 0) {
          const next = pending.pop()
          if (seen.has(next)) continue
          seen.add(next)
          pending.push(...(getModuleInfo(next)?.importedIds ?? []))
        }
        return seen
      }
      graphs ??= { edge: reached('lib/edge'), root: reached('lib/index') }
      if (graphs.edge.has(id)) return 'redirect'
      if (graphs.root.has(id)) return 'core'
      return undefined
    },
  })
  await bundle.close()
}

const cjsOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.CommonJS,
  esModuleInterop: true,
  removeComments: true,
  isolatedModules: true,
}
for (const file of sources('lib', 'types')) {
  if (file === `${VALIDATORS}.ts` || file.startsWith(ONLY_ESM)) continue
  if (file === `${VALIDATORS_LOAD}.ts`) {
    write(join(dist, 'cjs', `${VALIDATORS_LOAD}.js`), LAZY_VALIDATORS.cjs)
    continue
  }
  const text = readFileSync(join(root, file), 'utf8')
  const { outputText, diagnostics } = ts.transpileModule(text, { compilerOptions: cjsOptions, fileName: file })
  if (diagnostics?.length) throw new Error(`${file}: ${ts.flattenDiagnosticMessageText(diagnostics[0].messageText)}`)
  write(join(dist, 'cjs', file.replace(/\.ts$/, '.js')), outputText)
}
write(join(dist, 'cjs', 'package.json'), JSON.stringify({ type: 'commonjs' }))
for (const folder of ['esm', 'cjs']) pointAtVendoredTypes(join(dist, folder))

const validators = readFileSync(join(root, `${VALIDATORS}.ts`), 'utf8')
const { code } = transformSync(validators, {
  loader: 'ts',
  format: 'cjs',
  platform: 'node',
  minify: true,
  target: 'node20',
})
write(join(dist, 'cjs', `${VALIDATORS}.js`), code)
