/**
 * Fault injection: rules that make matching API calls slow, fail with any
 * error body, or lose their connection. They are checked after
 * authentication and before the engine, so a faulted write changes nothing.
 */
import { ServiceError } from '../errors.js'
import type { ApiFault } from '../http/hooks.js'
import { ROUTES, AGENTS_PATH } from '../http/routes.js'
import { templateOf } from '../http/hooks.js'

/** A fault as it is added: `POST /__admin/faults`. */
export interface FaultSpec extends ApiFault {
  /** Any letter case; absent: every method. */
  method?: string
  /** An OpenAPI path of the API, e.g. `/sites/{site_name}`; absent: every route. */
  route?: string
  /** Only calls naming this site in their path. */
  site_name?: string
  /** Applied this many times, then gone. Absent: until deleted. */
  times?: number
  /** Chance of applying to a matching call (default 1); a miss does not count against `times`. */
  probability?: number
}

/** A fault in force, as `GET /__admin/faults` lists it (`times`: what remains). */
export interface Fault extends FaultSpec {
  id: string
}

/** The route templates a fault may name. */
export const ROUTE_TEMPLATES: ReadonlySet<string> = new Set([...ROUTES.map((r) => templateOf(r.path)), AGENTS_PATH])

export class FaultList {
  private faults: Fault[] = []
  private nextId = 1

  constructor(private readonly random: () => number = Math.random) {}

  /** Adds a fault (already schema-checked); unknown routes and faults that do nothing are InvalidInput. */
  add(spec: FaultSpec): Fault {
    if (spec.route !== undefined && !ROUTE_TEMPLATES.has(spec.route)) {
      throw new ServiceError(
        'InvalidInput',
        `route ${spec.route} is not a path of the API; use one of ${[...ROUTE_TEMPLATES].join(', ')}`,
      )
    }
    if (!spec.latency_ms && !spec.error && !spec.drop) {
      throw new ServiceError('InvalidInput', 'a fault needs latency_ms, error or drop')
    }
    if (spec.error && spec.drop) throw new ServiceError('InvalidInput', 'error and drop exclude each other; give one')
    const fault: Fault = { id: String(this.nextId++), ...structuredClone(spec) }
    if (fault.method !== undefined) fault.method = fault.method.toUpperCase()
    this.faults.push(fault)
    return structuredClone(fault)
  }

  list(): Fault[] {
    return structuredClone(this.faults)
  }

  /** False when no fault has that id. */
  remove(id: string): boolean {
    const before = this.faults.length
    this.faults = this.faults.filter((f) => f.id !== id)
    return this.faults.length < before
  }

  clear(): void {
    this.faults = []
  }

  /** The oldest fault matching the call that fires, counted down; undefined when none. */
  match(call: { method: string; route: string; site_name?: string }): ApiFault | undefined {
    const method = call.method.toUpperCase()
    for (const fault of this.faults) {
      if (fault.method !== undefined && fault.method !== method && !(fault.method === 'GET' && method === 'HEAD'))
        continue
      if (fault.route !== undefined && fault.route !== call.route) continue
      if (fault.site_name !== undefined && fault.site_name !== call.site_name) continue
      if (fault.probability !== undefined && this.random() >= fault.probability) continue
      if (fault.times !== undefined && --fault.times <= 0) this.remove(fault.id)
      const { latency_ms, error, drop } = fault
      return { ...(latency_ms ? { latency_ms } : {}), ...(error ? { error } : {}), ...(drop ? { drop } : {}) }
    }
    return undefined
  }
}
