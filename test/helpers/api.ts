/**
 * The black-box fixture: an engine on a controllable fake clock and a
 * recording builder, three master accounts, and the HTTP API mounted at
 * `/api` of an express app served on an ephemeral port for supertest.
 *
 * Tests use only the public API through it: HTTP requests, or
 * `engine.as(user)` in-process.
 */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import request from 'supertest'
import type { Test } from 'tap'
import { conformsUnder } from './openapi-check.js'
import {
  ServiceError,
  apiRouter,
  createEngine,
  type CreateSiteBody,
  type CreationFailure,
  type Engine,
  type MasterApi,
  type Site,
} from '../../lib/index.js'

/** The fake clock's start: a Monday noon, UTC. */
export const T0 = '2025-03-10T12:00:00'

/** A clock that only moves when told to. */
export class FakeClock {
  private ms: number
  constructor(start = T0) {
    this.ms = Date.parse(`${start}Z`)
  }
  /** What the engine reads. */
  readonly now = (): Date => new Date(this.ms)
  /** Jumps to a UTC time `YYYY-MM-DDThh:mm:ss`. */
  set(at: string): void {
    this.ms = Date.parse(`${at}Z`)
  }
  /** Moves forward by whole seconds. */
  advance(seconds: number): void {
    this.ms += seconds * 1000
  }
  /** The current time in the API's date format. */
  iso(): string {
    return new Date(this.ms).toISOString().slice(0, 19)
  }
}

/** How the recording builder answers: succeed, fail with a creation_status, fail plainly, or wait to be released. */
export type BuildOutcome = 'succeed' | CreationFailure | 'reject-plain' | 'hold'

interface HeldBuild {
  site_name: string
  resolve: () => void
  reject: (error: Error) => void
}

/** Rejection the engine must read as the given creation_status. */
function failure(outcome: Exclude<BuildOutcome, 'succeed' | 'hold'>): Error {
  if (outcome === 'reject-plain') return new Error('builder crashed')
  return Object.assign(new Error(`build failed: ${outcome}`), { creation_status: outcome })
}

/** A builder that records every site it is asked to build and answers as told. */
export class RecordingBuilder {
  /** Names of the sites built, in call order. */
  readonly calls: string[] = []
  /** The Site objects passed to the builder, in call order. */
  readonly sites: Site[] = []
  /** The answer to give the next builds. */
  outcome: BuildOutcome = 'succeed'
  private readonly held: HeldBuild[] = []
  private readonly waiters: { site_name: string; resolve: () => void }[] = []

  /** What createEngine takes as `builder`. */
  readonly build = (site: Site): Promise<void> => {
    this.calls.push(site.site_name)
    this.sites.push(site)
    for (const waiter of this.waiters.filter((w) => w.site_name === site.site_name)) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1)
      waiter.resolve()
    }
    const outcome = this.outcome
    if (outcome === 'succeed') return Promise.resolve()
    if (outcome !== 'hold') return Promise.reject(failure(outcome))
    return new Promise<void>((resolve, reject) => this.held.push({ site_name: site.site_name, resolve, reject }))
  }

  /** Resolves once the builder has been called for that site (at once if it already was). */
  whenCalled(site_name: string): Promise<void> {
    if (this.calls.includes(site_name)) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push({ site_name, resolve }))
  }

  /** How many builds are waiting for release. */
  get pending(): number {
    return this.held.length
  }

  /** Settles the oldest held build of that site with the outcome. */
  release(site_name: string, outcome: Exclude<BuildOutcome, 'hold'> = 'succeed'): void {
    const index = this.held.findIndex((build) => build.site_name === site_name)
    if (index < 0) throw new Error(`no held build for ${site_name}`)
    const [build] = this.held.splice(index, 1)
    if (outcome === 'succeed') build!.resolve()
    else build!.reject(failure(outcome))
  }

  /** Lets every held build succeed (teardown, so engine.close() can finish). */
  releaseAll(): void {
    for (const build of this.held.splice(0)) build.resolve()
  }
}

/**
 * Absent fields: a key is absent, never null. Checked on every
 * response the fixture's clients receive, so every test enforces it.
 */
