/**
 * The calls of the test-double controls over HTTP, each defined once: its
 * method and path, what it takes and answers (JSON Schemas), its words for
 * the docs and the {@link Controls} method behind it. adminRouter, its 405
 * answers, the admin part of the OpenAPI document and of docs/api.md all
 * read this table. Its order is the one the index, the documents and Allow
 * headers list calls in; routing ranks paths itself (a literal segment beats
 * a parameter), so the order never decides which call answers.
 */
import type { ErrorCode } from '../errors.js'
import {
  activitySchema,
  builderSchema,
  clockAdvanceSchema,
  clockSetSchema,
  events,
  faultSchema,
  journalQuerySchema,
  visitSchema,
} from '../schema/admin.js'
import {
  billingAnswerSchema,
  clockAnswerSchema,
  faultIdSchema,
  faultsAnswerSchema,
  healthAnswerSchema,
  journalAnswerSchema,
} from '../schema/admin-answers.js'
import {
  countAnswerSchema,
  countQuerySchema,
  deliveriesAnswerSchema,
  rateLimitAnswerSchema,
  rateLimitSchema,
  unmatchedAnswerSchema,
  webhookIdSchema,
  webhookSchema,
  webhooksAnswerSchema,
} from '../schema/admin-webhooks.js'
import { seedBodySchema } from '../schema/seed.js'
import type { Controls, Health } from './controls.js'

/** One admin call. */
export interface AdminCall {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE'
  /** Express path syntax, below the admin mount (`/__admin` on the standalone server). */
  path: string
  operationId: string
  summary: string
  /** What the request carries; anything else it carries is refused (a body, a query parameter). */
  input: 'none' | 'body' | 'optional-body' | 'query'
  /** The JSON Schema of the body or query, which the controls validate it with. */
  schema?: object
  success: 200 | 201 | 204
  /** The JSON answer of a 200 or 201. */
  response?: object
  /** Error codes beyond those every admin call can answer with. */
  errors?: readonly ErrorCode[]
  /**
   * For health: whether its answer reports a store outage, which is then
   * sent with status 503 (the call never answers ServiceUnavailable).
   */
  outage?: (answer: never) => boolean
  /** Runs the call: the path parameters in order, and the input it takes. */
  run(controls: Controls, params: readonly string[], input: unknown): unknown
}

