/**
 * Remote agents and redirect confirmations seen working from inside
 * workerd: a Worker built at module scope (where Workers forbid timers and
 * fetches, so building it proves it starts neither) with `remote` and
 * `siteName`, against a real mobisite server in Node on 127.0.0.1.
 *
 * - The first request triggers the agents fetch (in `ctx.waitUntil`), so a
 *   later request follows the served source, not DEFAULT_AGENTS.
 * - A changed source reaches the Worker after `refreshInterval`.
 * - A phone redirect is confirmed through the collector: the site's
 *   `last_confirmed_redirected_date` moves, read back through the API.
 *
 * Miniflare lets a Worker's `fetch` reach loopback addresses by default, so
 * no outbound option is needed; nothing here leaves 127.0.0.1.
 *
 * As shipped, the remote path fails in workerd (REDIRECT_ERROR_BUG below): a
 * test pins the bug, and the scenario runs with a fetch shim meanwhile.
 */
import { Miniflare, type MiniflareOptions } from 'miniflare'
import t, { type Test } from 'tap'
import type { Site } from '../../types/index.js'
import { bundleEdge } from '../helpers/edge-runtimes.js'
import { checkedFetch } from '../helpers/openapi-check.js'
import { serverWithSite } from '../helpers/site-server.js'
import { basic } from '../helpers/testing.js'

