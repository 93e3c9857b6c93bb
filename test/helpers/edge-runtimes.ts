/**
 * The runtimes test/edge/ runs mobisite/edge in, and the Express middleware
 * beside them, all answering the rows of redirect-table.ts:
 * - `bundleEdge`: lib/edge.ts bundled by esbuild for a platform without
 *   Node (no built-in resolves there, so a `node:` import fails the build);
 * - `workerd`: that bundle in Cloudflare's runtime through miniflare;
 * - `edgeVm`: that bundle in Vercel's edge runtime (@edge-runtime/vm);
 * - `expressRunner`: `mobileRedirect` in an Express app over HTTP.
 * Every edge runtime runs the same answer reader (redirect-profiles.ts,
 * bundled too), so the answers compare field by field.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { EdgeVM } from '@edge-runtime/vm'
import * as esbuild from 'esbuild'
import express from 'express'
import { Miniflare, type MiniflareOptions } from 'miniflare'
import type { Test } from 'tap'
import { mobileRedirect, type MobileRedirectHandler } from '../../lib/redirect/middleware.js'
import {
  type Answer,
  DESKTOP_PAGE,
  type EdgeResult,
  linkValues,
  PROFILES,
  pageHeaders,
  type Profile,
  type ProfileName,
  varyFields,
  type WireRequest,
} from './redirect-profiles.js'
import type { TableRow } from './redirect-table.js'

/** The repository's root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

/** The entry of mobisite/edge. */
export const EDGE_ENTRY = join(ROOT, 'lib/edge.ts')

/** esbuild's output: the code and the files it took in. */
export interface Bundle {
  code: string
  inputs: string[]
}

/**
 * Bundles `entry` as a platform without Node would get it: `neutral`
 * (nothing of Node resolves, so a `node:` import or a Node-only package
 * fails the build), minified, nothing external. `iife` defines `globalName`.
 */
export async function bundle(
  entry: string,
  options: { format: 'esm' | 'iife'; globalName?: string; alias?: Record<string, string> },
): Promise<Bundle> {
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    minify: true,
    platform: 'neutral',
    // Neutral resolves no `main` by default; packages that have only one still resolve, but
    // never to a Node build: the `node` condition is not set.
    mainFields: ['module', 'main'],
    format: options.format,
    target: 'es2022',
    metafile: true,
    logLevel: 'silent',
    ...(options.globalName === undefined ? {} : { globalName: options.globalName }),
    ...(options.alias === undefined ? {} : { alias: options.alias }),
  })
  return {
    code: result.outputFiles[0]?.text ?? '',
    inputs: Object.keys(result.metafile.inputs),
  }
}

/** lib/edge.ts bundled (see {@link bundle}). */
export const bundleEdge = (format: 'esm' | 'iife' = 'esm') =>
  bundle(EDGE_ENTRY, { format, ...(format === 'iife' ? { globalName: 'mobisiteEdge' } : {}) })

/** The profiles and answer reader, bundled for the runtimes (they import nothing of lib/ but types). */
const bundleTable = (format: 'esm' | 'iife') =>
  bundle(join(ROOT, 'test/helpers/redirect-profiles.ts'), {
    format,
    ...(format === 'iife' ? { globalName: 'edgeTable' } : {}),
  })

/**
 * A plain HTTP server on 127.0.0.1 serving the desktop page (`/plain`,
 * `/extra`): what the edge's `next` fetches for a `fetched` row, so its
 * answer has immutable headers, as `fetch` gives them.
 */
