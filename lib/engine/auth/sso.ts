/**
 * Single sign-on for sub-user accounts: a partner asks for a link, the
 * sub-account's browser redeems its token once for a dashboard session.
 *
 * Secrets (tokens, session ids) are 256 random bits in base64url. The store
 * only ever sees their SHA-256, and no error message repeats one, so neither
 * a store dump, a log line nor an error page hands out a usable secret.
 */
import { createHash, randomBytes } from 'node:crypto'
import { ServiceError, invalidInput, notExist } from '../../errors.js'
import { type SsoLink, type SsoLinkQuery, isDashboardUrl, validateSsoLinkQuery } from '../../schema/sso.js'
import type { AccountRecord, SsoGrant, SsoRecord, SsoTarget } from '../../store/contract/index.js'
import { requirePartner } from '../rules/accounts.js'
import type { CallContext, EngineContext } from '../context.js'
import { ownSite } from '../rules/site-ownership.js'

/** A sign-in token lives 120 s on the engine clock. */
export const TOKEN_TTL_MS = 120_000
/** A dashboard session lives 12 h on the engine clock. */
export const SESSION_TTL_MS = 12 * 3_600_000
/** What a secret looks like: 32 random bytes in base64url, no padding. */
const SECRET = /^[A-Za-z0-9_-]{43}$/

function newSecret(): string {
  return randomBytes(32).toString('base64url')
}

/** The only form in which a secret reaches the store. */
function digestOf(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}

/**
 * The account's incarnation: its random id, or for an account stored without
 * one its creation time (then a re-creation within the same millisecond
 * would match; every account the engine creates has an id).
 */
export function incarnationOf(account: AccountRecord): string {
  return account.incarnation ?? `created:${account.created_at}`
}

/** The caller's sub-account, or ResourceNotExist. */
async function ownAccount(ctx: CallContext, account_name: string): Promise<AccountRecord> {
  const account = typeof account_name === 'string' ? await ctx.store.getAccount(account_name) : undefined
  if (!account || account.owner !== ctx.caller.user) throw notExist(`account ${String(account_name)} does not exist`)
  return account
}

/** `dashboardUrl` without a trailing slash, checked to be an absolute http(s) URL or a path. */
function dashboardBase(dashboardUrl: string): string {
  if (isDashboardUrl(dashboardUrl)) return dashboardUrl.replace(/\/+$/, '')
  throw invalidInput('dashboardUrl must be an absolute http(s) URL or a path starting with "/"')
}

/**
 * Get SSO Link (`GET /accounts/sso/{account_name}/link`): a single-use link
 * that signs the caller's sub-account into its dashboard (DASHBOARD) or onto
 * one granted site's statistics (STATS, needs site_name). `dashboardUrl` is
 * where the dashboard is served: an absolute URL or a path (default
 * `/dashboard`).
 */
export async function ssoLink(
  ctx: CallContext,
  account_name: string,
  query: SsoLinkQuery = {},
  dashboardUrl = '/dashboard',
): Promise<SsoLink> {
  requirePartner(ctx)
  const base = dashboardBase(dashboardUrl)
  const q = validateSsoLinkQuery(query)
  // Duda's other targets open one site (its editor, overview...): here that is the site's page, as STATS.
  const target: SsoTarget = (q.target ?? 'DASHBOARD') === 'DASHBOARD' ? 'DASHBOARD' : 'STATS'
  if (target === 'STATS' && q.site_name === undefined)
    throw invalidInput(`site_name is required when target is ${q.target as string}`)
  const account = await ownAccount(ctx, account_name)
  const grant: SsoGrant = {
    account_name: account.account_name,
    owner: account.owner,
    incarnation: incarnationOf(account),
    target,
  }
  if (q.site_name !== undefined) {
    const site = await ownSite(ctx, q.site_name)
    const granted = (await ctx.store.listGrants(ctx.caller.user, account.account_name)) ?? []
    if (!granted.includes(site.site_name)) {
      throw invalidInput(`site ${site.site_name} is not granted to account ${account.account_name}`)
    }
    grant.site_name = site.site_name
  }
  const token = newSecret()
  const now = ctx.now().getTime()
  await ctx.store.issueSsoToken(digestOf(token), { ...grant, expires_at: now + TOKEN_TTL_MS }, now)
  return { url: `${base}/sso?token=${token}` }
}

