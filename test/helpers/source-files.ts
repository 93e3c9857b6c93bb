/**
 * The repository's TypeScript sources as the structure tests read them
 * (test/structure/): which files there are, and which local files each one
 * imports, read with the TypeScript API so that `import type`,
 * `export … from` and dynamic `import()` all count.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

/** The repository's root. */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

/** Repository-relative paths of the .ts files under `dir`, at any depth. */
export function sources(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(join(root, dir))) {
    const path = `${dir}/${name}`
    if (statSync(join(root, path)).isDirectory()) out.push(...sources(path))
    else if (name.endsWith('.ts')) out.push(path)
  }
  return out
}

/** The files under each of `dirs`, each with its text, by repository-relative path. */
export const readSources = (...dirs: string[]): Map<string, string> =>
  new Map(dirs.flatMap(sources).map((f) => [f, readFileSync(join(root, f), 'utf8')]))

/** Repository-relative paths of the local files `file` (whose text is `text`) imports or re-exports. */
export function importsOf(file: string, text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => relative(root, resolve(root, dirname(file), name)).replace(/\.js$/, '.ts'))
}
