/**
 * The dashboard's pages, as functions from data to escaped HTML. They hold
 * no rules: what to show was decided by the engine (lib/engine/rules/dashboard.ts).
 */
import type { DashboardSite, Period, SiteReport, TopRow } from '../engine/rules/dashboard.js'
import { PERIODS } from '../engine/rules/dashboard.js'
import { SERIES, count, trafficChart } from './chart.js'
import { type HtmlValue, type SafeHtml, html } from './html.js'
import { STYLESHEET_VERSION } from './style.js'
import { OTHER } from '../store/contract/index.js'

/** What every page knows about where it is served. */
export interface PageContext {
  /** The mount path of the dashboard ('' at the root). */
  base: string
  /** The product name in the header and titles. */
  title: string
  /** The signed-in account, when there is one: the header then offers sign-out. */
  account?: string
}

/** A link to a site's page. */
export function sitePath(base: string, site_name: string, days?: Period): string {
  return `${base}/sites/${encodeURIComponent(site_name)}${days === undefined ? '' : `?days=${days}`}`
}

/** Only http(s) URLs become links; anything else is shown as text. */
function externalLink(url: string): SafeHtml {
  return /^https?:\/\//i.test(url) ? html`<a href="${url}" rel="noopener noreferrer nofollow">${url}</a>` : html`${url}`
}