function neverNull(res: request.Response): void {
  const walk = (value: unknown, path: string): void => {
    if (value === null) throw new Error(`null at ${path} in ${res.text.slice(0, 200)}`)
    if (typeof value === 'object')
      for (const [key, inner] of Object.entries(value as object)) walk(inner, `${path}.${key}`)
  }
  walk(res.body, 'body')
}

/** A master account as the tests call it. */
export interface Client {
  user: string
  password: string
  /** The engine's in-process API for this master account. */
  api: MasterApi
  get(path: string): request.Test
  post(path: string, body?: unknown): request.Test
  del(path: string): request.Test
}

/** Everything a test needs. */
export interface Fixture {
  engine: Engine
  clock: FakeClock
  builder: RecordingBuilder
  /** The listening server supertest talks to. */
  server: Server
  /** `http://127.0.0.1:PORT/api`. */
  base: string
  /** Partner master account. */
  alice: Client
  /** Partner master account; the password contains ':' on purpose. */
  bob: Client
  /** Not a partner. */
  carol: Client
  /** A request with no credentials. */
  anon: { get(path: string): request.Test; post(path: string, body?: unknown): request.Test }
  /** A client with arbitrary credentials (may be wrong). */
  as(user: string, password: string): Client
  /** What the router reported to `onError` (unexpected errors, answered 500). */
  errors: unknown[]
}

export const PASSWORDS = { alice: 'alice-secret', bob: 'b:o:b:secret', carol: 'carol-secret' } as const

/**
 * Builds the fixture and registers its teardown on `t`. Every subtest that
 * calls it gets fresh state.
 */
export async function setup(t: Test): Promise<Fixture> {
  const clock = new FakeClock()
  const builder = new RecordingBuilder()
  const engine = createEngine({ now: clock.now, builder: builder.build })
  await engine.addMasterAccount({ user: 'alice', password: PASSWORDS.alice, partner: true })
  await engine.addMasterAccount({ user: 'bob', password: PASSWORDS.bob, partner: true })
  await engine.addMasterAccount({ user: 'carol', password: PASSWORDS.carol })
  const errors: unknown[] = []
  const app = express().use('/api', apiRouter(engine, { onError: (error) => errors.push(error) }))
  const server = app.listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', resolve))
  t.teardown(async () => {
    builder.releaseAll()
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
    await engine.close()
  })
  const http = request(server)
  // Every response the fixture's clients receive is checked against the OpenAPI document.
  const conforms = conformsUnder('/api')
  const client = (user: string, password: string): Client => ({
    user,
    password,
    api: engine.as(user),
    get: (path) => http.get(`/api${path}`).auth(user, password).expect(neverNull).expect(conforms),
    post: (path, body) => {
      const req = http.post(`/api${path}`).auth(user, password).expect(neverNull).expect(conforms)
      return body === undefined ? req : req.send(body as object)
    },
    del: (path) => http.delete(`/api${path}`).auth(user, password).expect(neverNull).expect(conforms),
  })
  const { port } = server.address() as AddressInfo
  return {
    engine,
    clock,
    builder,
    server,
    errors,
    base: `http://127.0.0.1:${port}/api`,
    alice: client('alice', PASSWORDS.alice),
    bob: client('bob', PASSWORDS.bob),
    carol: client('carol', PASSWORDS.carol),
    anon: {
      get: (path) => http.get(`/api${path}`).expect(conforms),
      post: (path, body) => {
        const req = http.post(`/api${path}`).expect(conforms)
        return body === undefined ? req : req.send(body as object)
      },
    },
    as: client,
  }
}

/** The response of a supertest request. */
export type Res = request.Response

/**
 * Asserts an error response: the status, the JSON error body with
 * exactly `error_code` and a non-empty `message`, and no stack trace.
 * Returns the message so a test can check it names the field.
 */