/** A welcome or reset-password link lives 7 days on the engine clock. */
export const ACCOUNT_LINK_TTL_MS = 7 * 24 * 3_600_000

/**
 * The welcome and reset-password links of today's Duda API. Sub-accounts
 * have no passwords here, so both are a single-use sign-in link to the
 * account's dashboard, kept like an SSO token but valid for 7 days.
 */
export async function accountLink(
  ctx: CallContext,
  account_name: string,
  dashboardUrl = '/dashboard',
): Promise<{ reset_url: string }> {
  requirePartner(ctx)
  const base = dashboardBase(dashboardUrl)
  const account = await ownAccount(ctx, account_name)
  const token = newSecret()
  const now = ctx.now().getTime()
  const grant: SsoGrant = {
    account_name: account.account_name,
    owner: account.owner,
    incarnation: incarnationOf(account),
    target: 'DASHBOARD',
  }
  await ctx.store.issueSsoToken(digestOf(token), { ...grant, expires_at: now + ACCOUNT_LINK_TTL_MS }, now)
  return { reset_url: `${base}/sso?token=${token}` }
}

/** Where a redeemed link lands, and the session it opened. */
export interface SsoLanding {
  /** The new session's id (the cookie value). */
  session: string
  target: SsoTarget
  site_name?: string
}

/** The sub-account a dashboard session acts for. */
export interface DashboardAccount {
  account_name: string
  /** The partner master account it belongs to. */
  owner: string
}

const refusedToken = (): ServiceError =>
  new ServiceError('Unauthorized', 'This sign-in link is not valid: it is unknown, has expired, or was already used.')

/** Redeems a sign-in token once for a 12-hour session. A bad, expired or used token: Unauthorized. */
export async function redeemSsoToken(ctx: EngineContext, token: unknown): Promise<SsoLanding> {
  if (typeof token !== 'string' || !SECRET.test(token)) throw refusedToken()
  const session = newSecret()
  const now = ctx.now().getTime()
  const grant = await ctx.store.redeemSsoToken(digestOf(token), now, digestOf(session), now + SESSION_TTL_MS)
  if (grant === undefined) throw refusedToken()
  const landing: SsoLanding = { session, target: grant.target }
  if (grant.site_name !== undefined) landing.site_name = grant.site_name
  return landing
}

/**
 * The account of a live session. No session, an expired one, or one whose
 * account was deleted (re-created or not) since: Unauthorized.
 */
export async function sessionAccount(ctx: EngineContext, session: unknown): Promise<DashboardAccount> {
  if (session === undefined)
    throw new ServiceError('Unauthorized', 'You are not signed in. Open the sign-in link you were given.')
  const record: SsoRecord | undefined =
    typeof session === 'string' && SECRET.test(session)
      ? await ctx.store.getSession(digestOf(session), ctx.now().getTime())
      : undefined
  if (record === undefined) {
    throw new ServiceError(
      'Unauthorized',
      'Your session has ended (it expired or you signed out). Open a new sign-in link.',
    )
  }
  const account = await ctx.store.getAccount(record.account_name)
  if (!account || account.owner !== record.owner || incarnationOf(account) !== record.incarnation) {
    throw new ServiceError('Unauthorized', 'The account of this session no longer exists.')
  }
  return { account_name: record.account_name, owner: record.owner }
}

/** Ends a session (logout). Ending an unknown or malformed one does nothing. */
export async function endSession(ctx: EngineContext, session: unknown): Promise<void> {
  if (typeof session === 'string' && SECRET.test(session)) await ctx.store.deleteSession(digestOf(session))
}
