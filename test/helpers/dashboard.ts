/**
 * The dashboard fixture: one engine on a fake clock serving the API at
 * `/api` and the dashboard at `/dashboard` of one express app, three master
 * accounts (alice and bob partners, carol not), and helpers to get SSO links
 * and sign in over HTTP.
 */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import request from 'supertest'
import type { Test } from 'tap'
import {
  apiRouter,
  createEngine,
  dashboardRouter,
  type ApiRouterOptions,
  type DashboardRouterOptions,
  type Engine,
  type SiteData,
  type Store,
} from '../../lib/index.js'
import { FakeClock, PASSWORDS } from './api.js'

export { FakeClock, PASSWORDS }

/** The Accept header of a browser navigation (Chromium's). */
export const BROWSER_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8'

/** Options of {@link dashboardFixture}. */
export interface DashboardFixtureOptions {
  store?: Store
  api?: ApiRouterOptions
  dashboard?: DashboardRouterOptions
  /** Express's `trust proxy` setting. */
  trustProxy?: boolean
  /** The engine's cap on values per analytics dimension per site-day. */
  maxDimensionValues?: number
}

/** Everything a dashboard test needs. */
export interface DashboardFixture {
  engine: Engine
  clock: FakeClock
  server: Server
  /** `http://127.0.0.1:PORT` */
  origin: string
  http: ReturnType<typeof request>
  /** Unexpected errors either router reported. */
  errors: unknown[]
  /** GET an API path as a master account. */
  api(user: 'alice' | 'bob' | 'carol', path: string): request.Test
  /** A fresh SSO link (the full URL) for alice's account, asserting 200. */
  link(account: string, query?: string, user?: 'alice' | 'bob'): Promise<string>
  /** The token of a link. */
  tokenOf(url: string): string
  /** Redeems a fresh link and returns the `mobisite_session=...` cookie pair. */
  signIn(account: string, query?: string, user?: 'alice' | 'bob'): Promise<string>
  /** GET a dashboard path (below `/dashboard`) with a cookie. */
  page(path: string, cookie?: string): request.Test
}

/** Builds the fixture; its teardown is registered on `t`. */
export async function dashboardFixture(t: Test, options: DashboardFixtureOptions = {}): Promise<DashboardFixture> {
  const clock = new FakeClock()
  const engine = createEngine({
    now: clock.now,
    ...(options.store ? { store: options.store } : {}),
    ...(options.maxDimensionValues ? { maxDimensionValues: options.maxDimensionValues } : {}),
  })
  await engine.addMasterAccount({ user: 'alice', password: PASSWORDS.alice, partner: true })
  await engine.addMasterAccount({ user: 'bob', password: PASSWORDS.bob, partner: true })
  await engine.addMasterAccount({ user: 'carol', password: PASSWORDS.carol })
  const errors: unknown[] = []
  const onError = (error: unknown) => errors.push(error)
  const app = express()
  if (options.trustProxy) app.set('trust proxy', true)
  app.use('/api', apiRouter(engine, { onError, ...options.api }))
  app.use('/dashboard', dashboardRouter(engine, { onError, ...options.dashboard }))
  const server = app.listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', resolve))
  t.teardown(async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
    await engine.close()
  })
  const { port } = server.address() as AddressInfo
  const http = request(server)
  const api = (user: 'alice' | 'bob' | 'carol', path: string) => http.get(`/api${path}`).auth(user, PASSWORDS[user])
  const tokenOf = (url: string) => new URL(url, 'http://x').searchParams.get('token') ?? ''
  const link = async (account: string, query = '', user: 'alice' | 'bob' = 'alice') => {
    const res = await api(user, `/accounts/sso/${encodeURIComponent(account)}/link${query}`)
    if (res.status !== 200) throw new Error(`SSO link for ${account}: ${res.status} ${res.text}`)
    return res.body.url as string
  }
  const page = (path: string, cookie?: string) => {
    // As a browser navigates: error pages are for clients that ask for HTML.
    const req = http.get(`/dashboard${path}`).set('Accept', BROWSER_ACCEPT)
    return cookie === undefined ? req : req.set('Cookie', cookie)
  }
  return {
    engine,
    clock,
    server,
    origin: `http://127.0.0.1:${port}`,
    http,
    errors,
    api,
    link,
    tokenOf,
    page,
    async signIn(account, query = '', user = 'alice') {
      const url = await link(account, query, user)
      const res = await http.get(`/dashboard/sso?token=${tokenOf(url)}`)
      if (res.status !== 303) throw new Error(`sign-in for ${account}: ${res.status} ${res.text.slice(0, 200)}`)
      const cookie = String(res.headers['set-cookie']?.[0] ?? '')
      return cookie.split(';')[0]!
    },
  }
}

/**
 * A partner's usual set-up: alice creates the sub-account `acc` and the
 * sites given (business names optional), and grants them all to it.
 */
export async function grantedSites(
  f: DashboardFixture,
  sites: Record<string, string | undefined>,
  account = 'acc',
): Promise<void> {
  const api = f.engine.as('alice')
  await api.createAccount({ account_name: account }).catch((e: { error_code?: string }) => {
    if (e.error_code !== 'ResourceAlreadyExist') throw e
  })
  for (const [site_name, business_name] of Object.entries(sites)) {
    const site_data: SiteData = { site_name, original_site_url: `https://www.${site_name}.example.com/` }
    if (business_name !== undefined) site_data.site_business_info = { business_name }
    await api.createSite({ site_data })
    await api.grantAccess(account, site_name)
  }
}
