/**
 * What an API operation is: one definition that names it, says how it is
 * served over HTTP, gives the JSON Schemas of what it takes and answers, and
 * points at the engine rule that runs it. The table of them (operations.ts)
 * is the only list of operations: MasterApi and `engine.as()` (master-api.ts),
 * apiRouter's dispatch (lib/http/routes.ts), the OpenAPI document and
 * docs/api.md all follow from it.
 *
 * The HTTP part is data (a method, a path, where the input comes from), so
 * the engine still knows nothing of express: the router reads it.
 *
 * tsc checks each definition against its rule: the rule's input is the type
 * of the request schema and its answer the type of the response schema (void
 * without one), so the table, the rules and the schemas cannot drift apart.
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts'
import type { ErrorCode } from '../../errors.js'
import type { InputOf, Same } from '../../schema/typing.js'
import type { CallContext } from '../context.js'

/** What an HTTP request carries for the rule's argument after the path parameters. */
export type Input = 'body' | 'optional-body' | 'query' | 'none'

/** How an operation is served over HTTP. */
export interface HttpBinding {
  method: 'GET' | 'POST' | 'DELETE'
  /**
   * Express path syntax, relative to where apiRouter is mounted. Each
   * `:param` is the rule's next argument, in order.
   */
  path: string
  /** Where the argument after the path parameters comes from ('none': the rule takes no more). */
  input: Input
  /** A fact of the request given as the rule's last argument: where the dashboard is served. */
  fact?: 'dashboardUrl'
}

/** An engine rule: a function of the call context and the method's arguments. */
// biome-ignore lint/suspicious/noExplicitAny: the widest rule type; `never[]` would refuse every rule's parameters.
export type Rule = (call: CallContext, ...args: any[]) => Promise<unknown>

/** What every operation says: its description, its schemas and its rule. */
interface OperationBase<F extends Rule> {
  summary: string
  /** What a caller must know beyond the schemas (the OpenAPI description). */
  description?: string
  /** The JSON Schema of the body or query, which the rule validates its input with. */
  request?: JSONSchema
  /** The JSON Schema of the answer (200); absent: the answer is empty (204). */
  response?: JSONSchema
  /**
   * Error codes it answers besides those every authenticated request can get
   * (listed once, in lib/http/openapi.ts). Each code's status comes from the
   * registry in lib/errors.ts.
   */
  errors?: readonly ErrorCode[]
  /** The engine rule; its parameters after the call context are the method's. */
  run: F
}

/** An operation served over HTTP, named and grouped for the OpenAPI document. */
interface ServedOperation<F extends Rule> extends OperationBase<F> {
  http: HttpBinding
  /** Unique camelCase name: the OpenAPI operationId. */
  operationId: string
  /** The group it is listed under (Sites, Accounts, Analytics). */
  tag: string
}

/** An operation of the in-process API only. */
interface InProcessOperation<F extends Rule> extends OperationBase<F> {
  http?: undefined
  operationId?: undefined
  tag?: undefined
}

/** One operation: its description, its HTTP binding (if served over HTTP), its schemas and its rule. */
export type Operation<F extends Rule = Rule> = ServedOperation<F> | InProcessOperation<F>

/** The type a schema gives an input: defaults are documented, not applied (the rule reads absent as default). */
type InputOfSchema<S> = S extends JSONSchema ? InputOf<S> : never

/** `true` if some member of the union `U` is exactly `T` (`U` is naked, so the check distributes). */
type SomeIs<U, T> = U extends unknown ? Same<U, T> : never

/** The method's parameters: the rule's after the call context. */
type ArgsOf<F> = F extends (call: CallContext, ...args: infer A) => unknown ? A : never

/** Whether one of the rule's parameters has exactly the request schema's type. */
type TakesInput<F, Q> = true extends SomeIs<ArgsOf<F>[number], InputOfSchema<Q>> ? true : false

/** Whether the rule answers exactly the response schema's type, or void without one. */
type Answers<F, S> = F extends (...args: never[]) => Promise<infer R>
  ? [S] extends [undefined]
    ? Same<R, void>
    : S extends JSONSchema
      ? Same<R, FromSchema<S>>
      : false
  : false

/** An empty object when the rule agrees with the schemas; else a property that names the mismatch. */
type Agreement<F, Q, S> = ([Q] extends [undefined] ? true : TakesInput<F, Q>) extends true
  ? Answers<F, S> extends true
    ? unknown
    : { 'the rule must answer the type of `response` (void without one)': S }
  : { 'one parameter of the rule must have the type of `request`': Q }

/**
 * Declares an operation. Types the method from its rule and checks the rule
 * against `request` and `response` (a mismatch is a compile error naming it).
 */
export function operation<F extends Rule, const Q = undefined, const S = undefined>(
  definition: Operation<F> & { request?: Q; response?: S } & Agreement<F, Q, S>,
): Operation<F> {
  return definition
}

/** The in-process method of an operation: its rule without the call context. */
export type MethodOf<O> =
  O extends Operation<infer F>
    ? F extends (call: CallContext, ...args: infer A) => infer R
      ? (...args: A) => R
      : never
    : never
