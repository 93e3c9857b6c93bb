/**
 * The examples of examples/edge/ run where they are meant to, each bundled
 * by esbuild with `mobisite/edge` aliased to lib/edge.ts:
 * - the Cloudflare Worker (worker.ts, with the variables of wrangler.toml)
 *   in workerd through miniflare, its origin played by miniflare's
 *   outbound service (so `fetch(request)` never leaves the process);
 * - the Next.js middleware in Vercel's edge runtime, with a stand-in for
 *   `next/server` (test/helpers/next-server-stub.ts);
 * - the Deno/Bun server and the Hono app in the edge runtime too.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { EdgeVM } from '@edge-runtime/vm'
import { Miniflare, type MiniflareOptions, Response as MiniflareResponse } from 'miniflare'
import t from 'tap'
import { bundle, EDGE_ENTRY, ROOT } from '../helpers/edge-runtimes.js'
import { IPHONE, NAVIGATION, WINDOWS } from '../helpers/redirect-table.js'

const EXAMPLES = join(ROOT, 'examples/edge')
const alias = { 'mobisite/edge': EDGE_ENTRY, 'next/server': join(ROOT, 'test/helpers/next-server-stub.ts') }
/** Vary of a page the navigation test did not run for, and of one it did (a redirect, an alternate link). */
const PAGE_VARY = ['cookie', 'sec-ch-ua-mobile', 'sec-fetch-dest', 'user-agent']
const NAVIGATION_VARY = [...PAGE_VARY, 'x-requested-with']

/** `[vars]` and `compatibility_date` of wrangler.toml (flat `key = "value"` lines are all it uses). */
function wranglerToml(): { compatibilityDate: string; vars: Record<string, string> } {
  const text = readFileSync(join(EXAMPLES, 'wrangler.toml'), 'utf8')
  const value = (line: string) => /^\s*(\w+)\s*=\s*"([^"]*)"\s*$/.exec(line)
  const [top = '', vars = ''] = text.split(/^\[vars\]$/m)
  const pairs = (part: string) =>
    Object.fromEntries(
      part
        .split('\n')
        .map(value)
        .filter((m) => m !== null)
        .map((m) => [m[1], m[2]]),
    ) as Record<string, string>
  return { compatibilityDate: pairs(top).compatibility_date as string, vars: pairs(vars) }
}

/** `Vary`'s fields, lower case and sorted (their order means nothing). */
const fields = (vary: string | null) =>
  (vary ?? '')
    .split(',')
    .map((f) => f.trim().toLowerCase())
    .filter((f) => f !== '')
    .sort()

t.test('the Worker of wrangler.toml, in workerd', async (t) => {
  const { code } = await bundle(join(EXAMPLES, 'worker.ts'), { format: 'esm', alias })
  const { compatibilityDate, vars } = wranglerToml()
  t.equal(vars.MOBILE_URL, 'https://m.example.com', 'wrangler.toml names the mobile site')
  const origin: string[] = []
  const mf = new Miniflare({
    compatibilityDate,
    bindings: vars,
    modules: true,
    script: code,
    // The origin: every fetch of the Worker lands here, in this process.
    outboundService: (request: Request) => {
      origin.push(request.url)
      return new MiniflareResponse('desktop', {
        headers: { Vary: 'Accept-Encoding', 'Cache-Control': 'public, max-age=300' },
      })
    },
  } as MiniflareOptions)
  t.teardown(() => mf.dispose())
  const get = (path: string, ua: string) =>
    mf.dispatchFetch(`https://www.example.com${path}`, {
      headers: { 'User-Agent': ua, ...NAVIGATION },
      redirect: 'manual',
    })

  const phone = await get('/shop?id=7', IPHONE)
  t.equal(phone.status, 302, 'a phone is redirected')
  t.equal(phone.headers.get('location'), 'https://m.example.com/shop?id=7', 'to the same path and query')
  t.same(fields(phone.headers.get('vary')), NAVIGATION_VARY, 'the redirect varies')
  t.same(origin, [], 'the redirect never asked the origin')

  const desktop = await get('/shop?id=7', WINDOWS)
  t.equal(desktop.status, 200, 'a desktop gets the page')
  t.equal(await desktop.text(), 'desktop', "the origin's body")
  t.same(fields(desktop.headers.get('vary')), ['accept-encoding', ...PAGE_VARY], "Vary merged into the origin's")
  t.equal(desktop.headers.get('cache-control'), 'public, max-age=300', "the origin's other headers kept")
  t.same(origin, ['https://www.example.com/shop?id=7'], 'the page came from the origin')

  const optOut = await get('/p?no_redirect=1', IPHONE)
  t.equal(optOut.status, 200, 'a phone that opts out gets the page')
  t.match(optOut.headers.getSetCookie(), [/^mobisite_no_redirect=1; .*Secure/], 'opt-out cookie, Secure on https')
})

