/**
 * Package-internal access to an engine's context (store, clock, builder), for
 * the layers above the engine that must steer or read it directly: the
 * test-double controls, the dashboard and the CLI. Not exported from the
 * package root; users go through the Engine interface.
 */
import { randomUUID } from 'node:crypto'
import type { EngineContext } from './context.js'
import { uuidFrom } from './random.js'
import type { Engine } from './types.js'

const contexts = new WeakMap<Engine, EngineContext>()

/** Called once by createEngine. */
export function registerContext(engine: Engine, ctx: EngineContext): void {
  contexts.set(engine, ctx)
}

/** The context of an engine made by createEngine; throws for any other object. */
export function contextOf(engine: Engine): EngineContext {
  const ctx = contexts.get(engine)
  if (!ctx) throw new TypeError('not an engine made by createEngine()')
  return ctx
}

/**
 * A fresh random UUID from the engine's randomness (repeatable under
 * `randomSeed`), or from node:crypto for an object that is not an engine.
 */
export function randomUuidOf(engine: object): string {
  const ctx = contexts.get(engine as Engine)
  return ctx ? uuidFrom(ctx.randomBytes) : randomUUID()
}
