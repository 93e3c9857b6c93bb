/**
 * `POST /__admin/visits` and `/activities`: one event or an array of them,
 * checked whole (every problem listed, as for seed), then recorded through
 * the engine, all or nothing.
 */
import type { EngineContext } from '../engine/context.js'
import type { ActivityInput, Engine, VisitInput } from '../engine/types.js'
import { ServiceError } from '../errors.js'
import { activitySchema, visitSchema } from '../schema/admin.js'
import { compile } from '../schema/validate.js'
import { Problems, checkEvents, seedError } from './seed.js'

const validateVisit = compile<VisitInput>(visitSchema, 'entry')
const validateActivity = compile<ActivityInput>(activitySchema, 'entry')

/** Records one visit or activity, or an array of them, all or nothing. */
export async function recordEvents(
  engine: Engine,
  ctx: EngineContext,
  section: 'visits' | 'activities',
  body: unknown,
): Promise<void> {
  // In process, `at` may be a Date, as for engine.recordVisit.
  const asText = (entry: unknown): unknown =>
    typeof entry === 'object' && entry !== null && (entry as { at?: unknown }).at instanceof Date
      ? { ...entry, at: (entry as { at: Date }).at.toISOString() }
      : entry
  const list = (Array.isArray(body) ? body : [body]).map(asText)
  const validate = section === 'visits' ? validateVisit : validateActivity
  const problems = new Problems()
  const valid: Record<string, unknown>[] = []
  list.forEach((entry, i) => {
    const value = problems.check(Array.isArray(body) ? `[${i}]` : 'body', () => validate(entry))
    if (value !== undefined) valid.push(value as unknown as Record<string, unknown>)
  })
  const events = await checkEvents(
    ctx,
    section === 'visits' ? valid : [],
    section === 'activities' ? valid : [],
    new Set(),
    problems,
  )
  if (problems.list.length > 0) {
    if (!Array.isArray(body) && problems.list.length === 1)
      throw new ServiceError('InvalidInput', problems.list[0]!.replace(/^body: /, ''))
    throw seedError(problems.list)
  }
  for (const visit of events.visits) await engine.recordVisit(visit)
  for (const activity of events.activities) await engine.recordActivity(activity)
}