export function isError(t: Test, res: Res, status: number, error_code: string, label = ''): string {
  const where = label ? `${label}: ` : ''
  t.equal(res.status, status, `${where}status ${status}`)
  t.match(res.headers['content-type'], /^application\/json/, `${where}JSON error body`)
  t.same(Object.keys(res.body ?? {}).sort(), ['error_code', 'message'], `${where}body has error_code and message only`)
  t.equal(res.body?.error_code, error_code, `${where}error_code ${error_code}`)
  const message = String(res.body?.message ?? '')
  t.ok(message.length > 0, `${where}message is not empty`)
  t.notMatch(res.text, /\bat .+:\d+:\d+|node_modules|\.ts:\d/, `${where}no stack trace`)
  return message
}

/** {@link isError} for a 400 InvalidInput, the answer to input the API refuses. */
export const isInvalid = (t: Test, res: Res, label = ''): string => isError(t, res, 400, 'InvalidInput', label)

/** {@link isError} for a 400 ResourceNotExist, the answer about a site or account that is not there (for this caller). */
export const isMissing = (t: Test, res: Res, label = ''): string => isError(t, res, 400, 'ResourceNotExist', label)

/** Asserts a 204 with no content. */
export function isEmpty(t: Test, res: Res, label = ''): void {
  t.equal(res.status, 204, `${label || 'success'}: 204`)
  t.equal(res.text ?? '', '', `${label || 'success'}: no content`)
}

/** Asserts that an in-process call rejects with a ServiceError of that code; returns its message. */
export async function rejectsWith(t: Test, work: Promise<unknown>, error_code: string, label = ''): Promise<string> {
  try {
    await work
  } catch (error) {
    t.ok(error instanceof ServiceError, `${label || error_code}: a ServiceError`)
    t.equal((error as ServiceError).error_code, error_code, `${label || error_code}: error_code`)
    return (error as Error).message
  }
  t.fail(`${label || error_code}: expected a rejection`)
  return ''
}

/**
 * A Create Site body for an original URL, with optional extra site_data and
 * top-level fields. Typed as a valid body although `extra`/`top` may make it
 * invalid on purpose: the tests of bad input rely on the engine's checks.
 */
export function siteBody(
  site_name: string | undefined,
  extra: Record<string, unknown> = {},
  top: Record<string, unknown> = {},
): CreateSiteBody {
  const site_data: Record<string, unknown> = { original_site_url: 'https://www.example.com/', ...extra }
  if (site_name !== undefined) site_data.site_name = site_name
  return { site_data, ...top } as CreateSiteBody
}

/** Creates a site over HTTP, asserting success; returns its name. */
export async function createSite(
  t: Test,
  client: Client,
  site_name: string | undefined,
  extra: Record<string, unknown> = {},
  top: Record<string, unknown> = {},
): Promise<string> {
  const res = await client.post('/sites/create', siteBody(site_name, extra, top))
  t.equal(res.status, 200, `create ${site_name ?? '(generated)'}: 200 ${res.status === 200 ? '' : res.text}`)
  return res.body.site_name as string
}

/**
 * Waits until `check` holds, letting pending I/O and timers run between
 * tries. Bounded by a number of event-loop turns, never by wall time.
 */
export async function eventually(check: () => Promise<boolean> | boolean, turns = 200): Promise<boolean> {
  for (let i = 0; i < turns; i++) {
    if (await check()) return true
    await new Promise((resolve) => setImmediate(resolve))
  }
  return check()
}

/** `n` characters, for boundary tests. */
export const chars = (n: number, c = 'a'): string => c.repeat(n)

/** An http URL of exactly `n` characters. */
export function urlOfLength(n: number): string {
  const head = 'https://www.example.com/'
  return head + 'p'.repeat(n - head.length)
}

/** A fully qualified domain name of exactly `n` characters (labels of at most 63). */
export function domainOfLength(n: number): string {
  const budget = n - '.com'.length
  // k labels joined by k - 1 dots, each at most 63 long.
  const k = Math.ceil((budget + 1) / 64)
  const letters = budget - (k - 1)
  const labels = Array.from({ length: k }, (_, i) => 'd'.repeat(Math.floor(letters / k) + (i < letters % k ? 1 : 0)))
  return `${labels.join('.')}.com`
}
