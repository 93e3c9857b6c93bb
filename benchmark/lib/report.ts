/**
 * One way for every benchmark to report a figure, so `npm run bench` can
 * gather them into docs/PERFORMANCE.md. A benchmark prints its own readable
 * output as before and calls `figure()` for each number worth keeping; each
 * call prints one `#figure {json}` line that the runner collects.
 */

/** One measured figure, beside the anchor it was measured against in the same run. */
export interface Figure {
  /** The table it belongs to, e.g. 'API', 'redirect', 'store', 'dashboard'. */
  group: string
  /** What was measured, e.g. 'GET /sites/{site_name}, MemoryStore'. */
  name: string
  value: number
  /** 'req/s', 'ns', 'ms', 'MB', ... */
  unit: string
  /** What it was compared with in the same run, e.g. 'bare Express'. */
  anchor?: string
  anchorValue?: number
  /** value / anchorValue, or the ratio that matters (say which in `note`). */
  ratio?: number
  /** The goal, as text, e.g. '>= 0.90'. */
  target?: string
  /** What `target` bounds: the ratio when there is one (default), else the value. */
  targetOf?: 'value' | 'ratio'
  note?: string
}

/** Prints one figure as a `#figure` line for the bench runner. */
export function figure(f: Figure): void {
  console.log(`#figure ${JSON.stringify(f)}`)
}
