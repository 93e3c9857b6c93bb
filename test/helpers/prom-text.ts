/**
 * Reads the Prometheus text format as `/metrics` serves it, for tests that
 * check which families, labels and values a server exports.
 */

/** One sample line: `name{label="value",…} 1`. */
export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

/** One family: its `# TYPE` line and the samples after it. */
export interface Family {
  name: string
  type: string
  samples: Sample[]
}

/** The suffixes a histogram's or summary's sample names add to the family name. */
const SUFFIXES = ['_bucket', '_sum', '_count', '_created', '']

/** The families of `text` by name; a sample line with no `# TYPE` line of its own is a family of type `untyped`. */
export function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>()
  let current: Family | undefined
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line)
    if (type) {
      current = { name: type[1]!, type: type[2]!, samples: [] }
      families.set(current.name, current)
      continue
    }
    if (line === '' || line.startsWith('#')) continue
    const sample = parseSample(line)
    const owner =
      current !== undefined && SUFFIXES.some((suffix) => sample.name === current!.name + suffix) ? current : undefined
    if (owner !== undefined) owner.samples.push(sample)
    else {
      const orphan = families.get(sample.name) ?? { name: sample.name, type: 'untyped', samples: [] }
      orphan.samples.push(sample)
      families.set(sample.name, orphan)
    }
  }
  return families
}

/** One sample line; labels unescaped (`\\`, `\"`, `\n`). */
export function parseSample(line: string): Sample {
  const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line)
  if (!match) throw new Error(`not a sample line: ${line}`)
  const labels: Record<string, string> = {}
  for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
    labels[pair[1]!] = pair[2]!.replace(/\\(.)/g, (_all, c: string) => (c === 'n' ? '\n' : c))
  }
  return { name: match[1]!, labels, value: Number(match[3]) }
}

/** The families of `text` with a `# TYPE` line and not one sample. */
export function emptyFamilies(text: string): string[] {
  return [...parseExposition(text).values()].filter((f) => f.samples.length === 0).map((f) => f.name)
}

/** `GET /metrics` of the server at `url`, as text. */
export async function scrape(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`)
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`)
  return res.text()
}
