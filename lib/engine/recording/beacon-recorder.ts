/**
 * The collector's way into the recording queue. `engine.recordVisit` hands
 * every caller a promise, and each promise layer (the guard, the async
 * function, the queue's own) costs allocations and microtask turns; for a
 * collector answering tens of thousands of beacons a second that was a tenth
 * of its CPU. A beacon recorder checks the event synchronously and queues it
 * with one waiter shared by all its beacons, which reports each outcome to
 * one callback. What is recorded, and every error, is the same as through
 * `engine.recordVisit` / `engine.recordActivity`.
 */
import type { RecordOutcome, RecordedEvent } from '../../store/contract/index.js'
import { activityOf, afterRecorded, visitOf } from './events.js'
import type { EngineContext } from '../context.js'
import { asServiceError } from '../shared/outage.js'
import type { RecordingWaiter } from './recording-queue.js'
import type { ActivityInput, VisitInput } from '../types.js'

/**
 * Records beacons, as `engine.recordVisit` / `engine.recordActivity` do. Its
 * methods never throw and return nothing: each outcome goes to the
 * recorder's `settled` callback.
 */
export interface BeaconRecorder {
  visit(input: VisitInput): void
  activity(input: ActivityInput): void
}

/**
 * A recorder whose every beacon ends in exactly one call of `settled`:
 * without an argument once the event is recorded (and a delayed build it
 * started is done), or with the error `engine.recordVisit` would have
 * rejected with (InvalidInput, SiteNotFound, ServiceUnavailable).
 */
export function beaconRecorder(ctx: EngineContext, settled: (error?: unknown) => void): BeaconRecorder {
  const fail = (error: unknown): void => settled(asServiceError(error))
  const done = (): void => settled()
  const waiter: RecordingWaiter = {
    resolve(outcome: RecordOutcome | undefined, event: RecordedEvent) {
      let building: Promise<void> | undefined
      try {
        building = afterRecorded(ctx, event, outcome)
      } catch (error) {
        return settled(error)
      }
      if (building === undefined) settled()
      else building.then(done, fail)
    },
    reject: fail,
  }
  const enqueue = (event: RecordedEvent): void => ctx.recorder.enqueue(event, waiter)
  const record = (
    check: (ctx: EngineContext, input: unknown) => RecordedEvent | Promise<RecordedEvent>,
    input: unknown,
  ): void => {
    let checked: RecordedEvent | Promise<RecordedEvent>
    try {
      checked = check(ctx, input)
    } catch (error) {
      return settled(error)
    }
    if (checked instanceof Promise) checked.then(enqueue, settled)
    else enqueue(checked)
  }
  return {
    visit: (input) => record(visitOf, input),
    activity: (input) => record(activityOf, input),
  }
}
