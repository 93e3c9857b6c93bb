/**
 * The weighted real-UA corpus of the `user-agents` package (BSD-2), with its
 * device labels: the ground truth DEFAULT_AGENTS is measured against.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

/** One row of the corpus: a UA as seen in real traffic, its weight and device label. */
export interface CorpusRow {
  userAgent: string
  weight: number
  deviceCategory: 'mobile' | 'tablet' | 'desktop'
}

const require = createRequire(import.meta.url)

/** The package's `exports` hides the data file, so find it next to the entry point. */
function corpusPath(): string {
  return join(dirname(require.resolve('user-agents')), 'user-agents.json')
}

/** The installed `user-agents` version (the corpus changes with it). */
export const corpusVersion: string = (
  JSON.parse(readFileSync(join(dirname(corpusPath()), '..', 'package.json'), 'utf8')) as { version: string }
).version

/** Every row (about 10,000), in file order. */
export const corpus: CorpusRow[] = (JSON.parse(readFileSync(corpusPath(), 'utf8')) as CorpusRow[]).map((r) => ({
  userAgent: r.userAgent,
  weight: r.weight,
  deviceCategory: r.deviceCategory,
}))

/** Distinct UA strings of the corpus. */
export const corpusUserAgents: string[] = [...new Set(corpus.map((r) => r.userAgent))]

/** Counts and weights of a binary classifier against the labels; positive = phone ("mobile"). */
export interface Confusion {
  tp: number
  fp: number
  fn: number
  tn: number
  weight: { tp: number; fp: number; fn: number; tn: number }
  /** Row-weighted precision and recall. */
  precision: number
  recall: number
  disagreements: Array<{ row: CorpusRow; predicted: boolean }>
}

/** Scores `isPhone` on every row. */
export function score(isPhone: (ua: string) => boolean, rows: CorpusRow[] = corpus): Confusion {
  const c: Confusion = {
    tp: 0,
    fp: 0,
    fn: 0,
    tn: 0,
    weight: { tp: 0, fp: 0, fn: 0, tn: 0 },
    precision: 0,
    recall: 0,
    disagreements: [],
  }
  for (const row of rows) {
    const predicted = isPhone(row.userAgent)
    const actual = row.deviceCategory === 'mobile'
    const k = predicted ? (actual ? 'tp' : 'fp') : actual ? 'fn' : 'tn'
    c[k]++
    c.weight[k] += row.weight
    if (predicted !== actual) c.disagreements.push({ row, predicted })
  }
  c.precision = c.tp / (c.tp + c.fp)
  c.recall = c.tp / (c.tp + c.fn)
  return c
}
