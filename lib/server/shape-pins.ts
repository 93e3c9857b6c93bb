/**
 * Keeps alive one object `process.nextTick` queued, so that garbage
 * collection while a server is idle cannot send every later tick through
 * V8's slow generic code.
 *
 * Why: V8 holds the hidden classes (maps) an object literal makes only
 * weakly. When no object of them is alive, as when a server sits idle and
 * V8's memory reducer runs a full GC, they are collected; the next object
 * gets new ones, and Node 20's V8 turns the inline caches that had seen the
 * old ones megamorphic for the rest of the process. `process.nextTick`,
 * which Node's streams and http code call several times a request, then
 * took about ten times its usual self time (about 1.3 µs of a request's CPU
 * here). Seen in the CLI: after 45 s idle, `%DebugPrint(process.nextTick)`
 * showed three of its four literal stores megamorphic; with the pin, none
 * (issue 38, test/server/shape-pins.ts). Node 22 and 24 keep those caches
 * monomorphic; there the pin costs one small object.
 */
import { executionAsyncResource } from 'node:async_hooks'

/** Holds the pinned object: never read, only kept. */
const kept: object[] = []
let pinning = false

/**
 * Pins the shape of the object `process.nextTick` queues. While a tick's
 * callback runs, its execution resource is that object, so no async hook is
 * needed to see it. Once per process; best called before the process first
 * idles.
 */
export function pinTickShape(): void {
  if (pinning) return
  pinning = true
  process.nextTick(() => kept.push(executionAsyncResource()))
}
