/**
 * Recording visits and activities (`engine.recordVisit`,
 * `engine.recordActivity`, and the collector's beacons through
 * beacon-recorder.ts): each input is checked and completed into the event
 * the store records (its UTC day, the `system` dimension of its User-Agent,
 * its geo), then queued for this turn's batch (recording-queue.ts). The
 * queries over what is recorded are analytics.ts'.
 *
 * This path runs hundreds of thousands of times a second, so it allocates
 * what the event needs and little more: one object literal per event, one
 * promise per in-process caller and no async layer.
 */
import { ACTIVITY_KINDS, type ActivityKind } from '../../../types/index.js'
import { invalidInput } from '../../errors.js'
import type { ActivityEvent, RecordOutcome, RecordedEvent, VisitEvent } from '../../store/contract/index.js'
import type { EngineContext } from '../context.js'
import { DAY_MS, formatDay, startOfDay, utc } from '../shared/dates.js'
import { asServiceError, unavailable } from '../shared/outage.js'
import { buildOnFirstVisit } from '../rules/lifecycle.js'
import { siteNotFound } from '../rules/site-ownership.js'
import type { RecordingWaiter } from './recording-queue.js'
import { UNKNOWN, systemOf, userAgentParserReady, type SystemInfo } from './user-agent.js'

/** A visit of more pages than this is a client bug, not traffic. */
export const MAX_PAGE_VIEWS = 10_000
const MAX_VISITOR_ID = 256
const MAX_GEO = 100
/** Dates a day bucket can name (`YYYY-MM-DD` with a four-digit year). */
const MIN_AT = utc(1, 0, 1)
const MAX_AT = utc(9999, 11, 31, 23, 59, 59) + 999

const KINDS: ReadonlySet<string> = new Set<string>(ACTIVITY_KINDS)
/** Whether `key` names a field of a visit input (a switch: a Set lookup per key cost more). */
function isVisitField(key: string): boolean {
  switch (key) {
    case 'site_name':
    case 'at':
    case 'visitor_id':
    case 'user_agent':
    case 'country':
    case 'region':
    case 'page_views':
      return true
    default:
      return false
  }
}

/** Whether `key` names a field of an activity input. */
function isActivityField(key: string): boolean {
  switch (key) {
    case 'site_name':
    case 'at':
    case 'kind':
    case 'user_agent':
    case 'country':
    case 'region':
      return true
    default:
      return false
  }
}

/** Input fields as an object; rejects non-objects and unknown fields. */
function fieldsOf(input: unknown, allowed: (key: string) => boolean, what: string): Record<string, unknown> {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw invalidInput(`${what} must be an object`)
  for (const key in input) if (!allowed(key)) throw invalidInput(`unknown field ${key}`)
  return input as Record<string, unknown>
}

function optionalString(value: unknown, name: string, max: number): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string') throw invalidInput(`${name} must be a string`)
  if (value.length > max) throw invalidInput(`${name} must be at most ${max} characters`)
  return value
}

/** `YYYY-MM-DD` of the event time; consecutive events mostly share a day, so the last one is remembered. */
let lastDayStart = NaN
let lastDay = ''
function dayOf(ctx: EngineContext, at: unknown): string {
  let ms: number
  if (at === undefined) ms = ctx.now().getTime()
  else {
    ms = at instanceof Date ? at.getTime() : NaN
    // NaN (an Invalid Date, or not a Date) fails both comparisons.
    if (!(ms >= MIN_AT && ms <= MAX_AT)) throw invalidInput('at must be a valid Date between years 1 and 9999')
  }
  if (!(ms >= lastDayStart && ms < lastDayStart + DAY_MS)) {
    lastDayStart = startOfDay(ms)
    lastDay = formatDay(ms)
  }
  return lastDay
}

/** A geo part of an event: country or region. */
function geoOf(fields: Record<string, unknown>, name: 'country' | 'region'): string {
  return optionalString(fields[name], name, MAX_GEO) || UNKNOWN
}

/** The `system` dimension of an event's User-Agent; InvalidInput when it is not a string. */
function systemField(fields: Record<string, unknown>): SystemInfo {
  const userAgent = fields.user_agent
  if (userAgent !== undefined && typeof userAgent !== 'string') throw invalidInput('user_agent must be a string')
  return systemOf(userAgent)
}

/** The site name, checked last as it always was: the store then resolves it. */
function siteNameOf(fields: Record<string, unknown>): string {
  const site_name = fields.site_name
  if (typeof site_name !== 'string') throw invalidInput('site_name must be a string')
  return site_name
}

/**
 * A visit completed with its dimensions (the `system` one shared and frozen)
 * and its site name. One object literal with every field: adding fields to a
 * smaller object moved them out of the object (one more allocation and
 * several shape transitions per event).
 */
function visitEvent(fields: Record<string, unknown>, day: string, visitor_id: string, page_views: number): VisitEvent {
  const system = systemField(fields)
  const country = geoOf(fields, 'country')
  const region = geoOf(fields, 'region')
  const site_name = siteNameOf(fields)
  return { day, visitor_id, page_views, browser: system.browser, os: system.os, country, region, site_name }
}

/** An activity completed as {@link visitEvent}. */
function activityEvent(fields: Record<string, unknown>, day: string, kind: ActivityKind): ActivityEvent {
  const system = systemField(fields)
  const country = geoOf(fields, 'country')
  const region = geoOf(fields, 'region')
  const site_name = siteNameOf(fields)
  return { day, kind, browser: system.browser, os: system.os, country, region, site_name }
}

