/**
 * Sub-user accounts and access grants (the Accounts endpoints of docs/api.md). Only partner master
 * accounts may use them, and only on the sub-accounts and sites they own.
 */
import { randomUUID } from 'node:crypto'
import type { Account } from '../../../types/index.js'
import { ServiceError, alreadyExist, invalidInput, notExist } from '../../errors.js'
import {
  accountNameSchema,
  type CreateAccountBody,
  type UpdateAccountBody,
  validateCreateAccount,
  validateUpdateAccount,
} from '../../schema/accounts.js'
import { siteNameSchema } from '../../schema/sites.js'
import type { GrantOutcome } from '../../store/contract/index.js'
import type { CallContext } from '../context.js'

/** Sub-user operations (every Accounts call) are for partner master accounts only. */
export function requirePartner(ctx: CallContext): void {
  if (!ctx.caller.partner) {
    throw new ServiceError('AccessForbidden', 'sub-user accounts are available to partner master accounts only')
  }
}

const ACCOUNT_NAME = new RegExp(accountNameSchema.pattern)
const SITE_NAME = new RegExp(siteNameSchema.pattern)

/** Grant and revoke take names from the path; a malformed one is InvalidInput, not a lookup. */
export function checkNames(account_name: string, site_name: string): void {
  if (account_name.length > accountNameSchema.maxLength || !ACCOUNT_NAME.test(account_name)) {
    throw invalidInput(`account_name must be ${accountNameSchema.description}`)
  }
  if (
    site_name.length < siteNameSchema.minLength ||
    site_name.length > siteNameSchema.maxLength ||
    !SITE_NAME.test(site_name)
  ) {
    throw invalidInput(`site_name must be ${siteNameSchema.description}`)
  }
}

/** ResourceNotExist naming the account or site a grant could not find. */
export function grantError(outcome: GrantOutcome, account_name: string, site_name: string): void {
  if (outcome === 'no-account') throw notExist(`account ${account_name} does not exist`)
  if (outcome === 'no-site') throw notExist(`site ${site_name} does not exist`)
}

/** Create Account; names are unique across all master accounts. */
export async function createAccount(ctx: CallContext, body: CreateAccountBody): Promise<void> {
  requirePartner(ctx)
  const { account_type: _kind, ...input } = validateCreateAccount(body)
  const created = await ctx.store.createAccount({
    ...input,
    owner: ctx.caller.user,
    created_at: ctx.now().getTime(),
    incarnation: randomUUID(),
  })
  if (!created)
    throw alreadyExist(
      `account_name ${input.account_name} is already taken (names are unique regardless of letter case)`,
    )
}

/** Retrieve Account: never returns lang. */
export async function getAccount(ctx: CallContext, account_name: string): Promise<Account> {
  requirePartner(ctx)
  const record = await ctx.store.getAccount(account_name)
  if (!record || record.owner !== ctx.caller.user) throw notExist(`account ${account_name} does not exist`)
  const account: Account = { account_name: record.account_name }
  if (record.first_name !== undefined) account.first_name = record.first_name
  if (record.last_name !== undefined) account.last_name = record.last_name
  if (record.email !== undefined) account.email = record.email
  return account
}

/** Update Account; account_name cannot change. */
export async function updateAccount(ctx: CallContext, account_name: string, body: UpdateAccountBody): Promise<void> {
  requirePartner(ctx)
  const patch = validateUpdateAccount(body)
  if (!(await ctx.store.updateAccount(ctx.caller.user, account_name, patch))) {
    throw notExist(`account ${account_name} does not exist`)
  }
}

/** Delete Account, with its grants. */
export async function deleteAccount(ctx: CallContext, account_name: string): Promise<void> {
  requirePartner(ctx)
  if (!(await ctx.store.deleteAccount(ctx.caller.user, account_name))) {
    throw notExist(`account ${account_name} does not exist`)
  }
}

/** Grant access; granting twice succeeds. */
export async function grantAccess(ctx: CallContext, account_name: string, site_name: string): Promise<void> {
  requirePartner(ctx)
  checkNames(account_name, site_name)
  grantError(await ctx.store.grantAccess(ctx.caller.user, account_name, site_name), account_name, site_name)
}

/** Revoke access; revoking a grant that does not exist succeeds. */
export async function revokeAccess(ctx: CallContext, account_name: string, site_name: string): Promise<void> {
  requirePartner(ctx)
  checkNames(account_name, site_name)
  grantError(await ctx.store.revokeAccess(ctx.caller.user, account_name, site_name), account_name, site_name)
}

/** The sites an account has been granted: what its dashboard shows. */
export async function accountSites(ctx: CallContext, account_name: string): Promise<string[]> {
  requirePartner(ctx)
  const sites = await ctx.store.listGrants(ctx.caller.user, account_name)
  if (!sites) throw notExist(`account ${account_name} does not exist`)
  return sites
}