const CUSTOM_PHONE = 'Mozilla/5.0 (Linux; EdgeTestPhone 1.0) Gecko/20100101'
const OTHER_PHONE = 'Mozilla/5.0 (Linux; OtherPhone 2.0) Gecko/20100101'
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Known bug, reported rather than fixed here (lib/redirect/ is not this
 * suite's): lib/redirect/remote.ts (`fetchAgents`) and confirm.ts
 * (`remoteConfirmer`) call `fetch(url, { redirect: 'error' })`, which
 * workerd refuses ("Invalid redirect value, must be one of "follow" or
 * "manual""), so in Cloudflare Workers no agents fetch and no confirmation
 * ever succeeds. The fix: `redirect: 'manual'` and any 3xx counted a
 * failure, which keeps the credentials from following a redirect too.
 */
const REDIRECT_ERROR_BUG =
  "bug: remote.ts and confirm.ts fetch with redirect: 'error', which workerd refuses; no agents fetch or confirmation works in Workers"

/**
 * `fetch` as it will behave once the bug is fixed: `redirect: 'error'` sent
 * as `manual`, a 3xx answer made an error. The Worker installs it before
 * its first request (the edge code looks `fetch` up when it calls it), so
 * the rest of the remote path can be seen working until the fix lands.
 */
const FETCH_SHIM = `const platformFetch = globalThis.fetch
globalThis.fetch = async (input, init) => {
  if (init?.redirect !== 'error') return platformFetch(input, init)
  const res = await platformFetch(input, { ...init, redirect: 'manual' })
  if (res.status >= 300 && res.status < 400) throw new TypeError('redirect not allowed')
  return res
}
`

/** The Worker: one handler for the isolate, made when the module loads (the shim first, if `shim`). */
function workerScript(options: object, shim: boolean): string {
  return `import { createMobileRedirect } from './edge.js'
${shim ? FETCH_SHIM : ''}const errors = []
const redirect = createMobileRedirect({ ...${JSON.stringify(options)}, onError: (e) => errors.push(String(e)) })
export default {
  fetch(request, env, ctx) {
    if (new URL(request.url).pathname === '/__errors') return Response.json(errors)
    return redirect.handle(request, () => new Response('desktop'), ctx)
  },
}`
}

/** A Worker of the bundle of lib/edge.ts built with `options`; `visit` asks it for a page, `errors` what onError got. */
async function worker(t: Test, options: object, shim: boolean) {
  const edge = await bundleEdge('esm')
  const mf = new Miniflare({
    compatibilityDate: '2025-01-01',
    modulesRoot: '/worker',
    modules: [
      { type: 'ESModule', path: '/worker/worker.js', contents: workerScript(options, shim) },
      { type: 'ESModule', path: '/worker/edge.js', contents: edge.code },
    ],
  } as MiniflareOptions)
  t.teardown(() => mf.dispose())
  const visit = async (ua: string) => {
    const res = await mf.dispatchFetch('https://www.example.com/shop?id=7', {
      headers: { 'User-Agent': ua, 'Sec-Fetch-Dest': 'document' },
      // Never follow the redirect: it names a host off this machine.
      redirect: 'manual',
    })
    await res.arrayBuffer()
    return { status: res.status, location: res.headers.get('location') }
  }
  /** Visits until the answer's status is `status` (the fetch runs after an answer, so it takes a few), at most 3 s. */
  const until = async (ua: string, status: number) => {
    let last = await visit(ua)
    for (let i = 0; i < 60 && last.status !== status; i++) {
      await sleep(50)
      last = await visit(ua)
    }
    return last
  }
  const errors = async () => (await (await mf.dispatchFetch('http://www.example.com/__errors')).json()) as string[]
  return { visit, until, errors }
}

/** The remote scenario against a real service, in a Worker with or without the fetch shim. */
async function followsTheService(t: Test, shim: boolean) {
  const { engine, server, site_name } = await serverWithSite(t, '2025-06-01T10:00:00Z')
  engine.setAgents('.*EdgeTestPhone.*')
  const baseUrl = `${server.url}/api`
  const auth = { headers: { Authorization: basic('alice', 'pw') } }
  t.equal(await (await checkedFetch(`${baseUrl}/agents`, auth)).json(), '.*EdgeTestPhone.*', 'the service serves it')

  const { visit, until, errors } = await worker(
    t,
    {
      mobileUrl: 'https://m.example.com',
      siteName: site_name,
      remote: { baseUrl, user: 'alice', password: 'pw', refreshInterval: 300 },
    },
    shim,
  )
  t.equal((await visit(CUSTOM_PHONE)).status, 200, 'first request: DEFAULT_AGENTS, the fetch only starts')
  t.same(
    await until(CUSTOM_PHONE, 302),
    { status: 302, location: 'https://m.example.com/shop?id=7' },
    'then the served source decides',
  )
  t.equal((await visit(IPHONE)).status, 200, 'an iPhone is not in the served source')

  const confirmed = async () =>
    ((await (await checkedFetch(`${baseUrl}/sites/${site_name}`, auth)).json()) as Site).last_confirmed_redirected_date
  let date = await confirmed()
  for (let i = 0; i < 60 && date === undefined; i++) {
    await sleep(50)
    date = await confirmed()
  }
  t.equal(date, '2025-06-01T10:00:00', 'the redirect was confirmed through the collector')

  engine.setAgents('.*OtherPhone.*')
  t.equal((await until(OTHER_PHONE, 302)).status, 302, 'a changed source arrives after refreshInterval')
  t.equal((await visit(CUSTOM_PHONE)).status, 200, 'and replaces the old one')
  t.same(await errors(), [], 'no fetch or confirmation failed')
}

t.test(`KNOWN BUG, still there (once fixed: drop this test and the shim): ${REDIRECT_ERROR_BUG}`, async (t) => {
  const { server, site_name } = await serverWithSite(t)
  const { visit, errors } = await worker(
    t,
    {
      mobileUrl: 'https://m.example.com',
      siteName: site_name,
      remote: { baseUrl: `${server.url}/api`, user: 'alice', password: 'pw' },
    },
    false,
  )
  t.equal((await visit(IPHONE)).status, 302, 'a redirect, so a confirmation too')
  let reported: string[] = []
  for (let i = 0; i < 60 && reported.length < 2; i++) {
    await sleep(50)
    reported = await errors()
  }
  t.comment(reported.join('\n'))
  const invalid = /Invalid redirect value, must be one of "follow" or "manual"/
  t.match(
    reported.find((e) => e.includes('/api/agents')),
    invalid,
    'the agents fetch',
  )
  t.match(
    reported.find((e) => e.includes('/collect/')),
    invalid,
    'the confirmation',
  )
})

t.test('a Worker follows the served agents and confirms its redirects (with the shim)', (t) =>
  followsTheService(t, true),
)

t.test('an unreachable service is reported and DEFAULT_AGENTS stays', async (t) => {
  const { visit, errors } = await worker(
    t,
    {
      mobileUrl: 'https://m.example.com',
      // Port 9 (discard) on loopback: nothing listens there, so the connection is refused at once.
      remote: { baseUrl: 'http://127.0.0.1:9/api', user: 'a', password: 'b', timeout: 2000 },
    },
    true,
  )
  t.equal((await visit(IPHONE)).status, 302)
  let reported: string[] = []
  for (let i = 0; i < 60 && reported.length === 0; i++) {
    await sleep(50)
    reported = await errors()
  }
  t.match(
    reported,
    [/^AgentsSourceError: GET http:\/\/127\.0\.0\.1:9\/api\/agents: /],
    'the failed fetch went to onError',
  )
  t.notMatch(reported[0], /redirect/, 'for the refused connection')
  t.equal((await visit(IPHONE)).status, 302, 'an iPhone is still redirected by DEFAULT_AGENTS')
})
