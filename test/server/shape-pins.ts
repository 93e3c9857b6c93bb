/**
 * lib/server/shape-pins.ts: a server started with startServer keeps the
 * shape of `process.nextTick`'s queued object alive, so full GCs while it
 * idles leave nextTick's inline caches monomorphic. Read from V8 itself
 * (`%DebugPrint` in a child started with --allow-natives-syntax). The
 * control, the same child without a server, shows the fault on Node 20,
 * whose V8 turns those caches megamorphic when the maps are collected.
 */
import { spawn } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { root } from '../helpers/cli.js'
import { TSX_CHILD_ENV } from '../helpers/tsx-child.js'

/** Ticks, then full GCs with no tick queued, more ticks, then V8's view of nextTick's feedback. */
const childSource = (startsServer: boolean): string => `
const { startServer } = await import(${JSON.stringify(`${root}lib/server/index.ts`)})
if (${startsServer}) {
  const server = await startServer({ port: 0 })
  await fetch(server.url + '/healthz')
  await server.close()
}
const noop = () => {}
const idle = () => new Promise((resolve) => setImmediate(resolve))
for (let i = 0; i < 1000; i++) { process.nextTick(noop); await idle() }
for (let k = 0; k < 3; k++) { await idle(); globalThis.gc(); process.nextTick(noop); await idle() }
// tsx compiles this source, and esbuild would reject V8's % syntax: V8 parses the string.
;(0, eval)('%DebugPrint(process.nextTick)')
`

/** The states of nextTick's object-literal stores, as `%DebugPrint` lists them. */
async function literalStores(t: Test, startsServer: boolean): Promise<string[]> {
  // A file, not a pipe: V8 prints with plain writes, which a pipe Node has made non-blocking can cut short.
  const dir = mkdtempSync(join(tmpdir(), 'mobisite-shape-pins-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'stdout')
  const out = openSync(file, 'w')
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--expose-gc',
      '--allow-natives-syntax',
      '--input-type=module',
      '-e',
      childSource(startsServer),
    ],
    { cwd: root, env: TSX_CHILD_ENV, stdio: ['ignore', out, 'inherit'] },
  )
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  closeSync(out)
  const printed = readFileSync(file, 'utf8')
  if (code !== 0) throw new Error(`child exited ${code}: ${printed.slice(-2000)}`)
  return [...printed.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1]!)
}

t.test('after full GCs while idle, nextTick stays monomorphic in a process that started a server', async (t) => {
  const pinned = await literalStores(t, true)
  t.ok(pinned.length >= 2, `V8 listed nextTick's literal stores: ${pinned.join(', ')}`)
  t.same(
    pinned.filter((state) => state === 'MEGAMORPHIC'),
    [],
    'none megamorphic',
  )
})

const node20 = process.versions.node.startsWith('20.')
t.test(
  'the control: without a server, the same GCs leave nextTick megamorphic on Node 20',
  { skip: !node20 && 'Node 22 and later keep these caches monomorphic by themselves' },
  async (t) => {
    const control = await literalStores(t, false)
    t.ok(control.includes('MEGAMORPHIC'), `the fault the pin prevents is real here: ${control.join(', ')}`)
  },
)
