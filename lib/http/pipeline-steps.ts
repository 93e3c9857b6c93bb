/**
 * The steps of apiRouter's request pipeline between authentication and the
 * engine: what a step sees of a call, and how a list of steps runs. The
 * router runs them; the request guards and the test-double hooks are steps.
 */
import type { Request, Response } from 'express'
import type { Caller } from '../engine/types.js'
import type { Route } from './routes.js'

/** One authenticated API request, as the steps before the engine see it. */
export interface ApiCall {
  readonly req: Request
  readonly res: Response
  readonly route: Route
  /** Decoded path parameters in the route's order. */
  readonly params: readonly string[]
  readonly caller: Caller
  /** The body or query the engine will get; undefined until the input is read. */
  input: unknown
}

/**
 * A step of the request pipeline. It may throw (or reject with) a
 * ServiceError to answer with that error instead of calling the engine.
 */
export type ApiStep = (call: ApiCall) => void | Promise<void>

/** Runs the steps in order; only a step that returns a promise is awaited (an await of nothing still costs a turn). */
export function runSteps(steps: readonly ApiStep[], call: ApiCall): Promise<void> | undefined {
  for (let i = 0; i < steps.length; i++) {
    const pending = steps[i]!(call)
    if (pending !== undefined) return pending.then(() => runSteps(steps.slice(i + 1), call))
  }
  return undefined
}
