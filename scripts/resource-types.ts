/**
 * Renders types/resources.generated.ts: the public resource types, each the
 * TypeScript of one JSON Schema of lib/schema/, with the schema's and every
 * property's `description` as TSDoc. The schemas are where each shape is
 * written; `npm run schemas` (scripts/schemas.ts) writes the file and
 * test/packaging/resource-types.ts fails when it is stale. lib/schema/responses.ts
 * checks each generated type against json-schema-to-ts's reading of its
 * schema, so this translation cannot drift from the one the engine uses.
 *
 * A small generator of our own rather than json-schema-to-typescript: these
 * schemas use a handful of keywords, the types must keep their public names
 * (and AnalyticsRow its type parameter), and a sub-schema is named by being
 * the same object as a listed schema, as in the OpenAPI document. A keyword
 * it does not know is an error, never a silently wider type.
 */
import { langSchema } from '../lib/schema/accounts.js'
import * as R from '../lib/schema/responses.js'
import { addressSchema, businessInfoSchema, reservationInfoSchema, ttlSchema } from '../lib/schema/sites.js'
import { publishDataSchema, siteEventSchema, siteEventTypeSchema } from '../lib/schema/events.js'

/** A public type: its name, its schema and, for a generic type, which property each type parameter types. */
export interface PublicType {
  name: string
  schema: object
  typeParameters?: Record<string, string>
}

/** The public types, in the order the file declares them. Add an entry to publish a schema's type. */
export const PUBLIC_TYPES: readonly PublicType[] = [
  { name: 'AutoSyncCacheTtl', schema: ttlSchema },
  { name: 'CreationStatus', schema: R.creationStatusSchema },
  { name: 'Address', schema: addressSchema },
  { name: 'ReservationInfo', schema: reservationInfoSchema },
  { name: 'BusinessInfo', schema: businessInfoSchema },
  { name: 'Site', schema: R.siteSchema },
  { name: 'SiteSummary', schema: R.siteSummarySchema },
  { name: 'SiteNameRef', schema: R.siteNameRefSchema },
  { name: 'Lang', schema: langSchema },
  { name: 'Account', schema: R.accountSchema },
  { name: 'TrafficMetrics', schema: R.trafficMetricsSchema },
  { name: 'ActivityMetrics', schema: R.activityMetricsSchema },
  { name: 'SystemDimension', schema: R.systemDimensionSchema },
  { name: 'GeoDimension', schema: R.geoDimensionSchema },
  { name: 'AnalyticsRow', schema: R.analyticsRowSchema, typeParameters: { M: 'data' } },
  { name: 'MostTrafficRow', schema: R.mostTrafficRowSchema },
  { name: 'SiteEventType', schema: siteEventTypeSchema },
  { name: 'PublishData', schema: publishDataSchema },
  { name: 'SiteEvent', schema: siteEventSchema },
]

interface Schema {
  type?: string | string[]
  enum?: unknown[]
  const?: unknown
  oneOf?: Schema[]
  anyOf?: Schema[]
  items?: Schema
  properties?: Record<string, Schema>
  required?: string[]
  additionalProperties?: boolean
  description?: string
}

/** The keywords the generator reads: those that shape the type, then those that only constrain or document a value. */
const KNOWN = new Set([
  ...'type enum const oneOf anyOf items properties required additionalProperties'.split(' '),
  ...'description default minLength maxLength pattern format minimum maximum minItems maxItems'.split(' '),
])
const SCALARS: Record<string, string> = {
  string: 'string',
  integer: 'number',
  number: 'number',
  boolean: 'boolean',
  null: 'null',
}

/** The names of the public types, by schema object. */
type Names = ReadonlyMap<object, string>

/**
 * A description as a TSDoc sentence: the schemas word a value's rule as a
 * fragment ("a numeric string"), which messages and docs/api.md quote.
 */
export function sentenceOf(description: string): string {
  return `${description[0]!.toUpperCase()}${description.slice(1)}${/[.!?]$/.test(description) ? '' : '.'}`
}