function layout(page: PageContext, heading: string, body: HtmlValue): SafeHtml {
  const signOut = page.account
    ? html`<span class="who">Signed in as <strong>${page.account}</strong></span><form method="post" action="${page.base}/logout"><button type="submit">Sign out</button></form>`
    : null
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${heading} · ${page.title}</title>
<link rel="stylesheet" href="${page.base}/assets/dashboard.css?v=${STYLESHEET_VERSION}">
</head>
<body>
<header class="bar"><div class="wrap bar-inner"><a class="brand" href="${page.base}/">${page.title}</a>${signOut}</div></header>
<main class="wrap">
${body}
</main>
</body>
</html>
`
}

function publishedBadge(site: DashboardSite): SafeHtml {
  return site.published
    ? html`<span class="badge on">Published</span>`
    : html`<span class="badge off">Not published</span>`
}

function lastPublished(site: DashboardSite): SafeHtml | null {
  return site.last_published_date
    ? html`<span>Last published ${site.last_published_date.replace('T', ' ')} UTC</span>`
    : null
}

/** `{dashboard}/`: the account's granted sites. */
export function sitesPage(page: PageContext, sites: readonly DashboardSite[]): SafeHtml {
  const list =
    sites.length === 0
      ? html`<p class="card empty">No sites have been shared with you yet.</p>`
      : html`<ul class="sites">${sites.map(
          (site) => html`<li class="card site" data-site="${site.site_name}">
<h2><a href="${sitePath(page.base, site.site_name)}">${site.business_name ?? site.site_name}</a></h2>
<p class="name">${site.site_name}</p>
<p class="url">${externalLink(site.original_site_url)}</p>
<p class="meta">${publishedBadge(site)}${lastPublished(site)}</p>
<a class="open" href="${sitePath(page.base, site.site_name)}">View statistics →</a>
</li>`,
        )}</ul>`
  return layout(
    page,
    'Your sites',
    html`<h1>Your sites</h1><p class="sub">${sites.length === 1 ? '1 site' : `${sites.length} sites`} shared with you</p>${list}`,
  )
}

/** Why a top list may show "(other)": the cap on distinct values per day (docs/analytics.md). */
const OTHER_NOTE = 'values past the daily limit of distinct values'

function topTable(caption: string, column: string, rows: readonly TopRow[], id: string): SafeHtml {
  const body =
    rows.length === 0
      ? html`<tr><td colspan="2" class="empty">No visits in this period</td></tr>`
      : rows.map((row) =>
          row.name === OTHER
            ? html`<tr class="other"><td title="${OTHER_NOTE}">${OTHER} <small>${OTHER_NOTE}</small></td><td>${count(row.visits)}</td></tr>`
            : html`<tr><td>${row.name}</td><td>${count(row.visits)}</td></tr>`,
        )
  return html`<div class="card"><table id="${id}"><caption>${caption}</caption><thead><tr><th scope="col">${column}</th><th scope="col">Visits</th></tr></thead><tbody>${body}</tbody></table></div>`
}

/** `{dashboard}/sites/{site_name}`: one site's analytics for the period. */
export function sitePage(page: PageContext, report: SiteReport): SafeHtml {
  const { site, totals, activities, daily } = report
  const name = site.business_name ?? site.site_name
  const periods = PERIODS.map(
    (p) =>
      html`<a href="${sitePath(page.base, site.site_name, p)}"${p === report.days ? html` aria-current="page"` : null}>${p} days</a>`,
  )
  const busiest = daily.reduce((best, d) => (d.visits > best.visits ? d : best), daily[0]!)
  const label = `Line chart of daily page views, visits and unique visitors from ${report.from} to ${report.to}: ${count(
    totals.VISITS,
  )} visits in total${busiest.visits > 0 ? `, busiest day ${busiest.day} with ${count(busiest.visits)} visits` : ''}. The same numbers are in the table "Day by day" below.`
  const title = `Daily traffic of ${name}, last ${report.days} days`
  const stat = (css: string, text: string, value: number, id: string) =>
    html`<li class="stat ${css}" id="${id}"><span class="label">${text}</span><span class="value">${count(value)}</span></li>`
  // The day-by-day table scrolls inside its box: a tab stop lets a keyboard scroll it, and its caption names it.
  const rows = [...daily]
    .reverse()
    .map(
      (d) =>
        html`<tr data-day="${d.day}"><th scope="row">${d.day}</th><td>${count(d.visits)}</td><td>${count(d.unique_visitors)}</td><td>${count(d.page_views)}</td></tr>`,
    )
  const body = html`<a class="back" href="${page.base}/">← All sites</a>
<h1>${name}</h1>
<p class="sub">${site.site_name} · ${externalLink(site.original_site_url)} · ${publishedBadge(site)}</p>
<nav class="periods" aria-label="Period">${periods}</nav>
<section aria-labelledby="totals-h"><h2 id="totals-h">Last ${report.days} days <span class="sub">(${report.from} to ${report.to}, UTC)</span></h2>
<ul class="stats">${stat('visits', 'Visits', totals.VISITS, 'total-visits')}${stat('unique', 'Unique visitors', totals.UNIQUE_VISITORS, 'total-unique')}${stat('views', 'Page views', totals.PAGE_VIEWS, 'total-views')}</ul></section>
<section class="card" aria-labelledby="chart-h"><h2 id="chart-h">Daily traffic</h2>
<ul class="legend">${SERIES.map((s) => html`<li class="${s.css}"><span>${s.label}</span></li>`)}</ul>
${trafficChart(daily, label, title)}</section>
<section aria-labelledby="acts-h"><h2 id="acts-h">Visitor actions</h2>
<ul class="acts">${stat('', 'Calls', activities.CLICK_TO_CALLS, 'act-calls')}${stat('', 'Map clicks', activities.CLICK_TO_MAPS, 'act-maps')}${stat('', 'E-mail clicks', activities.CLICK_TO_EMAILS, 'act-emails')}${stat('', 'Form submits', activities.FORM_SUBMITS, 'act-forms')}</ul></section>
<section class="cols">${topTable('Top countries', 'Country', report.countries, 'top-countries')}${topTable('Top browsers', 'Browser', report.browsers, 'top-browsers')}</section>
<section class="card"><div class="daily" role="region" tabindex="0" aria-labelledby="daily-caption"><table id="daily"><caption id="daily-caption">Day by day</caption><thead><tr><th scope="col">Day</th><th scope="col">Visits</th><th scope="col">Unique visitors</th><th scope="col">Page views</th></tr></thead><tbody>${rows}</tbody></table></div></section>`
  return layout(page, name, body)
}

/** Any error: a status, a heading and a sentence, with a way back when signed in. */
export function errorPage(page: PageContext, status: number, heading: string, message: string): SafeHtml {
  const back = page.account ? html`<p><a href="${page.base}/">Back to your sites</a></p>` : null
  return layout(
    page,
    heading,
    html`<div class="card error"><p class="code">Error ${status}</p><h1>${heading}</h1><p>${message}</p>${back}</div>`,
  )
}

/** After sign-out. */
export function signedOutPage(page: PageContext): SafeHtml {
  return layout(
    page,
    'Signed out',
    html`<div class="card error"><h1>You have signed out</h1><p>To come back, open a new sign-in link from the service that gave you access.</p></div>`,
  )
}
