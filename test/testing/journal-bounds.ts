/**
 * No request body, however deep or large, can throw outside its own request
 * of a test double (`startServer({ admin: true })`): the journal records a
 * body past its bounds (64 KiB, 64 levels) as a summary (type, size, why),
 * and the server keeps answering. Found by a chaos probe: a body nested
 * 5,000 deep (10 KB) on any /api route was answered 400, then the process
 * died in JSON.stringify, called by the journal from the response's 'close'.
 */
import t from 'tap'
import { ADMIN_CALLS } from '../../lib/testing/admin-calls.js'
import { ROUTES } from '../../lib/http/routes.js'
import { createEngine, startServer } from '../../lib/index.js'

const ALICE = { user: 'alice', password: 'alice-pw', partner: true }
const auth = `Basic ${Buffer.from(`${ALICE.user}:${ALICE.password}`).toString('base64')}`

/** `[[[…]]]` and `{"a":{"a":…}}`, `depth` levels. */
const nested = (depth: number): string[] => [
  `${'['.repeat(depth)}${']'.repeat(depth)}`,
  `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
]

/** Every path that takes a body, with its parameters filled in. */
const withBody = [
  ...ROUTES.filter((r) => r.method !== 'GET').map((r) => ({ method: r.method, path: `/api${r.path}` })),
  ...ADMIN_CALLS.filter((c) => c.method !== 'GET').map((c) => ({ method: c.method, path: `/__admin${c.path}` })),
].map(({ method, path }) => ({ method, path: path.replace(/:[a-z_]+/g, 'deepsite') }))

t.test(
  'bodies 5,000 and 100,000 levels deep on every route that reads one: answered, and the server lives',
  async (t) => {
    const engine = createEngine()
    await engine.addMasterAccount(ALICE)
    const server = await startServer({ engine, admin: true })
    t.teardown(() => server.close())
    const statuses = new Map<number, number>()
    for (const depth of [5_000, 100_000]) {
      for (const body of nested(depth)) {
        for (const { method, path } of withBody) {
          const res = await fetch(`${server.url}${path}`, {
            method,
            headers: { authorization: auth, 'content-type': 'application/json' },
            body,
          })
          await res.arrayBuffer()
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
          if (res.status >= 500) t.fail(`${method} ${path}, ${depth} deep: ${res.status}`)
        }
        // A crash would show here: the listener that recorded the calls runs after each answer.
        await new Promise((resolve) => setImmediate(resolve))
        t.equal((await fetch(`${server.url}/healthz`)).status, 200, `alive after ${depth}-deep bodies on every route`)
      }
    }
    t.ok(withBody.length > 30, `${withBody.length} routes tried`)
    t.comment(`statuses: ${[...statuses].map(([s, n]) => `${s}×${n}`).join(' ')}`)

    const { requests } = (await (await fetch(`${server.url}/__admin/requests?limit=4`)).json()) as {
      requests: { body?: unknown; body_summary?: unknown }[]
    }
    for (const entry of requests) {
      t.equal(entry.body, undefined, 'a body past the bounds is not kept')
      t.match(entry.body_summary, { type: /^(array|object)$/, reason: 'too deep', bytes: Number }, 'but summarized')
    }
  },
)

t.test('the journal keeps bodies within its bounds as they came, and summarizes the others', async (t) => {
  const engine = createEngine()
  await engine.addMasterAccount(ALICE)
  const server = await startServer({ engine, admin: true })
  t.teardown(() => server.close())
  const post = (body: string) =>
    fetch(`${server.url}/api/sites/get-many`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body,
    })
  const sixtyFour = `${'['.repeat(64)}${']'.repeat(64)}`
  const large = JSON.stringify([{ site_name: 'x'.repeat(70_000) }])
  for (const body of [sixtyFour, `[${sixtyFour}]`, large]) await (await post(body)).arrayBuffer()
  const { requests } = (await (await fetch(`${server.url}/__admin/requests`)).json()) as {
    requests: { body?: unknown; body_summary?: unknown }[]
  }
  t.same(requests[0]!.body, JSON.parse(sixtyFour), '64 levels: kept as it came')
  t.same(requests[1]!.body_summary, { type: 'array', bytes: 130, reason: 'too deep' }, '65 levels: summarized')
  t.same(
    requests[2]!.body_summary,
    { type: 'array', bytes: Buffer.byteLength(large), reason: 'too large' },
    'past 64 KiB: summarized',
  )
})
