/**
 * createEngine: the one place where every rule of the service runs. The HTTP
 * router, the redirect middleware and in-process callers all use it.
 */
import { ServiceError } from '../errors.js'
import { DEFAULT_AGENTS } from '../agents/default.js'
import { AgentsSourceError, validateAgentsSource } from '../agents/matcher.js'
import { MemoryStore } from '../store/memory/store.js'
import * as recording from './recording/events.js'
import type { CallContext, EngineContext } from './context.js'
import { EventHub } from './rules/events.js'
import { registerContext } from './context-access.js'
import * as lifecycle from './rules/lifecycle.js'
import { buildMasterApi, callContextOf, callerApiCache } from './api/master-api.js'
import { MasterRegistry } from './auth/masters.js'
import { guard } from './shared/outage.js'
import { randomSource } from './shared/random.js'
import { RecordingQueue } from './recording/recording-queue.js'
import { formatDay } from './shared/dates.js'
import type { Caller, Engine, EngineOptions, MasterApi } from './types.js'
import { userAgentParserLoading } from './recording/user-agent.js'

export type * from './types.js'

/** The agents module's own validation, so GET /agents never serves what a matcher would refuse. */
function validateAgents(source: unknown): string {
  try {
    return validateAgentsSource(source)
  } catch (error) {
    if (error instanceof AgentsSourceError) throw new ServiceError('InvalidInput', error.message, { cause: error })
    throw error
  }
}

/** A positive integer option, or undefined when absent; anything else is a TypeError. */
function positiveOption(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined
  if (!Number.isInteger(value) || value < 1) throw new TypeError(`createEngine: ${name} must be a positive integer`)
  return value
}

/**
 * Creates an engine. Every option has a default: a fresh MemoryStore, the
 * system clock, a builder that succeeds at once and DEFAULT_AGENTS.
 */
export function createEngine(options: EngineOptions = {}): Engine {
  const pending = new Set<Promise<unknown>>()
  const store = options.store ?? new MemoryStore()
  const masters = new MasterRegistry(store, {
    credentialCache: options.credentialCache,
    maxPasswordChecks: options.maxPasswordChecks,
    maxQueuedPasswordChecks: options.maxQueuedPasswordChecks,
    failedLogins: options.failedLogins,
  })
  const maxDimensionValues = positiveOption(options.maxDimensionValues, 'maxDimensionValues') ?? 1000
  const retentionDays = positiveOption(options.analyticsRetentionDays, 'analyticsRetentionDays')
  const now = options.now ?? (() => new Date())
  const ctx: EngineContext = {
    store,
    retentionDays,
    // `ctx.now` is read at each batch: the test-double clock controls layer over it.
    recorder: new RecordingQueue({
      store,
      maxDimensionValues,
      retentionDays,
      today: () => formatDay(ctx.now().getTime()),
    }),
    masters,
    now,
    builder: options.builder ?? (async () => {}),
    builds: new Map(),
    pending,
    generation: { value: 0 },
    randomBytes: randomSource(options.randomSeed),
    events: new EventHub(),
    track(work) {
      const settled = work.catch(() => {}).finally(() => pending.delete(settled))
      pending.add(settled)
    },
  }
  let agents = validateAgents(options.agents ?? DEFAULT_AGENTS)

  async function callContext(user: string): Promise<CallContext> {
    const master = await masters.lookup(user)
    if (!master) throw new ServiceError('Unauthorized', `unknown master account ${user}`)
    return callContextOf(ctx, master)
  }

  // A trusted Caller's API is built once: its methods run the rule in a fixed context.
  const trusted = callerApiCache((caller) => {
    const call = callContextOf(ctx, caller)
    return buildMasterApi(
      (operation) =>
        (...args) =>
          guard(() => operation(call, ...args)),
    )
  })

  function as(caller: string | Caller): MasterApi {
    if (typeof caller !== 'string') return trusted(caller)
    // A user name is looked up on every call, so a removed master is refused at once.
    return buildMasterApi(
      (operation) =>
        (...args) =>
          guard(async () => operation(await callContext(caller), ...args)),
    )
  }

  const engine: Engine = {
    hasMasterAccount: (user) => guard(async () => (await ctx.store.getMaster(user)) !== undefined),
    now: () => ctx.now(),
    addMasterAccount: (account) => guard(() => masters.add(account)),
    authenticate: (user, password) => guard(() => masters.authenticate(user, password)),
    as,
    // Not through guard: these map outages themselves, with one promise per event (recording/events.ts).
    recordVisit: (visit) => recording.recordVisit(ctx, visit),
    recordActivity: (activity) => recording.recordActivity(ctx, activity),
    confirmRedirect: (site_name, at) => guard(() => lifecycle.confirmRedirect(ctx, site_name, at ?? ctx.now())),
    billing: (user) =>
      guard(async () => {
        const ledger = await ctx.store.getBilling(user)
        return {
          charges: ledger.charges.map(({ site_name, at }) => ({ site_name, at: new Date(at) })),
          subscriptions: ledger.subscriptions.map(({ site_name, status }) => ({ site_name, status })),
        }
      }),
    getAgents: () => agents,
    setAgents: (source) => {
      agents = validateAgents(source)
    },
    recordingStats: () => ctx.recorder.stats(),
    flushRecordings,
    async close() {
      await flushRecordings()
      // Callers' continuations (a first visit's build) start in the turn after their batch.
      await new Promise((resolve) => setImmediate(resolve))
      while (pending.size > 0) await Promise.all(pending)
      await ctx.store.close()
    },
  }
  registerContext(engine, ctx)
  return engine

  /**
   * Sends every recording made so far, also those that were waiting for
   * ua-parser-js to load (the first User-Agent of the process): they reach
   * the queue in the turns right after the load.
   */
  async function flushRecordings(): Promise<void> {
    const loading = userAgentParserLoading()
    if (loading !== undefined) {
      await loading.catch(() => {})
      await new Promise((resolve) => setImmediate(resolve))
    }
    await ctx.recorder.flush()
  }
}
