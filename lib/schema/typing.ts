/**
 * The types the schemas give: one definition of how a schema becomes the type
 * of what it accepts, shared by schema/, schema/duda/ and the operation table.
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts'

/** Exact type equality, not mutual assignability: optional and readonly modifiers count. */
export type Same<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false

/** What a schema accepts. Defaults are documented, not applied by the validator: the engine reads an absent field as its default. */
export type InputOf<S extends JSONSchema> = FromSchema<S, { keepDefaultedPropertiesOptional: true }>

/** The same object type, mapped: editors then show it by the alias's name instead of its expansion. */
export type Named<T> = { [K in keyof T]: T[K] }

/** What a schema accepts, as editors should show it: by the name of the alias it is given. */
export type NamedInput<S extends JSONSchema> = Named<InputOf<S>>