/** The TSDoc of a description, or nothing for none. */
function doc(description: string | undefined, indent = ''): string[] {
  return description ? [`${indent}/** ${sentenceOf(description).replace(/\*\//g, '*\\/')} */`] : []
}

/** The TypeScript of a schema: a public type by its name, anything else spelled out. */
function typeOf(schema: Schema, names: Names, indent: string, where: string): string {
  return names.get(schema) ?? spelledOut(schema, names, indent, where)
}

function spelledOut(schema: Schema, names: Names, indent: string, where: string): string {
  const unknown = Object.keys(schema).filter((key) => !KNOWN.has(key))
  if (unknown.length > 0) throw new Error(`${where}: the type generator does not read ${unknown.join(', ')}`)
  const union = schema.oneOf ?? schema.anyOf
  if (union) return union.map((inner, i) => typeOf(inner, names, indent, `${where}[${i}]`)).join(' | ')
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' | ')
  if (schema.const !== undefined) return JSON.stringify(schema.const)
  const types = Array.isArray(schema.type) ? schema.type : [schema.type]
  return types
    .map((type) => {
      if (type === 'array') {
        if (!schema.items) throw new Error(`${where}: an array without items`)
        const item = typeOf(schema.items, names, indent, `${where}[]`)
        return item.includes(' | ') && !item.startsWith('{') ? `(${item})[]` : `${item}[]`
      }
      if (type === 'object') return `{\n${members(schema, names, `${indent}  `, where).join('\n')}\n${indent}}`
      const scalar = type === undefined ? undefined : SCALARS[type]
      if (scalar === undefined) throw new Error(`${where}: the type generator does not read type ${String(type)}`)
      return scalar
    })
    .join(' | ')
}

/**
 * The members of a closed object schema, each with its description as
 * TSDoc; `parameters` maps a key to the type parameter that types it.
 */
function members(
  schema: Schema,
  names: Names,
  indent: string,
  where: string,
  parameters: ReadonlyMap<string, string> = new Map(),
): string[] {
  if (schema.additionalProperties !== false) throw new Error(`${where}: an object must refuse other keys`)
  return Object.entries(schema.properties ?? {}).flatMap(([key, property]) => {
    const optional = schema.required?.includes(key) ? '' : '?'
    const type = parameters.get(key) ?? typeOf(property, names, indent, `${where}.${key}`)
    const name = /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key)
    return [...doc(property.description, indent), `${indent}${name}${optional}: ${type}`]
  })
}

/** The declaration of one public type, its schema's description as its TSDoc. */
function declaration({ name, schema, typeParameters = {} }: PublicType, names: Names): string[] {
  const s = schema as Schema
  if (s.type !== 'object') return [...doc(s.description), `export type ${name} = ${spelledOut(s, names, '', name)}`]
  const parameters = Object.entries(typeParameters).map(([parameter, key]) => {
    const property = s.properties?.[key]
    if (!property) throw new Error(`${name}: type parameter ${parameter} names no property ${key}`)
    return `${parameter} = ${typeOf(property, names, '', `${name}.${key}`)}`
  })
  const keyParameters = new Map(Object.entries(typeParameters).map(([parameter, key]) => [key, parameter]))
  return [
    ...doc(s.description),
    `export interface ${name}${parameters.length > 0 ? `<${parameters.join(', ')}>` : ''} {`,
    ...members(s, names, '  ', name, keyParameters),
    '}',
  ]
}

/** The text of types/resources.generated.ts (of these types), before formatting. */
export function renderResourceTypes(types: readonly PublicType[] = PUBLIC_TYPES): string {
  const names = new Map(types.map(({ name, schema }) => [schema, name]))
  return [
    '// Generated by scripts/resource-types.ts (npm run schemas) from the JSON Schemas of lib/schema/: do not edit.',
    "// The TSDoc of each type and field is its schema's description.",
    '',
    ...types.flatMap((type) => [...declaration(type, names), '']),
  ].join('\n')
}
