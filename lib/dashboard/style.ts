/**
 * The dashboard's one stylesheet, served from the router itself so that the
 * Content-Security-Policy can forbid every inline style and every script.
 * Neutral on purpose: a partner embeds this dashboard under its own name.
 */
import { createHash } from 'node:crypto'

export const STYLESHEET = `
/* Text colours keep 4.5:1 (WCAG AA) on their backgrounds: --off on --off-soft is 5.4:1 for the badge's 12 px text.
   The chart's lines keep 3:1 on white (WCAG 1.4.11): the lightest, --unique, is 3.5:1. */
:root {
  --bg: #f6f7f9; --card: #ffffff; --text: #1c2430; --muted: #5b6675; --line: #e3e7ec;
  --accent: #2f5bd3; --accent-soft: #e8eefc; --ok: #1f7a4d; --ok-soft: #e3f4eb; --off: #596273; --off-soft: #eef0f3;
  --views: #6d5bd0; --visits: #0f8b8d; --unique: #c8761f;
  --radius: 10px;
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--text);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
a { color: var(--accent); text-decoration: none; }
a:hover, a:focus-visible { text-decoration: underline; }
/* A link inside a sentence is told apart by more than its colour (WCAG 1.4.1): the site's address beside muted text. */
p a { text-decoration: underline; text-underline-offset: 2px; }
p a:hover { text-decoration-thickness: 2px; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.wrap { max-width: 1040px; margin: 0 auto; padding: 0 16px; }
.bar { background: var(--card); border-bottom: 1px solid var(--line); }
.bar-inner { display: flex; align-items: center; gap: 8px 12px; min-height: 56px; flex-wrap: wrap; padding-top: 8px; padding-bottom: 8px; }
.brand { font-weight: 650; color: var(--text); font-size: 17px; }
.who { color: var(--muted); font-size: 14px; margin-left: auto; overflow-wrap: anywhere; }
.bar form { margin: 0; }
button, .button {
  font: inherit; font-size: 14px; border: 1px solid var(--line); background: var(--card); color: var(--text);
  border-radius: 8px; padding: 6px 12px; cursor: pointer;
}
button:hover { background: var(--bg); }
main.wrap { padding-top: 24px; padding-bottom: 48px; }
h1 { font-size: 24px; line-height: 1.25; margin: 0 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 17px; margin: 0 0 12px; }
.sub { color: var(--muted); margin: 0 0 20px; font-size: 14px; overflow-wrap: anywhere; }
.back { display: inline-block; margin-bottom: 12px; font-size: 14px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: var(--radius); padding: 16px; }
.sites { list-style: none; padding: 0; margin: 0; display: grid; gap: 12px; grid-template-columns: repeat(auto-fill, minmax(280px, 1fr)); }
.site h2 { margin: 0 0 2px; font-size: 17px; overflow-wrap: anywhere; }
.site .name { color: var(--muted); font-size: 13px; margin: 0 0 10px; overflow-wrap: anywhere; }
.site .url { font-size: 14px; overflow-wrap: anywhere; margin: 0 0 10px; }
.site .meta { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; font-size: 13px; color: var(--muted); margin: 0 0 12px; }
.badge { display: inline-block; border-radius: 999px; padding: 1px 10px; font-size: 12px; font-weight: 600; }
.badge.on { background: var(--ok-soft); color: var(--ok); }
.badge.off { background: var(--off-soft); color: var(--off); }
.open { font-weight: 600; font-size: 14px; }
.periods { display: inline-flex; border: 1px solid var(--line); border-radius: 8px; overflow: hidden; margin: 0 0 20px; background: var(--card); }
.periods a { padding: 6px 14px; color: var(--text); font-size: 14px; border-left: 1px solid var(--line); }
.periods a:first-child { border-left: 0; }
.periods a[aria-current="page"] { background: var(--accent); color: #fff; font-weight: 600; }
/* Drawn inside the link: the group's overflow: hidden (for its rounded corners) clipped the focus ring. */
.periods a:focus-visible { outline-offset: -4px; }
.periods a[aria-current="page"]:focus-visible { outline-color: #fff; }
.stats { display: grid; gap: 12px; grid-template-columns: repeat(3, minmax(0, 1fr)); margin: 0 0 16px; padding: 0; list-style: none; }
.stat { background: var(--card); border: 1px solid var(--line); border-radius: var(--radius); padding: 12px 14px; border-top: 4px solid var(--line); }
.stat .label { color: var(--muted); font-size: 13px; display: block; }
.stat .value { font-size: 26px; font-weight: 650; font-variant-numeric: tabular-nums; }
.stat.visits { border-top-color: var(--visits); }
.stat.unique { border-top-color: var(--unique); }
.stat.views { border-top-color: var(--views); }
.acts { display: grid; gap: 12px; grid-template-columns: repeat(4, minmax(0, 1fr)); margin: 0; padding: 0; list-style: none; }
.acts .stat .value { font-size: 20px; }
section { margin: 0 0 16px; }
.legend { display: flex; gap: 16px; flex-wrap: wrap; list-style: none; padding: 0; margin: 0 0 8px; font-size: 13px; color: var(--muted); }
.legend li::before { content: ""; display: inline-block; width: 12px; height: 4px; border-radius: 2px; margin-right: 6px; vertical-align: middle; background: currentColor; }
.legend .visits { color: var(--visits); } .legend .unique { color: var(--unique); } .legend .views { color: var(--views); }
.legend span { color: var(--text); }
.chart svg { display: block; width: 100%; height: auto; }
.chart .compact { display: none; }
.grid line { stroke: var(--line); stroke-width: 1; }
.axis text { fill: var(--muted); font-size: 12px; font-family: inherit; }
.series { fill: none; stroke-width: 2.25; stroke-linejoin: round; stroke-linecap: round; }
.series.visits { stroke: var(--visits); } .series.unique { stroke: var(--unique); } .series.views { stroke: var(--views); }
.pt.visits { fill: var(--visits); } .pt.unique { fill: var(--unique); } .pt.views { fill: var(--views); }
.hit { fill: transparent; }
.day:hover .hit { fill: rgba(47, 91, 211, 0.08); }
.cols { display: grid; gap: 16px; grid-template-columns: 1fr 1fr; }
table { width: 100%; border-collapse: collapse; font-size: 14px; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: 0 0 8px; font-size: 15px; }
th, td { padding: 7px 8px; border-bottom: 1px solid var(--line); text-align: right; }
th:first-child, td:first-child { text-align: left; overflow-wrap: anywhere; }
#daily th:first-child { white-space: nowrap; }
thead th { color: var(--muted); font-weight: 600; font-size: 12px; text-transform: uppercase; letter-spacing: .03em; }
tbody tr:last-child td { border-bottom: 0; }
.empty { color: var(--muted); font-size: 14px; margin: 0; }
.daily { max-height: 520px; overflow: auto; }
.error { max-width: 560px; margin: 48px auto; text-align: center; }
.error .code { color: var(--muted); font-size: 14px; margin: 0 0 4px; }
.error p { color: var(--muted); }
@media (max-width: 640px) {
  main.wrap { padding-top: 16px; padding-bottom: 40px; }
  .wrap { padding: 0 12px; }
  h1 { font-size: 21px; }
  .stats { gap: 8px; }
  .stat { padding: 10px; }
  .stat .value { font-size: 20px; }
  .acts { grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 8px; }
  .cols { grid-template-columns: 1fr; }
  .who { order: 3; width: 100%; margin: -4px 0 0; font-size: 13px; }
  .bar form { margin-left: auto; }
  th, td { padding: 7px 6px; }
  .chart .wide { display: none; }
  .chart .compact { display: block; }
  .card { padding: 12px; }
}
`

/** Short content hash, so the stylesheet URL changes when the stylesheet does and can be cached. */
export const STYLESHEET_VERSION = createHash('sha256').update(STYLESHEET).digest('hex').slice(0, 12)
