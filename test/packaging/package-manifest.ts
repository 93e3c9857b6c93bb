/**
 * package.json agrees with itself: every subpath export has ESM and CJS
 * entries with types, every file it names exists after the build, and
 * `typesVersions` maps every subpath for consumers on the older `node10`
 * module resolution (which ignores `exports`). test/packaging/package.ts installs the
 * packed tarball; this one catches a subpath added to `exports` alone in a second.
 */
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const root = fileURLToPath(new URL('../..', import.meta.url))
interface Conditions {
  types: string
  default: string
}
const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
  exports: Record<string, string | { import: Conditions; require: Conditions }>
  typesVersions: Record<string, Record<string, string[]>>
}
const subpaths = Object.entries(manifest.exports).filter(([path]) => path !== './package.json')

for (const [path, entry] of subpaths) {
  t.test(`export ${path}`, async (t) => {
    if (typeof entry === 'string') return t.fail('has import and require conditions')
    for (const condition of ['import', 'require'] as const) {
      const { types, default: code } = entry[condition]
      t.match(types, /\.d\.ts$/, `${condition} names its types`)
      t.ok(existsSync(`${root}${types}`), `${condition} types exist: ${types}`)
      t.ok(existsSync(`${root}${code}`), `${condition} code exists: ${code}`)
    }
    if (path === '.') return
    const mapped = manifest.typesVersions['*']?.[path.slice(2)]
    t.ok(mapped, `typesVersions maps ${path.slice(2)}`)
    t.strictSame(mapped, [entry.require.types], 'typesVersions points at the CommonJS types')
  })
}
