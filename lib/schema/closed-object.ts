/**
 * The form of every object the API and the controls take or answer: these
 * properties, the required ones, and no other key. It builds exactly the
 * literal it stands for, `{ type: 'object', additionalProperties: false,
 * required?, properties }` in that key order, so the JSON (and with it the
 * precompiled validator named by its hash, and the OpenAPI document) is the
 * same, and FromSchema types it as it would the literal.
 */

type Properties = Readonly<Record<string, object>>

/** A closed object schema with no required property. */
export interface OpenObject<P extends Properties> {
  readonly type: 'object'
  readonly additionalProperties: false
  readonly properties: P
}

/** A closed object schema with required properties. */
export interface RequiredObject<P extends Properties, R extends readonly (keyof P & string)[]> {
  readonly type: 'object'
  readonly additionalProperties: false
  readonly required: R
  readonly properties: P
}

/** An object schema of these properties and no other key; `required` must name some of them. */
export function closedObject<const P extends Properties>(properties: P): OpenObject<P>
export function closedObject<const P extends Properties, const R extends readonly (keyof P & string)[]>(
  properties: P,
  required: R,
): RequiredObject<P, R>
export function closedObject(properties: Properties, required?: readonly string[]): object {
  return required === undefined
    ? { type: 'object', additionalProperties: false, properties }
    : { type: 'object', additionalProperties: false, required, properties }
}

/** A closed object schema that must hold at least one of its properties. */
export interface PatchObject<P extends Properties> {
  readonly type: 'object'
  readonly additionalProperties: false
  readonly minProperties: 1
  readonly properties: P
}

/** The body of an update: these properties, at least one of them, and no other key (the literal it stands for, key order included). */
export function patchObject<const P extends Properties>(properties: P): PatchObject<P> {
  return { type: 'object', additionalProperties: false, minProperties: 1, properties }
}
