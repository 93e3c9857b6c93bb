/**
 * Compiles the throughput benchmark's server (agents-server.ts and the
 * middleware it loads) to plain JavaScript in a temporary directory, so the
 * measured processes run without a TypeScript loader: tsx's hooks thread
 * would otherwise add its own CPU time to every variant, unevenly.
 */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const root = fileURLToPath(new URL('..', import.meta.url))

/** The relative imports of a module (`./x.js`, `../y/z.js`), as repository paths of their `.ts` sources. */
function importsOf(file: string, source: string): string[] {
  return [...source.matchAll(/from '(\.\.?\/[^']+)\.js'/g)].map((m) =>
    join(dirname(file), `${m[1]}.ts`).replaceAll('\\', '/'),
  )
}

/** The compiled agents-server.js, and a function that deletes the build. */
export function buildServer(): { script: string; remove: () => void } {
  const out = mkdtempSync(join(tmpdir(), 'mobisite-agents-bench-'))
  // agents-server.ts and every module it reaches, so a new import of the middleware comes along.
  const queue = ['benchmark/agents-server.ts']
  const done = new Set<string>()
  while (queue.length > 0) {
    const file = queue.pop()!
    if (done.has(file)) continue
    done.add(file)
    const source = readFileSync(join(root, file), 'utf8')
    queue.push(...importsOf(file, source))
    const js = ts.transpileModule(source, {
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
