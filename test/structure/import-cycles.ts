/**
 * No import cycle anywhere in lib/ or types/: a module can be read, loaded
 * and moved without the modules that import it. Every import and re-export
 * of every file is read with the TypeScript API (as test/structure/layering.ts does),
 * so `import type`, `export … from` and dynamic `import()` all count: a
 * type-only cycle still ties two files together for a reader and a refactor.
 */
import t from 'tap'
import { importsOf, readSources } from '../helpers/source-files.js'

/**
 * Every cycle of the import graph, one per strongly connected component
 * (Tarjan), each named by one closed path through it: `a -> b -> a`.
 */
function cycles(files: ReadonlyMap<string, string>): string[] {
  const edges = new Map<string, string[]>()
  for (const [file, text] of files)
    edges.set(
      file,
      [...new Set(importsOf(file, text))].filter((f) => files.has(f)),
    )
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[] = []
  const visit = (file: string): void => {
    index.set(file, index.size)
    low.set(file, index.get(file)!)
    stack.push(file)
    onStack.add(file)
    for (const next of edges.get(file)!) {
      if (!index.has(next)) {
        visit(next)
        low.set(file, Math.min(low.get(file)!, low.get(next)!))
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!))
      }
    }
    if (low.get(file) !== index.get(file)) return
    const component = new Set<string>()
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.add(member)
    } while (member !== file)
    if (component.size > 1 || edges.get(file)!.includes(file)) found.push(closedPath(file, component, edges))
  }
  for (const file of [...files.keys()].sort()) if (!index.has(file)) visit(file)
  return found.sort()
}

/** A shortest path from `start` back to itself inside its component, as `a -> b -> a`. */
function closedPath(start: string, component: ReadonlySet<string>, edges: ReadonlyMap<string, string[]>): string {
  const from = new Map<string, string>()
  const queue = [start]
  for (let i = 0; i < queue.length; i++) {
    const file = queue[i]!
    for (const next of edges.get(file)!) {
      if (!component.has(next)) continue
      if (next === start) {
        const path = [start]
        for (let at = file; at !== start; at = from.get(at)!) path.splice(1, 0, at)
        return [...path, start].join(' -> ')
      }
      if (!from.has(next)) {
        from.set(next, file)
        queue.push(next)
      }
    }
  }
  return start
}

t.test('no import cycle among the files of lib/ and types/', async (t) => {
  const files = readSources('lib', 'types')
  t.ok(files.size > 40, `read ${files.size} files`)
  t.same(cycles(files), [])
})

t.test('the checker finds every kind of cycle and names it', async (t) => {
  const graph = (entries: Record<string, string>) => new Map(Object.entries(entries))
  t.same(
    cycles(
      graph({
        'lib/a.ts': "import type { B } from './b.js'",
        'lib/b.ts': "export { a } from './a.js'",
      }),
    ),
    ['lib/a.ts -> lib/b.ts -> lib/a.ts'],
    'a type-only import and a re-export',
  )
  t.same(
    cycles(
      graph({
        'lib/x/a.ts': "import { b } from '../y/b.js'",
        'lib/y/b.ts': "const c = await import('./c.js')",
        'lib/y/c.ts': "import '../x/a.js'",
        'lib/z.ts': "import { a } from './x/a.js'",
      }),
    ),
    ['lib/x/a.ts -> lib/y/b.ts -> lib/y/c.ts -> lib/x/a.ts'],
    'a dynamic import and a side-effect import, across folders; a file outside the loop is not in it',
  )
  t.same(
    cycles(graph({ 'lib/a.ts': "import { a } from './a.js'" })),
    ['lib/a.ts -> lib/a.ts'],
    'a file importing itself',
  )
  t.same(
    cycles(
      graph({
        'lib/a.ts': "import './b.js'",
        'lib/b.ts': "import './a.js'",
        'lib/c.ts': "import './d.js'",
        'lib/d.ts': "import './c.js'",
      }),
    ),
    ['lib/a.ts -> lib/b.ts -> lib/a.ts', 'lib/c.ts -> lib/d.ts -> lib/c.ts'],
    'separate cycles are each named',
  )
  t.same(
    cycles(
      graph({
        'lib/a.ts': "import './b.js'\nimport 'express'",
        'lib/b.ts': "import './c.js'",
        'lib/c.ts': '',
      }),
    ),
    [],
    'a chain and a package import are not cycles',
  )
})
