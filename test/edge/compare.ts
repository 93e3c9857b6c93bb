/**
 * mobisite/edge answers every request of the shared table exactly as the
 * Express middleware does, in workerd (Cloudflare Workers, through
 * miniflare) and in Vercel's edge runtime (@edge-runtime/vm): status,
 * Location, Vary (as a set of fields), Set-Cookie, Link, Cache-Control, body
 * and onError reports. The table (test/helpers/redirect-table.ts) holds the
 * hand-written rows; real User-Agents follow: every distinct UA of the
 * `user-agents` corpus and every instance of `crawler-user-agents` (bots).
 *
 * An https row reaches Express as it would behind a TLS-terminating proxy
 * (`trust proxy`, `X-Forwarded-Proto: https`), while the edge sees an
 * `https:` URL, as a Worker does.
 */
import { createRequire } from 'node:module'
import t, { type Test } from 'tap'
import { corpusUserAgents } from '../helpers/agents-corpus.js'
import { desktopOrigin, edgeVm, expressRunner, workerd } from '../helpers/edge-runtimes.js'
import type { Answer, EdgeResult } from '../helpers/redirect-profiles.js'
import { rowsForUserAgents, TABLE, type TableRow, wireOf } from '../helpers/redirect-table.js'

const require = createRequire(import.meta.url)

/** Bot UAs: every `instances` entry of crawler-user-agents. */
const botUserAgents: string[] = (require('crawler-user-agents') as Array<{ instances: string[] }>).flatMap(
  (c) => c.instances,
)

/**
 * A UA that travels as an HTTP header unchanged: printable ASCII, no
 * leading or trailing space (Node and `Headers` would trim or refuse the
 * rest, and then the runtimes would not judge the same string).
 */
const sendable = (ua: string) => /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(ua)

const corpusRows = rowsForUserAgents(corpusUserAgents.filter(sendable), 'user-agents')
const botRows = rowsForUserAgents([...new Set(botUserAgents)].filter(sendable), 'crawler-user-agents')

/** The differences between two answers, field by field. */
function differences(expected: Answer, actual: Answer): string[] {
  const out: string[] = []
  for (const key of Object.keys(expected) as Array<keyof Answer>) {
    const [e, a] = [JSON.stringify(expected[key]), JSON.stringify(actual[key])]
    if (e !== a) out.push(`${key}: express ${e}, edge ${a}`)
  }
  return out
}

/** Compares each runtime's answers with Express's; a known difference must still be there. */
function compare(t: Test, runtime: string, rows: readonly TableRow[], express: Answer[], edge: Answer[]) {
  const unexpected: string[] = []
  const gone: string[] = []
  rows.forEach((row, i) => {
    const diff = differences(express[i] as Answer, edge[i] as Answer)
    if (row.knownDifference === undefined && diff.length > 0) unexpected.push(`${row.name}\n    ${diff.join('\n    ')}`)
    if (row.knownDifference !== undefined && diff.length === 0) gone.push(row.name)
  })
  t.same(unexpected, [], `${runtime}: every answer equals Express's (${rows.length} rows)`)
  t.same(gone, [], `${runtime}: every known difference is still there (else drop its mark)`)
}

/** `decide()` agrees with `handle()` on the redirect of every row. */
function decideAgrees(t: Test, runtime: string, rows: readonly TableRow[], results: EdgeResult[]) {
  const disagree = rows.flatMap((row, i) => {
    const { answer, decided } = results[i] as EdgeResult
    const handled = answer.location === null ? null : { status: answer.status, location: answer.location }
    return JSON.stringify(handled) === JSON.stringify(decided) ? [] : [`${row.name}: ${JSON.stringify(decided)}`]
  })
  t.same(disagree, [], `${runtime}: decide() gives handle()'s redirect`)
}

t.test('the table has the promised rows', async (t) => {
  t.ok(TABLE.length >= 250, `${TABLE.length} hand-written rows`)
  t.equal(new Set(TABLE.map((r) => r.name)).size, TABLE.length, 'names are unique')
  for (const row of TABLE) {
    // Both sides must get the same bytes: a target a URL parser would rewrite cannot be compared.
    const url = `${row.scheme}://www.example.com${row.path}`
    t.equal(new URL(url).href, url, `${row.name}: the path is as a URL serializes it`)
  }
  t.ok(corpusRows.length > 900, `${corpusRows.length} corpus UAs`)
  t.ok(botRows.length > 1500, `${botRows.length} bot UAs`)
})

t.test('workerd and edge-runtime answer like Express', async (t) => {
  const desktop = await desktopOrigin(t)
  const [worker, vm] = await Promise.all([workerd(t, desktop), edgeVm(desktop)])
  const express = expressRunner(t)
  const rows = [...TABLE, ...corpusRows, ...botRows]

  const started = Date.now()
  const expected: Answer[] = []
  for (const row of rows) expected.push(await express(row))
  const expressMs = Date.now() - started

  const wires = rows.map(wireOf)
  let at = Date.now()
  const inWorkerd: EdgeResult[] = []
  // A few hundred per POST keeps each JSON body small; the rows stay in order.
  for (let i = 0; i < wires.length; i += 500) inWorkerd.push(...(await worker.batch(wires.slice(i, i + 500))))
  const workerdMs = Date.now() - at
  at = Date.now()
  const inVm = await vm.batch(wires)
  const vmMs = Date.now() - at
  t.comment(`${rows.length} rows: Express ${expressMs} ms, workerd ${workerdMs} ms, edge-runtime ${vmMs} ms`)

  compare(
    t,
    'workerd',
    rows,
    expected,
    inWorkerd.map((r) => r.answer),
  )
  compare(
    t,
    'edge-runtime',
    rows,
    expected,
    inVm.map((r) => r.answer),
  )
  decideAgrees(t, 'workerd', rows, inWorkerd)
  decideAgrees(t, 'edge-runtime', rows, inVm)

  // The hand-written rows once more, each dispatched to the Worker as a visitor's request.
  at = Date.now()
  const plain = TABLE.filter((row) => row.fetched !== true)
  const dispatched: Answer[] = []
  for (const row of plain) dispatched.push(await worker.dispatch(wireOf(row)))
  t.comment(`${plain.length} dispatched requests: ${Date.now() - at} ms`)
  compare(
    t,
    'workerd, dispatched',
    plain,
    plain.map((row) => expected[TABLE.indexOf(row)] as Answer),
    dispatched,
  )
})