/** Every admin call, in the order the index and the documents list them. */
export const ADMIN_CALLS: readonly AdminCall[] = [
  {
    method: 'GET',
    path: '/health',
    operationId: 'adminHealth',
    summary: 'Whether the store answers',
    input: 'none',
    success: 200,
    response: healthAnswerSchema,
    outage: (health: Health) => health.status !== 'ok',
    run: (c) => c.health(),
  },
  {
    method: 'POST',
    path: '/reset',
    operationId: 'adminReset',
    summary: 'Empty the state; keep the start-up masters',
    input: 'none',
    success: 204,
    run: (c) => c.reset(),
  },
  {
    method: 'POST',
    path: '/seed',
    operationId: 'adminSeed',
    summary: 'Add fixtures, all or nothing',
    input: 'optional-body',
    schema: seedBodySchema,
    success: 204,
    run: (c, _, body) => c.seed(body ?? {}),
  },
  {
    method: 'GET',
    path: '/snapshot',
    operationId: 'adminSnapshot',
    summary: 'The whole state as a seed body',
    input: 'none',
    success: 200,
    response: seedBodySchema,
    run: (c) => c.snapshot(),
  },
  {
    method: 'GET',
    path: '/clock',
    operationId: 'adminGetClock',
    summary: 'Read the clock',
    input: 'none',
    success: 200,
    response: clockAnswerSchema,
    run: (c) => c.clock(),
  },
  {
    method: 'PUT',
    path: '/clock',
    operationId: 'adminSetClock',
    summary: 'Freeze the clock at a time',
    input: 'body',
    schema: clockSetSchema,
    success: 200,
    response: clockAnswerSchema,
    run: (c, _, body) => c.setClock(body),
  },
  {
    method: 'DELETE',
    path: '/clock',
    operationId: 'adminResetClock',
    summary: 'Back to real time',
    input: 'none',
    success: 200,
    response: clockAnswerSchema,
    run: (c) => c.resetClock(),
  },
  {
    method: 'POST',
    path: '/clock/advance',
    operationId: 'adminAdvanceClock',
    summary: 'Move the clock forward',
    input: 'body',
    schema: clockAdvanceSchema,
    success: 200,
    response: clockAnswerSchema,
    run: (c, _, body) => c.advanceClock(body),
  },
  {
    method: 'PUT',
    path: '/builder',
    operationId: 'adminSetBuilder',
    summary: 'Make following builds fail or take time',
    input: 'body',
    schema: builderSchema,
    success: 204,
    run: (c, _, body) => c.setBuilder(body),
  },
  {
    method: 'DELETE',
    path: '/builder',
    operationId: 'adminResetBuilder',
    summary: 'Back to the default builder',
    input: 'none',
    success: 204,
    run: (c) => c.resetBuilder(),
  },
  {
    method: 'POST',
    path: '/builds/settle',
    operationId: 'adminSettleBuilds',
    summary: 'Wait for every async build in flight',
    input: 'none',
    success: 204,
    run: (c) => c.settleBuilds(),
  },
  {
    method: 'POST',
    path: '/visits',
    operationId: 'adminRecordVisits',
    summary: 'Record visits',
    input: 'body',
    schema: events(visitSchema),
    success: 204,
    run: (c, _, body) => c.recordVisits(body),
  },
  {
    method: 'POST',
    path: '/activities',
    operationId: 'adminRecordActivities',
    summary: 'Record activities',
    input: 'body',
    schema: events(activitySchema),
    success: 204,
    run: (c, _, body) => c.recordActivities(body),
  },
  {
    method: 'GET',
    path: '/billing/:user',
    operationId: 'adminBilling',
    summary: 'A master account’s charges and subscriptions',
    input: 'none',
    success: 200,
    response: billingAnswerSchema,
    run: (c, [user]) => c.billing(user!),
  },
  {
    method: 'GET',
    path: '/requests',
    operationId: 'adminRequests',
    summary: 'The journal of API calls, newest last',
    input: 'query',
    schema: journalQuerySchema,
    success: 200,
    response: journalAnswerSchema,
    run: (c, _, query) => c.requests(query as Record<string, unknown>),
  },
  {
    method: 'GET',
    path: '/requests/count',
    operationId: 'adminCountRequests',
    summary: 'How many journal entries match',
    input: 'query',
    schema: countQuerySchema,
    success: 200,
    response: countAnswerSchema,
    run: (c, _, query) => c.countRequests(query as Record<string, unknown>),
  },
  {
    method: 'GET',
    path: '/requests/unmatched',
    operationId: 'adminUnmatchedRequests',
    summary: 'Calls that matched no route or failed validation, with the nearest route and why',
    input: 'none',
    success: 200,
    response: unmatchedAnswerSchema,
    run: (c) => c.unmatchedRequests(),
  },
  {
    method: 'DELETE',
    path: '/requests',
    operationId: 'adminClearRequests',
    summary: 'Empty the journal',
    input: 'none',
    success: 204,
    run: (c) => c.clearRequests(),
  },
  {
    method: 'POST',
    path: '/faults',
    operationId: 'adminAddFault',
    summary: 'Inject a fault into matching API calls',
    input: 'body',
    schema: faultSchema,
    success: 201,
    response: faultIdSchema,
    run: (c, _, body) => c.addFault(body),
  },
  {
    method: 'GET',
    path: '/faults',
    operationId: 'adminFaults',
    summary: 'The faults in force',
    input: 'none',
    success: 200,
    response: faultsAnswerSchema,
    run: (c) => c.faults(),
  },
  {
    method: 'DELETE',
    path: '/faults',
    operationId: 'adminClearFaults',
    summary: 'Delete every fault',
    input: 'none',
    success: 204,
    run: (c) => c.clearFaults(),
  },
  {
    method: 'DELETE',
    path: '/faults/:id',
    operationId: 'adminDeleteFault',
    summary: 'Delete one fault',
    input: 'none',
    success: 204,
    errors: ['NotFound'],
    run: (c, [id]) => c.deleteFault(id!),
  },
  {
    method: 'POST',
    path: '/webhooks',
    operationId: 'adminAddWebhook',
    summary: 'Send the site events to a URL',
    input: 'body',
    schema: webhookSchema,
    success: 201,
    response: webhookIdSchema,
    run: (c, _, body) => c.addWebhook(body),
  },
  {
    method: 'GET',
    path: '/webhooks',
    operationId: 'adminWebhooks',
    summary: 'The webhooks registered',
    input: 'none',
    success: 200,
    response: webhooksAnswerSchema,
    run: (c) => c.webhooks(),
  },
  {
    method: 'DELETE',
    path: '/webhooks',
    operationId: 'adminClearWebhooks',
    summary: 'Delete every webhook',
    input: 'none',
    success: 204,
    run: (c) => c.clearWebhooks(),
  },
  {
    method: 'GET',
    path: '/webhooks/deliveries',
    operationId: 'adminWebhookDeliveries',
    summary: 'Every delivery attempt, and how many deliveries are pending',
    input: 'none',
    success: 200,
    response: deliveriesAnswerSchema,
    run: (c) => c.webhookDeliveries(),
  },
  {
    method: 'DELETE',
    path: '/webhooks/deliveries',
    operationId: 'adminClearWebhookDeliveries',
    summary: 'Empty the log of delivery attempts',
    input: 'none',
    success: 204,
    run: (c) => c.clearWebhookDeliveries(),
  },
  {
    method: 'POST',
    path: '/webhooks/settle',
    operationId: 'adminSettleWebhooks',
    summary: 'Wait until no delivery is pending',
    input: 'none',
    success: 204,
    run: (c) => c.settleWebhooks(),
  },
  {
    method: 'DELETE',
    path: '/webhooks/:id',
    operationId: 'adminDeleteWebhook',
    summary: 'Delete one webhook',
    input: 'none',
    success: 204,
    errors: ['NotFound'],
    run: (c, [id]) => c.deleteWebhook(id!),
  },
  {
    method: 'GET',
    path: '/rate-limit',
    operationId: 'adminGetRateLimit',
    summary: 'The per-account rate limit in force',
    input: 'none',
    success: 200,
    response: rateLimitAnswerSchema,
    run: (c) => c.rateLimit(),
  },
  {
    method: 'PUT',
    path: '/rate-limit',
    operationId: 'adminSetRateLimit',
    summary: 'Answer 429 past N calls per second per master account',
    input: 'body',
    schema: rateLimitSchema,
    success: 200,
    response: rateLimitAnswerSchema,
    run: (c, _, body) => c.setRateLimit(body),
  },
  {
    method: 'DELETE',
    path: '/rate-limit',
    operationId: 'adminClearRateLimit',
    summary: 'Turn the rate limit off',
    input: 'none',
    success: 200,
    response: rateLimitAnswerSchema,
    run: (c) => c.clearRateLimit(),
  },
]
