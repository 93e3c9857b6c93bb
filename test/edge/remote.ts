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
 * Until both fetched with `redirect: 'manual'`, `redirect: 'error'` (which
 * workerd refuses) kept every agents fetch and confirmation from working in
 * Workers: this file is what would see it come back.
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

/** The Worker: one handler for the isolate, made when the module loads. */
function workerScript(options: object): string {
  return `import { createMobileRedirect } from './edge.js'
const errors = []
const redirect = createMobileRedirect({ ...${JSON.stringify(options)}, onError: (e) => errors.push(String(e)) })
export default {
  fetch(request, env, ctx) {
    if (new URL(request.url).pathname === '/__errors') return Response.json(errors)
    return redirect.handle(request, () => new Response('desktop'), ctx)
  },
}`
}

/** A Worker of the bundle of lib/edge.ts built with `options`; `visit` asks it for a page, `errors` what onError got. */
async function worker(t: Test, options: object) {
  const edge = await bundleEdge('esm')
  const mf = new Miniflare({
    compatibilityDate: '2025-01-01',
    modulesRoot: '/worker',
    modules: [
      { type: 'ESModule', path: '/worker/worker.js', contents: workerScript(options) },
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
  /** Visits until the answer's status is `status` (the fetch runs after an answer, so it takes a few), at most 10 s. */
  const until = async (ua: string, status: number) => {
    let last = await visit(ua)
    for (let i = 0; i < 200 && last.status !== status; i++) {
      await sleep(50)
      last = await visit(ua)
    }
    return last
  }
  const errors = async () => (await (await mf.dispatchFetch('http://www.example.com/__errors')).json()) as string[]
  return { visit, until, errors }
}

t.test('a Worker follows the served agents and confirms its redirects', async (t) => {
  const { engine, server, site_name } = await serverWithSite(t, '2025-06-01T10:00:00Z')
  engine.setAgents('.*EdgeTestPhone.*')
  const baseUrl = `${server.url}/api`
  const auth = { headers: { Authorization: basic('alice', 'pw') } }
  t.equal(await (await checkedFetch(`${baseUrl}/agents`, auth)).json(), '.*EdgeTestPhone.*', 'the service serves it')

  const { visit, until, errors } = await worker(t, {
    mobileUrl: 'https://m.example.com',
    siteName: site_name,
    remote: { baseUrl, user: 'alice', password: 'pw', refreshInterval: 300 },
  })
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
  for (let i = 0; i < 200 && date === undefined; i++) {
    await sleep(50)
    date = await confirmed()
  }
  t.equal(date, '2025-06-01T10:00:00', 'the redirect was confirmed through the collector')

  engine.setAgents('.*OtherPhone.*')
  t.equal((await until(OTHER_PHONE, 302)).status, 302, 'a changed source arrives after refreshInterval')
  t.equal((await visit(CUSTOM_PHONE)).status, 200, 'and replaces the old one')
  t.same(await errors(), [], 'no fetch or confirmation failed')
})

t.test('an unreachable service is reported and DEFAULT_AGENTS stays', async (t) => {
  const { visit, errors } = await worker(t, {
    mobileUrl: 'https://m.example.com',
    // Port 9 (discard) on loopback: nothing listens there, so the connection is refused at once.
    remote: { baseUrl: 'http://127.0.0.1:9/api', user: 'a', password: 'b', timeout: 2000 },
  })
  t.equal((await visit(IPHONE)).status, 302, 'the first request does not wait for the fetch')
  let reported: string[] = []
  for (let i = 0; i < 200 && reported.length === 0; i++) {
    await sleep(50)
    reported = await errors()
  }
  t.match(
    reported,
    [/^AgentsSourceError: GET http:\/\/127\.0\.0\.1:9\/api\/agents: /],
    'the failed fetch went to onError',
  )
  t.notMatch(reported[0], /Invalid redirect/, 'refused by the network, not by the runtime')
  t.equal((await visit(IPHONE)).status, 302, 'an iPhone is still redirected by DEFAULT_AGENTS')
})