export async function desktopOrigin(t: Test): Promise<string> {
  const server = http.createServer((req, res) => {
    for (const [k, v] of pageHeaders(req.url?.slice(1) as Profile['page'])) res.appendHeader(k, v)
    res.end(DESKTOP_PAGE.body)
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/**
 * The worker of the table: batches of requests POSTed as JSON to
 * `http://table.invalid/` (each run through a real `handle()` inside), or a
 * single request as dispatched, its profile in `X-Table-Profile`.
 */
const TABLE_WORKER = `
import { createMobileRedirect } from './edge.js'
import { edgeRunner, desktopResponse, webAnswer, PROFILES } from './table.js'
let runner
export default {
  async fetch(request, env, ctx) {
    runner ??= edgeRunner(createMobileRedirect, (kind) => fetch(env.DESKTOP + '/' + (kind ?? 'plain')))
    if (new URL(request.url).host === 'table.invalid') {
      const out = []
      for (const wire of await request.json()) out.push(await runner.run(wire, ctx))
      return Response.json(out)
    }
    const name = request.headers.get('x-table-profile')
    const { mw, errors } = runner.handlerOf(name)
    const before = errors.length
    const res = await mw.handle(request, () => desktopResponse(PROFILES[name].page), ctx)
    const answer = await webAnswer(res, request.method, errors.length - before)
    // In a header: a HEAD answer has no body.
    return new Response(null, { headers: { 'x-table-answer': encodeURIComponent(JSON.stringify(answer)) } })
  },
}
`

/** The edge entry and the table in workerd, with the worker above. */
export async function workerd(t: Test, desktop: string) {
  const [edge, table] = await Promise.all([bundleEdge('esm'), bundleTable('esm')])
  const mf = new Miniflare({
    compatibilityDate: '2025-01-01',
    bindings: { DESKTOP: desktop },
    modulesRoot: '/worker',
    modules: [
      { type: 'ESModule', path: '/worker/worker.js', contents: TABLE_WORKER },
      { type: 'ESModule', path: '/worker/edge.js', contents: edge.code },
      { type: 'ESModule', path: '/worker/table.js', contents: table.code },
    ],
  } as MiniflareOptions)
  t.teardown(() => mf.dispose())
  return {
    /** Runs the requests in order in one POST, each through `handle()` inside the worker. */
    async batch(wires: WireRequest[]): Promise<EdgeResult[]> {
      const res = await mf.dispatchFetch('http://table.invalid/', { method: 'POST', body: JSON.stringify(wires) })
      if (res.status !== 200) throw new Error(`worker answered ${res.status}: ${await res.text()}`)
      return (await res.json()) as EdgeResult[]
    },
    /** One request dispatched to the worker as a visitor's would be. */
    async dispatch(wire: WireRequest): Promise<Answer> {
      const res = await mf.dispatchFetch(wire.url, {
        method: wire.method,
        headers: { ...wire.headers, 'X-Table-Profile': wire.profile },
        // Never follow the redirect: it names hosts off this machine.
        redirect: 'manual',
      })
      const text = await res.text()
      const answer = res.headers.get('x-table-answer')
      if (answer === null) throw new Error(`worker answered ${res.status} to ${wire.method} ${wire.url}: ${text}`)
      return JSON.parse(decodeURIComponent(answer)) as Answer
    },
  }
}

/** The edge entry (global `mobisiteEdge`) and the table (`edgeTable`) in Vercel's edge runtime; `desktop` serves `fetched` rows. */
export async function edgeVm(desktop?: string) {
  const [edge, table] = await Promise.all([bundleEdge('iife'), bundleTable('iife')])
  const vm = new EdgeVM()
  vm.evaluate(edge.code)
  vm.evaluate(table.code)
  const fetchPage =
    desktop === undefined ? 'undefined' : `(kind) => fetch(${JSON.stringify(desktop)} + '/' + (kind ?? 'plain'))`
  vm.evaluate(`globalThis.__runner = edgeTable.edgeRunner(mobisiteEdge.createMobileRedirect, ${fetchPage})`)
  return {
    vm,
    /** Runs the requests in order, each through `handle()` inside the VM. */
    async batch(wires: WireRequest[]): Promise<EdgeResult[]> {
      vm.context.__wires = JSON.stringify(wires)
      const out = await vm.evaluate<Promise<string>>(`(async () => {
        const out = []
        for (const wire of JSON.parse(__wires)) out.push(await __runner.run(wire))
        return JSON.stringify(out)
      })()`)
      return JSON.parse(out) as EdgeResult[]
    },
  }
}

/**
 * `mobileRedirect` under each profile in an Express app (one server each,
 * on 127.0.0.1) whose page is {@link DESKTOP_PAGE}. `trust proxy` is on, so
 * an https row is sent as a TLS-terminating proxy would forward it.
 */
export function expressRunner(t: Test) {
  const servers = new Map<ProfileName, Promise<{ port: number; errors: Error[] }>>()
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 })
  const handlers: MobileRedirectHandler[] = []
  t.teardown(() => {
    agent.destroy()
    for (const mw of handlers) mw.close()
  })
  const start = async (name: ProfileName) => {
    const profile = PROFILES[name]
    const errors: Error[] = []
    const app = express()
    app.set('trust proxy', 'loopback')
    const mw = mobileRedirect(profile.express((e) => errors.push(e)))
    handlers.push(mw)
    app.use(mw)
    app.use((_req, res) => {
      // As an Express page adds its headers: Vary merged with what the middleware set.
      for (const [k, v] of pageHeaders(profile.page)) {
        if (k === 'Vary') res.vary(v)
        else res.append(k, v)
      }
      res.send(DESKTOP_PAGE.body)
    })
    const server = http.createServer(app)
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
    t.teardown(() => {
      server.closeAllConnections()
      server.close()
    })
    return { port: (server.address() as AddressInfo).port, errors }
  }
  return async (row: TableRow): Promise<Answer> => {
    let s = servers.get(row.profile)
    if (s === undefined) servers.set(row.profile, (s = start(row.profile)))
    const { port, errors } = await s
    const before = errors.length
    const headers: Record<string, string> = { ...row.headers, Host: row.host }
    if (row.scheme === 'https') headers['X-Forwarded-Proto'] = 'https'
    const { res, body } = await new Promise<{ res: http.IncomingMessage; body: string }>((done, fail) => {
      const req = http.request(
        { host: '127.0.0.1', port, agent, method: row.method, path: row.expressTarget ?? row.path, headers },
        (res) => {
          let body = ''
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => {
            body += chunk
          })
          res.on('end', () => done({ res, body }))
        },
      )
      req.on('error', fail)
      req.end()
    })
    const h = res.headers
    return {
      status: res.statusCode ?? 0,
      location: h.location ?? null,
      vary: varyFields(h.vary),
      setCookie: [...(h['set-cookie'] ?? [])].sort(),
      link: linkValues(h.link as string | undefined),
      cacheControl: h['cache-control'] ?? null,
      body: row.method === 'HEAD' ? null : body,
      errors: errors.length - before,
    }
  }
}
