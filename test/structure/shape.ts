/**
 * The tree keeps the shape docs/ARCHITECTURE.md describes:
 * lib/ holds only the entry points and the error registry at its root, no
 * folder of lib/ grows past 20 files, no hand-written file past 400 lines,
 * every file named for today's Duda API sits under a duda/ folder, test/
 * keeps its files in folders by area, and ARCHITECTURE.md names every folder.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

/** Every folder under `dir` (itself included), repository-relative. */
function folders(dir: string): string[] {
  const inside = readdirSync(join(root, dir)).filter((name) => statSync(join(root, dir, name)).isDirectory())
  return [dir, ...inside.flatMap((name) => folders(`${dir}/${name}`))]
}

const filesIn = (dir: string) => readdirSync(join(root, dir)).filter((name) => statSync(join(root, dir, name)).isFile())
const sourcesIn = (dir: string) => filesIn(dir).filter((name) => name.endsWith('.ts'))

t.test('lib/ keeps only the entry points and the error registry at its root', async (t) => {
  t.same(sourcesIn('lib').sort(), ['edge.ts', 'errors.ts', 'index.ts', 'postgres.ts', 'redis.ts'])
})

t.test('no folder of lib/ holds more than 20 files', async (t) => {
  const crowded = folders('lib')
    .map((dir) => `${dir}: ${sourcesIn(dir).length}`)
    .filter((entry) => Number(entry.split(': ')[1]) > 20)
  t.same(crowded, [])
})

t.test('no hand-written file of lib/ is over 400 lines', async (t) => {
  const long = folders('lib').flatMap((dir) =>
    sourcesIn(dir)
      .filter((name) => !name.endsWith('.generated.ts'))
      // Released migrations are frozen text (test/store/postgres/migrations.ts pins them).
      .filter(() => !dir.endsWith('/migrations'))
      .map((name) => `${dir}/${name}: ${readFileSync(join(root, dir, name), 'utf8').split('\n').length - 1}`)
      .filter((entry) => Number(entry.split(': ')[1]) > 400),
  )
  t.same(long, [])
})

t.test("every file named for today's Duda API is under a duda/ folder", async (t) => {
  const stray = ['lib', 'test']
    .flatMap(folders)
    .filter((dir) => !dir.split('/').includes('duda'))
    .flatMap((dir) => filesIn(dir).map((name) => `${dir}/${name}`))
    .filter((path) => /duda/i.test(path.split('/').at(-1)!))
  t.same(stray, [])
})

t.test('test/ keeps at most 20 files at its root', async (t) => {
  const loose = sourcesIn('test')
  t.ok(loose.length <= 20, `${loose.length} files directly in test/: ${loose.join(', ')}`)
})

t.test('docs/ARCHITECTURE.md names every folder of lib/', async (t) => {
  const doc = readFileSync(join(root, 'docs/ARCHITECTURE.md'), 'utf8')
  for (const dir of folders('lib').slice(1)) {
    const last = dir.split('/').at(-1)!
    t.ok(doc.includes(`${dir}/`) || doc.includes(`\`${last}/\``), `${dir}/ is described`)
  }
})
