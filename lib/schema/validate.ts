/**
 * One ajv instance for every request schema. Schemas are compiled once, at
 * import time; a failure becomes a ServiceError InvalidInput whose message
 * names the field and the rule it broke.
 */
import { Ajv, type ErrorObject } from 'ajv'
import { invalidInput } from '../errors.js'
import { isEmail, isFqdn, isHttpUrl } from './formats.js'

const ajv = new Ajv({
  allErrors: false,
  strict: true,
  // Coercion and defaults would silently change what the caller sent.
  coerceTypes: false,
  useDefaults: false,
  // Gives each error its parentSchema, whose `description` words the rule.
  verbose: true,
  allowUnionTypes: true,
})
ajv.addFormat('http-url', { type: 'string', validate: isHttpUrl })
ajv.addFormat('fqdn', { type: 'string', validate: isFqdn })
ajv.addFormat('email', { type: 'string', validate: isEmail })

/** A validator: returns the value typed as T, or throws InvalidInput. */
export type Validator<T> = (value: unknown) => T

/**
 * Compiles a JSON Schema once. `label` names the whole value in messages
 * (e.g. "body", "query").
 */
export function compile<T>(schema: object, label = 'body'): Validator<T> {
  const check = ajv.compile(schema)
  return (value: unknown): T => {
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
