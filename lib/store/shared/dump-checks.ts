/**
 * The checks every store makes before importing a {@link StateDump}, so that
 * they all refuse the same dumps with the same problems (and import all or
 * nothing). A store looks up the owners of the names the dump refers to, in
 * whatever way is cheap for it, and hands them in.
 */
import type { StateDump } from '../contract/index.js'
import { foldName } from './name-fold.js'

/** Owners of the sites and accounts already in the store, by name (absent: no such record). */
export interface ExistingOwners {
  sites: Map<string, string>
  accounts: Map<string, string>
  /** Folded name → the name in use, for the dump's names (names are unique regardless of case). */
  siteFolds?: Map<string, string>
  accountFolds?: Map<string, string>
}

/** Every site and account name a dump refers to, for the store to look up. */
export function referencedNames(dump: StateDump): { sites: string[]; accounts: string[] } {
  const sites = new Set<string>()
  const accounts = new Set<string>()
  for (const site of dump.sites) sites.add(site.site_name)
  for (const account of dump.accounts) accounts.add(account.account_name)
  for (const grant of dump.grants) {
    sites.add(grant.site_name)
    accounts.add(grant.account_name)
  }
  for (const day of dump.analytics) sites.add(day.site_name)
  return { sites: [...sites], accounts: [...accounts] }
}

/**
 * Every reason the dump cannot be imported (empty when it can), and the owner
 * of every site it records analytics or grants for.
 * `sketches`: whether this store can read visitor sketches.
 */
export function checkDump(
  dump: StateDump,
  existing: ExistingOwners,
  sketches: boolean,
): { problems: string[]; siteOwners: Map<string, string> } {
  const problems: string[] = []
  const siteOwners = new Map(existing.sites)
  const accountOwners = new Map(existing.accounts)
  const siteFolds = new Map(existing.siteFolds)
  const accountFolds = new Map(existing.accountFolds)
  const claim = (
    what: string,
    name: string,
    owner: string,
    owners: Map<string, string>,
    folds: Map<string, string>,
  ) => {
    const other = folds.get(foldName(name))
    if (owners.has(name)) problems.push(`${what} ${name} already exists`)
    else if (other !== undefined)
      problems.push(`${what} ${name} already exists as ${other} (names are unique regardless of case)`)
    else owners.set(name, owner)
    folds.set(foldName(name), name)
  }
  for (const site of dump.sites) claim('site', site.site_name, site.owner, siteOwners, siteFolds)
  for (const account of dump.accounts)
    claim('account', account.account_name, account.owner, accountOwners, accountFolds)
  for (const { account_name, site_name } of dump.grants) {
    const accountOwner = accountOwners.get(account_name)
    const siteOwner = siteOwners.get(site_name)
    if (accountOwner === undefined)
      problems.push(`grant of ${site_name} to ${account_name}: no account ${account_name}`)
    else if (siteOwner === undefined) problems.push(`grant of ${site_name} to ${account_name}: no site ${site_name}`)
    else if (siteOwner !== accountOwner)
      problems.push(`grant of ${site_name} to ${account_name}: they belong to different masters`)
  }
  const days = new Set<string>()
  for (const day of dump.analytics) {
    const where = `analytics of ${day.site_name} on ${day.day}`
    if (!siteOwners.has(day.site_name)) problems.push(`${where}: no site ${day.site_name}`)
    const key = JSON.stringify([day.site_name, day.day])
    if (days.has(key)) problems.push(`${where}: the day is given twice`)
    days.add(key)
    const cells = [day, ...day.system, ...day.geo]
    if (!sketches && cells.some((cell) => cell.visitors_sketch !== undefined && cell.visitors === undefined)) {
      problems.push(`${where}: visitor sketches come from another kind of store and cannot be imported here`)
    }
  }
  return { problems, siteOwners }
}
