/**
 * Code blocks of the docs run as the suite's own: a block is taken from its
 * Markdown file as written, its `mobisite` imports pointed at the sources of
 * this tree (nothing else in it changes), and written into a temporary
 * folder that resolves packages from the repository's node_modules, so a
 * test can type-check it, import it or run it with its own runner.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { Test } from 'tap'

const exec = promisify(execFile)

/** The repository's root, with a trailing slash. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/**
 * The first fenced block of `lang` after the line `heading` in `doc` (a path
 * under docs/), without its fences. Throws when either is missing, so a
 * renamed heading fails the test instead of skipping the example.
 */
export function fencedBlock(doc: string, heading: string, lang = 'ts'): string {
  const text = readFileSync(join(ROOT, doc), 'utf8')
  const at = text.split('\n').indexOf(heading)
  if (at < 0) throw new Error(`${doc} has no line ${JSON.stringify(heading)}`)
  const after = text.split('\n').slice(at + 1)
  const open = after.indexOf(`\`\`\`${lang}`)
  const close = after.indexOf('```', open + 1)
  if (open < 0 || close < 0) throw new Error(`${doc} has no \`\`\`${lang} block after ${JSON.stringify(heading)}`)
  return `${after.slice(open + 1, close).join('\n')}\n`
}

/** Each export of package.json (`mobisite`, `mobisite/testing`, ...) → the source it is built from. */
function sourceEntries(): Map<string, string> {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    name: string
    exports: Record<string, string | { import?: { default?: string } }>
  }
  const entries = new Map<string, string>()
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    const built = typeof target === 'string' ? target : target.import?.default
    if (!built?.startsWith('./dist/esm/')) continue
    entries.set(`${manifest.name}${subpath.slice(1)}`, join(ROOT, built.slice('./dist/esm/'.length)))
  }
  return entries
}

/** `code` with every `from 'mobisite…'` pointed at this tree's sources; an unknown subpath throws. */
export function withLocalSources(code: string): string {
  const entries = sourceEntries()
  return code.replace(/from '(mobisite(?:\/[\w-]+)?)'/g, (_whole, specifier: string) => {
    const source = entries.get(specifier)
    if (source === undefined) throw new Error(`the example imports ${specifier}, which the package does not export`)
    return `from '${source}'`
  })
}

/**
 * A temporary ESM folder holding `files` (name → text), with the
 * repository's node_modules linked in; removed at the end of `t`.
 */
export function exampleFolder(t: Test, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'mobisite-doc-example-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}

/** What `tsc --strict` reports for `file` of `dir` (the sources it imports checked with it); '' when nothing. */
export async function typeErrors(dir: string, file: string): Promise<string> {
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        skipLibCheck: true,
        types: ['node'],
      },
      files: [file],
    }),
  )
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
  return exec(process.execPath, [tsc, '-p', dir], { timeout: 120_000 }).then(
    ({ stdout }) => stdout,
    (error: { stdout?: string }) => error.stdout || String(error),
  )
}
