/**
 * Issue 37, metrics: the table of docs/operations.md ("## Metrics") against
 * what `/metrics` exports after a workload that fills every family the
 * server can export: the CLI's setup (an own registry with the default
 * metrics, a timed store), `--admin` and a state file, beacons past the rate
 * limit and while the store fails, and `mobileRedirect` sharing the registry.
 * Every exported family, label and value is in the table; every family in
 * the table is exported.
 *
 * The table: one row per label (a row with an empty first cell continues the
 * metric above). A Values cell is the closed list of its backticked values,
 * unless it says "e.g.": then its values are open, and OPEN below says what
 * each such label may hold.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import express from 'express'
import { collectDefaultMetrics, Registry } from 'prom-client'
import request from 'supertest'
import t from 'tap'
import { createEngine } from '../../lib/engine/index.js'
import { instrumentsFor } from '../../lib/http/metrics.js'
import { mobileRedirect } from '../../lib/redirect/middleware.js'
import { startServer } from '../../lib/server/index.js'
import { timedStore } from '../../lib/server/observability.js'
import { MemoryStore } from '../../lib/store/memory/store.js'
import { phones } from '../helpers/redirect-app.js'
import { parseExposition, scrape } from '../helpers/prom-text.js'

const root = new URL('../../', import.meta.url)
const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { version: string }

/** A documented family: its labels and, per label, the closed list of values or the literals of an open one. */
interface DocRow {
  name: string
  type: string
  labels: Map<string, { values: string[]; open: boolean }>
  /** The values of an unlabelled family, when the table lists them. */
  values: string[]
}

/** What an open label may hold besides the literals its cell lists. */
const OPEN: Record<string, (value: string) => boolean> = {
  version: (v) => v === version,
  node: (v) => v === process.version,
  status_code: (v) => /^[1-5]\d\d$/.test(v),
  operation: (v) => typeof (MemoryStore.prototype as unknown as Record<string, unknown>)[v] === 'function',
  route: (v) => /^\/api(\/([a-z0-9_.-]+|\{[a-z_]+\}))+$/.test(v),
}

/** Labels every histogram or summary adds. */
const STANDARD_LABELS = new Set(['le', 'quantile'])

const backticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)

/** The rows of the first table under "## Metrics". */
function documented(): DocRow[] {
  const text = readFileSync(new URL('docs/operations.md', root), 'utf8')
  const section = text.slice(text.indexOf('## Metrics'), text.indexOf('\n## ', text.indexOf('## Metrics') + 1))
  const lines = section.split('\n').filter((line) => line.startsWith('|'))
  const rows: DocRow[] = []
  for (const line of lines.slice(2)) {
    const [metric, type, label, values] = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim())
    if (metric === undefined || type === undefined || label === undefined || values === undefined) continue
    if (metric !== '') for (const name of backticked(metric)) rows.push({ name, type, labels: new Map(), values: [] })
    const row = rows.at(-1)!
    if (label === '') row.values = backticked(values)
    else row.labels.set(backticked(label)[0]!, { values: backticked(values), open: values.includes('e.g.') })
  }
  return rows
}

/** A MemoryStore whose recordEvents fails while `failing.now`. */
function storeFailingRecordings(): { store: MemoryStore; failing: { now: boolean } } {
  const failing = { now: false }
  const store = new Proxy(new MemoryStore(), {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown
      if (property !== 'recordEvents' || typeof value !== 'function') return value
      return (...args: unknown[]) =>
        failing.now
          ? Promise.reject(new Error('store down (test)'))
          : (value as (...a: unknown[]) => unknown).apply(target, args)
    },
  })
  return { store, failing }
}

