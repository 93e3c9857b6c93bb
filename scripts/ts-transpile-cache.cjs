'use strict'
/**
 * The transpiler ts-node uses under tap (tsconfig.json's "ts-node" section):
 * TypeScript's transpileModule, called exactly as ts-node calls it itself,
 * with each file's output kept on disk between test processes.
 *
 * Why: every tap test file is its own process, and ts-node keeps nothing
 * between processes. Transpiling lib/ cost about 5 s of CPU in each one
 * (1.4 s of it lib/schema/validators.generated.ts, 1.7 MB); with the cache,
 * tap's part of `npm test` with every service took 1,103 s instead of 1,449
 * on a 2-core Intel host (2026-11-30). The output is byte for byte what
 * ts-node would have made, so stack traces, source maps and coverage do not
 * change.
 *
 * One cache file per source file, emit kind and compiler options, holding
 * the hash of the source it was made from: an edited file replaces its entry,
 * so the cache holds at most one entry per file. Entries are written to a
 * temporary name and renamed, so parallel test processes never read half of
 * one. A file with diagnostics is not cached, so ts-node reports them every
 * time. `rm -rf node_modules/.cache/mobisite-ts` empties it; MOBISITE_TS_CACHE
 * names another folder (test/structure/transpile-cache.ts uses one of its own).
 */
const { createHash } = require('node:crypto')
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs')
const { dirname, join } = require('node:path')
const ts = require('typescript')

// ts-node's own copy of transpileModule, which takes the module format that
// NodeNext needs; the package does not export it, so it is loaded by path.
const tsNodeRoot = dirname(require.resolve('@isaacs/ts-node-temp-fork-for-pr-2009/package.json'))
const { createTsTranspileModule } = require(join(tsNodeRoot, 'dist/ts-transpile-module.js'))
const tsNodeVersion = require(join(tsNodeRoot, 'package.json')).version

const DEFAULT_CACHE = join(__dirname, '..', 'node_modules', '.cache', 'mobisite-ts')

const sha256 = (text) => createHash('sha256').update(text).digest('hex')

/** ts-node's transpiler factory: one per compiler options and module emit kind. */
exports.create = ({ service, nodeModuleEmitKind }) => {
  const cache = process.env.MOBISITE_TS_CACHE || DEFAULT_CACHE
  const compilerOptions = service.config.options
  const format = nodeModuleEmitKind === 'nodeesm' ? 'module' : 'commonjs'
  const settings = JSON.stringify([ts.version, tsNodeVersion, format, compilerOptions])
  let transpileModule
  return {
    transpile(code, { fileName }) {
      const entry = join(cache, `${sha256(`${settings}\0${fileName}`)}.json`)
      const source = sha256(code)
      try {
        const cached = JSON.parse(readFileSync(entry, 'utf8'))
        if (cached.source === source) return { outputText: cached.outputText, sourceMapText: cached.sourceMapText }
      } catch {
        // Not cached yet (or unreadable): transpile below.
      }
      transpileModule ??= createTsTranspileModule(ts, { compilerOptions, reportDiagnostics: true })
      const result = transpileModule(code, { fileName }, format)
      if (!result.diagnostics?.length) {
        const { outputText, sourceMapText } = result
        try {
          mkdirSync(cache, { recursive: true })
          const temporary = `${entry}.${process.pid}.tmp`
          writeFileSync(temporary, JSON.stringify({ source, outputText, sourceMapText }))
          renameSync(temporary, entry)
        } catch {
          // A read-only tree still runs, only without the cache.
        }
      }
      return result
    },
  }
}