/** Bundles an example as an IIFE and evaluates it in a fresh edge runtime; its exports under `example`. */
async function inEdgeRuntime(file: string): Promise<EdgeVM> {
  const { code } = await bundle(join(EXAMPLES, file), { format: 'iife', globalName: 'example', alias })
  const vm = new EdgeVM()
  vm.evaluate(code)
  return vm
}

/** Calls `call` (a function of the example's exports and a Request) in the VM; the answer's parts as JSON. */
async function ask(vm: EdgeVM, call: string, url: string, headers: Record<string, string>) {
  vm.context.__request = JSON.stringify({ url, headers })
  return JSON.parse(
    await vm.evaluate<Promise<string>>(`(async () => {
      const { url, headers } = JSON.parse(__request)
      const res = await (${call})(example, new Request(url, { headers }))
      return JSON.stringify({
        status: res.status,
        location: res.headers.get('location'),
        vary: res.headers.get('vary'),
        setCookie: res.headers.getSetCookie(),
        next: res.headers.get('x-middleware-next'),
        body: await res.text(),
      })
    })()`),
  ) as {
    status: number
    location: string | null
    vary: string | null
    setCookie: string[]
    next: string | null
    body: string
  }
}

t.test('the Next.js middleware, in the edge runtime', async (t) => {
  const vm = await inEdgeRuntime('middleware.ts')
  const call = '(m, request) => m.middleware(request, { waitUntil() {} })'
  const phone = await ask(vm, call, 'https://www.example.com/shop?id=7', { 'User-Agent': IPHONE, ...NAVIGATION })
  t.match(phone, { status: 302, location: 'https://m.example.com/shop?id=7', next: null }, 'NextResponse.redirect')
  t.same(fields(phone.vary), NAVIGATION_VARY, 'the redirect varies')
  const desktop = await ask(vm, call, 'https://www.example.com/shop', { 'User-Agent': WINDOWS, ...NAVIGATION })
  t.match(desktop, { status: 200, location: null, next: '1' }, 'goes on to the page')
  t.same(fields(desktop.vary), PAGE_VARY, 'with Vary for the page')
  const optOut = await ask(vm, call, 'https://www.example.com/p?no_redirect=1', { 'User-Agent': IPHONE, ...NAVIGATION })
  t.match(optOut, { status: 200, next: '1', setCookie: [/^mobisite_no_redirect=1; /] }, 'opt-out cookie')
  const config = vm.evaluate<{ matcher: string }>('example.config')
  t.equal(config.matcher, '/((?!_next/|favicon.ico).*)', 'config.matcher leaves Next.js files out')
})

t.test('the Deno/Bun server and the Hono app, in the edge runtime', async (t) => {
  // server.ts sets alternateLink, so its desktop pages ran the navigation test too.
  for (const [file, desktopVary] of [
    ['server.ts', NAVIGATION_VARY],
    ['hono.ts', PAGE_VARY],
  ] as const) {
    const call = '(m, request) => m.default.fetch(request)'
    const vm = await inEdgeRuntime(file)
    const phone = await ask(vm, call, 'https://www.example.com/shop?id=7', { 'User-Agent': IPHONE, ...NAVIGATION })
    t.match(phone, { status: 302, location: 'https://m.example.com/shop?id=7', body: '' }, `${file}: phone`)
    t.same(fields(phone.vary), NAVIGATION_VARY, `${file}: the redirect varies`)
    const desktop = await ask(vm, call, 'https://www.example.com/shop', { 'User-Agent': WINDOWS, ...NAVIGATION })
    t.match(desktop, { status: 200, location: null, body: /Desktop/ }, `${file}: desktop page`)
    t.same(fields(desktop.vary), desktopVary, `${file}: the page varies`)
    const optOut = await ask(vm, call, 'https://www.example.com/p?no_redirect=1', {
      'User-Agent': IPHONE,
      ...NAVIGATION,
    })
    t.match(optOut, { status: 200, setCookie: [/^mobisite_no_redirect=1; .*Secure/] }, `${file}: opt-out`)
  }
})