t.test('docs/operations.md lists every family, label and value /metrics exports, and nothing else', async (t) => {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const { store, failing } = storeFailingRecordings()
  const engine = createEngine({ store: timedStore(store, instrumentsFor(registry)) })
  await engine.addMasterAccount({ user: 'u', password: 'p' })
  // Not t.testdir(): tap removes that before the teardown below has written the state file.
  const dir = mkdtempSync(join(tmpdir(), 'mobisite-metrics-docs-'))
  const server = await startServer({
    engine,
    metrics: registry,
    admin: true,
    stateFile: join(dir, 'state.json'),
    collector: { beaconsPerMinute: 1 },
  })
  t.teardown(async () => {
    await server.close()
    rmSync(dir, { recursive: true, force: true })
  })
  const authorization = `Basic ${Buffer.from('u:p').toString('base64')}`
  await fetch(`${server.url}/api/sites/no-such-site`, { headers: { authorization } })
  await fetch(`${server.url}/api/accounts/ann`, { headers: { authorization: 'Basic bm86bm8=' } })
  await fetch(`${server.url}/dashboard/`)
  await fetch(`${server.url}/no/such/path`)
  await fetch(`${server.url}/readyz`)
  await fetch(`${server.url}/collect/site-a`, { method: 'POST' })
  await fetch(`${server.url}/collect/site-a`, { method: 'POST' })
  failing.now = true
  await fetch(`${server.url}/collect/site-b`, { method: 'POST' })
  for (let i = 0; i < 100 && engine.recordingStats().failed === 0; i++) await new Promise((r) => setTimeout(r, 20))
  failing.now = false
  // An app that mounts mobileRedirect with the server's registry.
  await request(express().use(mobileRedirect({ mobileUrl: 'https://m.example.com', registry })))
    .get('/')
    .set('user-agent', phones['iPhone Safari'] as string)
  await instrumentsFor(registry).ready
  await scrape(server.url)

  const exported = parseExposition(await scrape(server.url))
  const rows = documented()
  const prefixes = rows.filter((row) => row.name.endsWith('*')).map((row) => row.name.slice(0, -1))
  const byName = new Map(rows.filter((row) => !row.name.endsWith('*')).map((row) => [row.name, row]))
  t.ok(byName.size >= 9, `${byName.size} families in the table`)
  const events = Object.fromEntries(
    exported.get('mobisite_collector_events_total')?.samples.map((s) => [s.labels.event, s.value]) ?? [],
  )
  t.ok(
    events.limited! >= 1 && events.failed! >= 1,
    `the workload limited and failed beacons: ${JSON.stringify(events)}`,
  )

  for (const prefix of prefixes)
    t.ok(
      [...exported.keys()].some((name) => name.startsWith(prefix)),
      `${prefix}*: exported`,
    )
  t.same(
    [...byName.keys()].filter((name) => !exported.has(name)),
    [],
    'every family in the table is exported',
  )
  // One line per problem, each once: a family, label or value missing from the table, or another type.
  const problems = new Set<string>()
  for (const family of exported.values()) {
    if (prefixes.some((prefix) => family.name.startsWith(prefix))) continue
    const row = byName.get(family.name)
    if (row === undefined) {
      problems.add(`${family.name}: not in the table`)
      continue
    }
    if (family.type !== row.type) problems.add(`${family.name}: a ${family.type}, the table says ${row.type}`)
    for (const sample of family.samples) {
      const names = Object.keys(sample.labels).filter((label) => !STANDARD_LABELS.has(label))
      const wanted = [...row.labels.keys()]
      if (names.sort().join() !== wanted.sort().join())
        problems.add(`${family.name}: labels ${names.join(', ')}, the table says ${wanted.join(', ')}`)
      if (row.values.length > 0 && !row.values.includes(String(sample.value)))
        problems.add(`${family.name}: value ${sample.value} not in the table`)
      for (const [label, value] of Object.entries(sample.labels)) {
        const doc = row.labels.get(label)
        if (doc === undefined || doc.values.includes(value)) continue
        const check = OPEN[label]
        if (doc.open && check === undefined) problems.add(`${label}: an open label this test cannot check`)
        else if (!doc.open || !check!(value)) problems.add(`${family.name}{${label}="${value}"}: not in the table`)
      }
    }
  }
  t.same([...problems], [], 'every exported family, label and value is in the table')
})
