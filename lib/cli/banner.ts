/**
 * The newcomer's banner of `mobisite`: plain text on stderr (stdout carries
 * only JSON log lines). A password is shown only when it was generated; one
 * given through MOBISITE_PASSWORD is never printed, and the curl lines then
 * read it from the shell as `$MOBISITE_PASSWORD`. When neither is the case
 * (the account already exists in a shared store), no curl line is printed:
 * it could not work; the banner says how to set a password instead.
 */

import { maskUrl } from '../testing/webhook-destination.js'

/** Quotes a value for a POSIX shell. */
export const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`

/** The site the printed SSO commands create and grant. */
export const SSO_SITE = 'my-first-site'

/** What the banner describes. */
export interface BannerFacts {
  url: string
  storeLabel: string
  user: string
  /** Set only when generated here: then it is printed. */
  generatedPassword?: string
  /** The account already existed in a shared store: its password is not known here. */
  shared: boolean
  demo?: { account: string; site: string; link: string }
  demoAccount: string
  admin?: { tokenFromEnv: boolean; seeded: string }
  state?: { file: string; loaded: boolean; interval: number }
  rateLimit?: number
  webhooks: readonly string[]
  metrics: boolean
}

/** The banner's lines. */
export function bannerLines(f: BannerFacts): string[] {
  const api = `${f.url}/api`
  const lines = [`mobisite API: ${api} (${f.storeLabel})`, `user:     ${f.user}`]
  // How the curl lines pass the credentials: literally only when we generated (and print) the
  // password; undefined when no password is known here, and then no curl line is printed.
  let credentials: string | undefined
  if (f.generatedPassword !== undefined) {
    lines.push(`password: ${f.generatedPassword} (generated)`)
    credentials = shellQuote(`${f.user}:${f.generatedPassword}`)
  } else if (f.shared) {
    lines.push(
      `password: not shown: ${f.user} already exists in the shared store, with the password printed when it was made.`,
      `          To set one, restart with MOBISITE_PASSWORD=<a password> (every instance sharing the store then uses it).`,
    )
  } else {
    lines.push('password: from MOBISITE_PASSWORD (not shown)')
    credentials = `${shellQuote(`${f.user}:`)}"$MOBISITE_PASSWORD"`
  }
  const body = JSON.stringify({ site_data: { original_site_url: 'https://www.example.com' } })
  if (credentials !== undefined)
    lines.push(
      `try:      curl -u ${credentials} -H 'content-type: application/json' -d ${shellQuote(body)} ${api}/sites/create`,
    )
  const ssoCurl = credentials && `curl -u ${credentials} ${api}/accounts/sso/${f.demoAccount}/link`
  if (f.demo !== undefined) {
    lines.push(`demo:     sub-account ${f.demo.account} with site ${f.demo.site} (granted) and 30 days of visits`)
    lines.push(`open:     ${f.demo.link}`)
    lines.push(`          (single use, valid 2 minutes${ssoCurl ? `; a fresh one: ${ssoCurl}` : ''})`)
  } else if (credentials !== undefined) {
    // Runnable as printed: a sub-account, a site granted to it, then its sign-in link (the last line of output).
    const json = `-H 'content-type: application/json'`
    const account = shellQuote(JSON.stringify({ account_name: f.demoAccount }))
    const site = shellQuote(
      JSON.stringify({ site_data: { site_name: SSO_SITE, original_site_url: 'https://www.example.com' } }),
    )
    lines.push(
      `sso:      curl -s -u ${credentials} ${json} -d ${account} ${api}/accounts/create && ` +
        `curl -s -u ${credentials} ${json} -d ${site} ${api}/sites/create && ` +
        `curl -s -u ${credentials} -X POST ${api}/accounts/grant-access/${f.demoAccount}/sites/${SSO_SITE} && ${ssoCurl}`,
    )
    lines.push(
      `          prints a link into a sub-account's dashboard at ${f.url}/dashboard with one granted site (or start with --demo for 30 days of visits)`,
    )
  }
  if (f.admin !== undefined) {
    lines.push(
      `admin:    ${f.url}/__admin${f.admin.tokenFromEnv ? ' (bearer token from MOBISITE_ADMIN_TOKEN)' : ''}${f.admin.seeded}`,
    )
  }
  if (f.state !== undefined) {
    lines.push(
      `state:    ${f.state.file} (${f.state.loaded ? 'loaded' : 'new'}; a change is in it within ${f.state.interval} s, and on shutdown)`,
    )
  }
  if (f.rateLimit !== undefined)
    lines.push(`limit:    ${f.rateLimit} calls per second per master account (429 past it)`)
  for (const url of f.webhooks) lines.push(`webhook:  ${maskUrl(url)} receives every site event`)
  lines.push(`health:   ${f.url}/healthz, ${f.url}/readyz${f.metrics ? `; metrics: ${f.url}/metrics` : ''}`)
  lines.push('logs:     JSON lines on stdout (--log-level); --quiet drops this banner')
  return lines
}
