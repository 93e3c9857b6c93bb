/**
 * docs/testing.md is written by hand (its table pairs each admin call with
 * the in-process Controls method and an example answer), so this checks it
 * against the table the admin router, the OpenAPI document and docs/api.md
 * are generated from: every admin call is listed, and nothing else is.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { ADMIN_CALLS } from '../../lib/testing/admin-calls.js'

const guide = readFileSync(fileURLToPath(new URL('../../docs/testing.md', import.meta.url)), 'utf8')
const asDocumented = (method: string, path: string): string =>
  `${method} /__admin${path.replace(/:([a-z_]+)/g, '{$1}')}`

t.test('docs/testing.md lists every admin call', async (t) => {
  for (const { method, path } of ADMIN_CALLS)
    t.ok(guide.includes(asDocumented(method, path)), asDocumented(method, path))
})

t.test('docs/testing.md names no admin call that does not exist', async (t) => {
  const known = new Set(ADMIN_CALLS.map(({ method, path }) => asDocumented(method, path)))
  // The index of the calls, served by adminRouter beside them (not a control itself).
  known.add('GET /__admin')
  const named = [...guide.matchAll(/\b(GET|PUT|POST|DELETE|PATCH) (\/__admin[\w/{}-]*)/g)].map(
    ([, method, path]) => `${method} ${path!.replace(/\/$/, '')}`,
  )
  t.ok(named.length >= ADMIN_CALLS.length, `read ${named.length} mentions`)
  t.same(
    named.filter((call) => !known.has(call)),
    [],
  )
})
