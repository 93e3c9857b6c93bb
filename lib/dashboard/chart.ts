/**
 * The site page's chart: daily visits, unique visitors and page views as a
 * server-rendered SVG line chart. It comes in two layouts drawn from the
 * same numbers, a wide one for desktops and a compact one for phones, and
 * the stylesheet shows one of them, so the text stays legible at either
 * size without any script. Each point carries its value (`data-value`) and
 * each day a tooltip (`<title>`); the HTML table below the chart holds the
 * same numbers for anyone who cannot see it.
 */
import type { DailyTraffic } from '../engine/rules/dashboard.js'
import { type SafeHtml, html } from './html.js'

/** The three series, in drawing order (the largest, page views, underneath). */
export const SERIES = [
  { key: 'page_views', css: 'views', label: 'Page views' },
  { key: 'visits', css: 'visits', label: 'Visits' },
  { key: 'unique_visitors', css: 'unique', label: 'Unique visitors' },
] as const

interface Layout {
  name: 'wide' | 'compact'
  width: number
  height: number
  left: number
  right: number
  top: number
  bottom: number
  /** How many x labels at most. */
  labels: number
  radius: number
}

const LAYOUTS: readonly Layout[] = [
  { name: 'wide', width: 960, height: 320, left: 52, right: 16, top: 16, bottom: 34, labels: 8, radius: 3 },
  { name: 'compact', width: 360, height: 240, left: 40, right: 10, top: 12, bottom: 30, labels: 4, radius: 2.25 },
]

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/** `YYYY-MM-DD` → `Mar 10`. */
export function shortDay(day: string): string {
  return `${MONTHS[Number(day.slice(5, 7)) - 1] ?? ''} ${Number(day.slice(8, 10))}`
}

/**
 * Thousands separators (1,234,567), the same on every host whatever its
 * locale; toLocaleString was the page's single largest formatting cost.
 */
export function count(n: number): string {
  const text = String(n)
  return n < 1000 && n > -1000 ? text : text.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

/** The smallest "nice" axis maximum (1, 2, 2.5, 5 × 10^k, times the tick count) at or above `max`. */
export function axisMax(max: number, ticks: number): number {
  if (max <= 0) return ticks
  const raw = max / ticks
  const magnitude = 10 ** Math.floor(Math.log10(raw))
  const step =
    [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw && Number.isInteger(s)) ?? Math.ceil(raw)
  return step * ticks
}

const TICKS = 4
const fixed = (n: number): string => String(Math.round(n * 100) / 100)

function drawing(daily: readonly DailyTraffic[], layout: Layout, label: string, title: string): SafeHtml {
  const { width, height, left, right, top, bottom } = layout
  const plotW = width - left - right
  const plotH = height - top - bottom
  const peak = Math.max(0, ...daily.flatMap((d) => [d.page_views, d.visits, d.unique_visitors]))
  const max = axisMax(peak, TICKS)
  const n = daily.length
  const x = (i: number): number => left + (n === 1 ? plotW / 2 : (i * plotW) / (n - 1))
  const y = (v: number): number => top + plotH * (1 - v / max)
  const slot = n === 1 ? plotW : plotW / (n - 1)

  const grid = Array.from({ length: TICKS + 1 }, (_, i) => {
    const value = (max / TICKS) * i
    return html`<line x1="${left}" x2="${width - right}" y1="${fixed(y(value))}" y2="${fixed(y(value))}"/>`
  })
  const yLabels = Array.from({ length: TICKS + 1 }, (_, i) => {
    const value = (max / TICKS) * i
    return html`<text x="${left - 8}" y="${fixed(y(value) + 4)}" text-anchor="end" data-tick="${value}">${count(value)}</text>`
  })
  const every = Math.max(1, Math.ceil(n / layout.labels))
  const xLabels = daily.map((d, i) =>
    (n - 1 - i) % every === 0
      ? html`<text x="${fixed(x(i))}" y="${height - 10}" text-anchor="${i === n - 1 && n > 1 ? 'end' : i === 0 && n > 1 ? 'start' : 'middle'}">${shortDay(d.day)}</text>`
      : null,
  )
  const lines = SERIES.map(
    (s) =>
      html`<polyline class="series ${s.css}" points="${daily.map((d, i) => `${fixed(x(i))},${fixed(y(d[s.key]))}`).join(' ')}"/>`,
  )
  const days = daily.map(
    (d, i) =>
      html`<g class="day" data-day="${d.day}"><title>${shortDay(d.day)} (${d.day}): ${count(d.visits)} visits, ${count(
        d.unique_visitors,
      )} unique visitors, ${count(d.page_views)} page views</title><rect class="hit" x="${fixed(x(i) - slot / 2)}" y="${top}" width="${fixed(
        slot,
      )}" height="${plotH}"/>${SERIES.map(
        (s) =>
          html`<circle class="pt ${s.css}" data-series="${s.key}" data-value="${d[s.key]}" cx="${fixed(x(i))}" cy="${fixed(y(d[s.key]))}" r="${layout.radius}"/>`,
      )}</g>`,
  )
  return html`<svg class="${layout.name}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${label}" data-max="${max}" data-top="${top}" data-plot-height="${plotH}" xmlns="http://www.w3.org/2000/svg"><title>${title}</title><g class="grid">${grid}</g><g class="axis">${yLabels}${xLabels}</g>${lines}${days}</svg>`
}

/** The chart, both layouts, for days oldest first. */
export function trafficChart(daily: readonly DailyTraffic[], label: string, title: string): SafeHtml {
  return html`<div class="chart">${LAYOUTS.map((layout) => drawing(daily, layout, label, title))}</div>`
}
