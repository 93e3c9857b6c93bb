/**
 * Compiles the throughput benchmark's server (agents-server.ts and the
 * middleware it loads) to plain JavaScript in a temporary directory, so the
 * measured processes run without a TypeScript loader: tsx's hooks thread
 * would otherwise add its own CPU time to every variant, unevenly.
 */
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const root = fileURLToPath(new URL('..', import.meta.url))

/** The compiled agents-server.js, and a function that deletes the build. */
export function buildServer(): { script: string; remove: () => void } {
  const out = mkdtempSync(join(tmpdir(), 'mobisite-agents-bench-'))
  const files = [
    'benchmark/agents-server.ts',
    ...['lib/redirect', 'lib/agents'].flatMap((dir) =>
      readdirSync(join(root, dir))
        .filter((f) => f.endsWith('.ts'))
        .map((f) => `${dir}/${f}`),
    ),
  ]
  for (const file of files) {
    const js = ts.transpileModule(readFileSync(join(root, file), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText
    const target = join(out, file.replace(/\.ts$/, '.js'))
    mkdirSync(dirname(target), { recursive: true })
    writeFileSync(target, js)
  }
  writeFileSync(join(out, 'package.json'), '{"type":"module"}')
  symlinkSync(join(root, 'node_modules'), join(out, 'node_modules'), 'dir')
  return {
    script: join(out, 'benchmark/agents-server.js'),
    remove: () => rmSync(out, { recursive: true, force: true }),
  }
}
