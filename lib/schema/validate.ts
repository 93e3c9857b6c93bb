/**
 * Request validation. Every JSON Schema given to {@link compile} has its ajv
 * validator precompiled into validators.generated.ts (`npm run schemas`,
 * ajv standalone code): nothing is compiled, and ajv itself is not loaded, at
 * run time, and the generated code loads with the first validation
 * (validators-load.ts), which keeps start-up fast. A failure becomes a ServiceError
 * InvalidInput whose message names the field and the rule it broke.
 */
import type { ErrorObject, ValidateFunction } from 'ajv'
import { invalidInput } from '../errors.js'
import { loadValidators } from './validators-load.js'

/** A validator: returns the value typed as T, or throws InvalidInput. */
export type Validator<T> = (value: unknown) => T

/** Every schema given to {@link compile}, in order: what scripts/schemas.ts precompiles. */
export const compiledSchemas: object[] = []

/**
 * The name of a schema's precompiled validator: `v_` and the FNV-1a hash of
 * its JSON text, so equal schemas share one validator.
 */
export function validatorName(schema: object): string {
  const text = JSON.stringify(schema)
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return `v_${(hash >>> 0).toString(16).padStart(8, '0')}`
}

let generated: Record<string, unknown> | undefined

/** The precompiled validator of `schema`; throws when validators.generated.ts predates the schema. */
function precompiled(schema: object): ValidateFunction {
  generated ??= loadValidators()
  const check = generated[validatorName(schema)]
  if (typeof check !== 'function') {
    throw new Error(
      `no precompiled validator for the schema ${JSON.stringify(schema).slice(0, 120)}: run npm run schemas`,
    )
  }
  return check as ValidateFunction
}

/**
 * The validator of a JSON Schema (its precompiled ajv code, looked up on
 * first use). `label` names the whole value in messages (e.g. "body", "query").
 * Call it at a module's top level: scripts/schemas.ts precompiles the schemas
 * that importing lib/ gives to it.
 */
export function compile<T>(schema: object, label = 'body'): Validator<T> {
  compiledSchemas.push(schema)
  let check: ValidateFunction | undefined
  return (value: unknown): T => {
    check ??= precompiled(schema)
    if (check(value)) return value as T
    throw invalidInput(describe(check.errors?.[0], label))
  }
}
/** The JSON-pointer-ish path `a.b[0].c` of an error, or the label for the root. */
function fieldOf(error: ErrorObject, label: string): string {
  if (error.instancePath === '') return label
  return error.instancePath
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path || label}[${part}]` : path ? `${path}.${part}` : part), '')
}

function join(parent: string, child: string, label: string): string {
  return parent === label ? child : `${parent}.${child}`
}

/** Turns ajv's first error into one sentence a caller can act on. */
function describe(error: ErrorObject | undefined, label: string): string {
  if (!error) return `${label} is invalid`
  const field = fieldOf(error, label)
  const params = error.params as Record<string, unknown>
  const description = (error.parentSchema as { description?: string } | undefined)?.description
  switch (error.keyword) {
    case 'required':
      return `${join(field, String(params.missingProperty), label)} is required`
    case 'additionalProperties':
      return label === 'query' && field === label
        ? `unknown query parameter ${String(params.additionalProperty)}`
        : `unknown field ${join(field, String(params.additionalProperty), label)}`
    case 'type':
      return `${field} must be ${article(String(params.type))}`
    case 'maxLength':
      return `${field} must be at most ${String(params.limit)} characters`
    case 'minLength':
      return Number(params.limit) === 1
        ? `${field} must not be empty`
        : `${field} must be at least ${String(params.limit)} characters`
    case 'maxItems':
      return `${field} must have at most ${String(params.limit)} items`
    case 'minItems':
      return `${field} must have at least ${String(params.limit)} item${Number(params.limit) === 1 ? '' : 's'}`
    case 'minProperties':
      return `${field} must have at least one field`
    case 'enum':
      return `${field} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`
    case 'const':
      return `${field} must be ${JSON.stringify(params.allowedValue)}`
    case 'pattern':
    case 'format':
      return `${field} must be ${description ?? `a valid ${String(params.format ?? 'value')}`}`
    case 'not':
    case 'oneOf':
    case 'anyOf':
      return `${field} ${description ?? 'is invalid'}`
    default:
      return `${field} ${error.message ?? 'is invalid'}`
  }
}

function article(type: string): string {
  const kind = type.replace(/,/g, ' or ')
  return /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`
}

/** The part of ajv's class used by {@link allProblems}. */
type AjvClass = new (
  options: object,
) => { addFormat(name: string, format: unknown): unknown; compile(schema: object): ValidateFunction }

/** Ajv validators that report every error, compiled on first use (the precompiled ones stop at the first). */
const everyError = new WeakMap<object, ValidateFunction>()

/**
 * Every rule `value` breaks, as the sentences {@link compile}'s validators
 * use. For reports where one round trip should name all the problems (a
 * seed body): ajv is loaded and the schema compiled at run time, on this
 * failure path only.
 */
export async function allProblems(schema: object, value: unknown, label = 'body'): Promise<string[]> {
  let check = everyError.get(schema)
  if (check === undefined) {
    const [module, { FORMATS }] = await Promise.all([import('ajv'), import('./formats.js')])
    // The class is the default export in ESM, and module.exports.default through CommonJS interop.
    const exported = (module as unknown as { default: AjvClass & { default?: AjvClass } }).default
    const Ajv = exported.default ?? exported
    const ajv = new Ajv({ allErrors: true, strict: false, verbose: true, allowUnionTypes: true })
    for (const [name, format] of Object.entries(FORMATS)) ajv.addFormat(name, format)
    const compiled = ajv.compile(schema)
    everyError.set(schema, compiled)
    check = compiled
  }
  if (check(value)) return []
  // anyOf/oneOf report their branches' errors too; the sentence of the union itself is enough.
  return [...new Set((check.errors ?? []).map((error) => describe(error, label)))]
}
