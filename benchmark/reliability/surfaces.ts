/**
 * Issue 34's probes of the request journal and the metrics: a `--admin`
 * server (startServer with admin, as a test double runs) fed bodies nested
 * 5,000 and 100,000 deep on every route that reads a body, and a flood of
 * requests in every letter case of `/api` and every method Node accepts,
 * counting the series of `/metrics` before and after.
 */
import { METHODS } from 'node:http'
import { ADMIN_CALLS } from '../../lib/testing/admin-calls.js'
import { ROUTES } from '../../lib/http/routes.js'
import { basic, type Child, pool, send } from './common.js'

/** What the deep-body probe saw. */
export interface DeepBodies {
  requests: number
  statuses: Record<string, number>
  /** Whether the server still answered /healthz after every round. */
  alive: boolean
  /** The server's exit code, when it died. */
  exitCode: number | null
}

/** `[[[…]]]` and `{"a":{"a":…}}`, `depth` levels. */
const nested = (depth: number): string[] => [
  `${'['.repeat(depth)}${']'.repeat(depth)}`,
  `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
]

/** Sends 5,000- and 100,000-deep bodies to every route of /api and /__admin that reads a body. */
export async function deepBodyPhase(child: Child): Promise<DeepBodies> {
  const targets = [
    ...ROUTES.filter((r) => r.method !== 'GET').map((r) => ({ method: r.method, path: `/api${r.path}` })),
    ...ADMIN_CALLS.filter((c) => c.method !== 'GET').map((c) => ({ method: c.method, path: `/__admin${c.path}` })),
  ].map(({ method, path }) => ({ method, path: path.replace(/:[a-z_]+/g, 'deepsite') }))
  const statuses: Record<string, number> = {}
  let requests = 0
  let alive = true
  for (const depth of [5_000, 100_000]) {
    for (const body of nested(depth)) {
      for (const { method, path } of targets) {
        const answer = await send(
          `${child.url}${path}`,
          method,
          { authorization: basic('alice'), 'content-type': 'application/json' },
          body,
        )
        requests++
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1
      }
      alive &&= (await send(`${child.url}/healthz`, 'GET', {})).status === 200
    }
  }
  return { requests, statuses, alive, exitCode: child.process.exitCode }
}

/** What the label flood did to /metrics. */
export interface LabelFlood {
  requests: number
  seriesBefore: number
  seriesAfter: number
  bytesBefore: number
  bytesAfter: number
  /** Route labels that carry a letter case other than the registered one. */
  foreignCasings: number
}

const CASINGS = ['/api', '/API', '/Api', '/aPi', '/apI', '/APi', '/aPI', '/ApI']

/** Every letter case of /api × every method Node accepts × every route (and a few unknown paths), unauthenticated. */
export async function labelFloodPhase(child: Child): Promise<LabelFlood> {
  const scrape = async () => {
    const text = (await send(`${child.url}/metrics`, 'GET', {})).text
    const series = text.split('\n').filter((line) => line !== '' && !line.startsWith('#'))
    return { text, series: series.length }
  }
  const paths = [
    ...new Set(ROUTES.map((r) => r.path.replace(/:[a-z_]+/g, 'probe'))),
    '/agents',
    '/no/such/path',
    '/sites',
    '/',
  ]
  // The well-behaved baseline: each route once, canonical spelling, GET.
  for (const path of paths) await send(`${child.url}/api${path}`, 'GET', {})
  await scrape()
  const before = await scrape()
  const requests: { method: string; url: string }[] = []
  for (const casing of CASINGS)
    for (const method of METHODS.filter((m) => m !== 'CONNECT'))
      for (const path of paths) requests.push({ method, url: `${child.url}${casing}${path}` })
  await pool(requests, 32, async ({ method, url }) => {
    await send(url, method, {})
  })
  const after = await scrape()
  const foreign = new Set(
    [...after.text.matchAll(/route="([^"]*)"/g)]
      .map(([, route]) => route!)
      .filter((route) => /\/(?!api)[aA][pP][iI]/.test(route)),
  )
  return {
    requests: requests.length,
    seriesBefore: before.series,
    seriesAfter: after.series,
    bytesBefore: Buffer.byteLength(before.text),
    bytesAfter: Buffer.byteLength(after.text),
    foreignCasings: foreign.size,
  }
}

/** The section of docs/RELIABILITY.md. */
export function surfacesSection(deep: DeepBodies, flood: LabelFlood): string {
  const statuses = Object.entries(deep.statuses)
    .map(([status, n]) => `${status}×${n}`)
    .join(' ')
  return `## Deep bodies and the request journal

A \`--admin\` server (startServer with admin, MemoryStore) got bodies nested 5,000 and 100,000 levels
deep (\`[[[…]]]\` and \`{"a":{"a":…}}\`) on every route of \`/api\` and \`/__admin\` that reads a body:
${deep.requests} requests, answered ${statuses}; the server ${deep.alive ? 'answered `/healthz` after every round' : '**stopped answering**'}${deep.exitCode === null ? '' : ` (exit ${deep.exitCode})`}.
Before issue 34 one 10 KB body nested 5,000 deep killed the process (\`RangeError\` in the journal).

## Metric series after a casing-and-method flood

${flood.requests} unauthenticated requests, every route (and a few unknown paths) in ${CASINGS.length}
letter cases of \`/api\` and every method Node accepts: \`/metrics\` went from ${flood.seriesBefore} to
${flood.seriesAfter} lines (${(flood.bytesBefore / 1024).toFixed(0)} → ${(flood.bytesAfter / 1024).toFixed(0)} KB a scrape),
with ${flood.foreignCasings} route labels in a foreign letter case. Before issue 34 a flood of this
shape (16,830 requests) took the series from 134 to 13,586 (1.5 MB a scrape).
`
}
