/**
 * JSON Schemas of the Accounts endpoints (docs/api.md, Accounts).
 */
import type { FromSchema } from 'json-schema-to-ts'
import type { Named } from './typing.js'
import { compile } from './validate.js'
import { closedObject, patchObject } from './closed-object.js'

export const accountNameSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 45,
  pattern: '^[A-Za-z0-9@._+-]+$',
  description: '1 to 45 letters, digits or "@ . _ + -"',
} as const

/** First or last name of an account. */
export const personNameSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 45,
  pattern: '^[A-Za-z]+$',
  description: 'ASCII letters only',
} as const

/** An account's e-mail address. */
export const emailSchema = {
  type: 'string',
  maxLength: 150,
  format: 'email',
  description: 'a valid e-mail address',
} as const

/** The public type Lang. */
export const langSchema = {
  type: 'string',
  enum: ['en', 'es', 'ja'],
  description: 'the language of the account',
} as const

/** The fields of an account that Retrieve Account shows (it never shows `lang`). */
export const accountFields = {
  account_name: accountNameSchema,
  first_name: personNameSchema,
  last_name: personNameSchema,
  email: emailSchema,
} as const

/**
 * The kind of account, as today's Duda API names it. Accepted and checked on
 * Create Account, not kept: every sub-account here is a customer (mobisite
 * has no staff accounts), and Retrieve Account answers the spec's fields.
 */
export const accountTypeSchema = {
  type: 'string',
  enum: ['CUSTOMER', 'STAFF'],
  description: 'the kind of account (accepted, not kept: every sub-account is a customer)',
} as const

export const createAccountSchema = closedObject(
  { ...accountFields, lang: langSchema, account_type: accountTypeSchema },
  ['account_name'],
)
/** The body of Create Account. */
export type CreateAccountBody = Named<FromSchema<typeof createAccountSchema>>
export const validateCreateAccount = compile<CreateAccountBody>(createAccountSchema)

export const updateAccountSchema = patchObject({
  first_name: personNameSchema,
  last_name: personNameSchema,
  email: emailSchema,
  lang: langSchema,
})
/** The body of Update Account: at least one field. */
export type UpdateAccountBody = Named<FromSchema<typeof updateAccountSchema>>
export const validateUpdateAccount = compile<UpdateAccountBody>(updateAccountSchema)