/**
 * A visit input checked and completed into the event the store records; a
 * promise of it only while the user-agent parser loads (once per process).
 * Throws InvalidInput.
 */
export function visitOf(ctx: EngineContext, input: unknown): VisitEvent | Promise<VisitEvent> {
  const fields = fieldsOf(input, isVisitField, 'visit')
  const visitor_id = fields.visitor_id
  if (typeof visitor_id !== 'string' || visitor_id === '') throw invalidInput('visitor_id must be a non-empty string')
  if (visitor_id.length > MAX_VISITOR_ID) throw invalidInput(`visitor_id must be at most ${MAX_VISITOR_ID} characters`)
  const page_views = fields.page_views ?? 1
  if (
    typeof page_views !== 'number' ||
    !Number.isInteger(page_views) ||
    page_views < 1 ||
    page_views > MAX_PAGE_VIEWS
  ) {
    throw invalidInput(`page_views must be an integer from 1 to ${MAX_PAGE_VIEWS}`)
  }
  const day = dayOf(ctx, fields.at)
  const loading = userAgentParserReady(fields.user_agent)
  if (loading !== undefined) return loading.then(() => visitEvent(fields, day, visitor_id, page_views))
  return visitEvent(fields, day, visitor_id, page_views)
}

/** An activity input checked and completed, as {@link visitOf}. */
export function activityOf(ctx: EngineContext, input: unknown): ActivityEvent | Promise<ActivityEvent> {
  const fields = fieldsOf(input, isActivityField, 'activity')
  const kind = fields.kind
  if (typeof kind !== 'string' || !KINDS.has(kind)) throw invalidInput(`kind must be one of ${[...KINDS].join(', ')}`)
  const day = dayOf(ctx, fields.at)
  const loading = userAgentParserReady(fields.user_agent)
  if (loading !== undefined) return loading.then(() => activityEvent(fields, day, kind as ActivityKind))
  return activityEvent(fields, day, kind as ActivityKind)
}

/**
 * What follows the store's outcome for an event: SiteNotFound when its site
 * does not exist, and for the first visit of a `create_now=false` site not
 * built yet, that build (a promise); otherwise nothing.
 */
export function afterRecorded(
  ctx: EngineContext,
  event: RecordedEvent,
  outcome: RecordOutcome | undefined,
): Promise<void> | undefined {
  if (outcome === undefined) throw siteNotFound(event.site_name)
  return outcome.build === 'delayed' && 'visitor_id' in event ? buildOnFirstVisit(ctx, event.site_name) : undefined
}

/**
 * The waiter of one in-process caller: settles its promise as the engine's
 * `guard` would have (SiteNotFound, the build of a first visit,
 * ServiceUnavailable for a store outage). One object and one promise per
 * event, and no async layer: the async function, the queue's own promise and
 * the guard's `catch` each cost a promise and a microtask per event, about a
 * fifth of `engine.recordVisit` on MemoryStore.
 */
class CallerWaiter implements RecordingWaiter {
  constructor(
    private readonly ctx: EngineContext,
    private readonly settle: (value: Promise<void> | undefined) => void,
    private readonly fail: (error: unknown) => void,
  ) {}

  resolve(outcome: RecordOutcome | undefined, event: RecordedEvent): void {
    let building: Promise<void> | undefined
    try {
      building = afterRecorded(this.ctx, event, outcome)
    } catch (error) {
      return this.fail(error)
    }
    this.settle(building === undefined ? undefined : building.catch(unavailable))
  }

  reject(error: unknown): void {
    this.fail(asServiceError(error))
  }
}

/** The resolving functions of the promise {@link queued} made last, read right after by it. */
let settleNext: (value: Promise<void> | undefined) => void = () => {}
let failNext: (error: unknown) => void = () => {}
/** One executor for every promise, not a closure per event: it only hands its functions over. */
const capture = (resolve: typeof settleNext, reject: typeof failNext): void => {
  settleNext = resolve
  failNext = reject
}

/** Queues a checked event; the promise settles with its outcome, as {@link CallerWaiter} says. */
function queued(ctx: EngineContext, event: RecordedEvent): Promise<void> {
  const promise = new Promise<void>(capture)
  ctx.recorder.enqueue(event, new CallerWaiter(ctx, settleNext, failNext))
  return promise
}

/** Checks an input and queues it; every failure rejects the promise, a store outage as ServiceUnavailable. */
function recordChecked(
  ctx: EngineContext,
  input: unknown,
  check: (ctx: EngineContext, input: unknown) => RecordedEvent | Promise<RecordedEvent>,
): Promise<void> {
  let checked: RecordedEvent | Promise<RecordedEvent>
  try {
    checked = check(ctx, input)
  } catch (error) {
    return Promise.reject(asServiceError(error))
  }
  if (checked instanceof Promise) return checked.then((event) => queued(ctx, event)).catch(unavailable)
  return queued(ctx, checked)
}

/**
 * Records a visit (`engine.recordVisit`) through the recording queue: with
 * every recording of this event-loop turn, one store call, which finds each
 * event's site and records it in one atomic step. A `create_now=false` site not built yet is
 * built now; the returned promise settles once that build is done.
 */
export function recordVisit(ctx: EngineContext, input: unknown): Promise<void> {
  return recordChecked(ctx, input, visitOf)
}

/** Records an activity (`engine.recordActivity`) through the recording queue, as {@link recordVisit}. */
export function recordActivity(ctx: EngineContext, input: unknown): Promise<void> {
  return recordChecked(ctx, input, activityOf)
}
