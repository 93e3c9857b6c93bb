/**
 * A Prometheus histogram for the request path. prom-client's
 * `Histogram.observe` checks its label object and hashes it on every call
 * (about 0.4 µs, twice per API request: the request and its store call);
 * here the caller finds a series by a string key it builds, and an
 * observation is three array updates. To prom-client's Registry it is a
 * metric like any other (name, help, type, `get`, `reset`), so `/metrics`
 * prints it as it prints a prom-client Histogram, in Prometheus's text format.
 */
import type { Registry } from 'prom-client'

interface Series {
  labels: Record<string, string>
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  counts: Float64Array
  sum: number
  count: number
}

/** One value of the `get()` answer, as prom-client's own metrics give them. */
interface Sample {
  labels: Record<string, string | number>
  value: number
  metricName: string
}

/** See the module comment. */
export class FastHistogram {
  readonly type = 'histogram'
  /** How prom-client's cluster aggregation combines workers' values. */
  readonly aggregator = 'sum'
  private series = new Map<string, Series>()

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[],
  ) {}

  /** Adds an observation to the series `key` names; false (and nothing added) when there is no such series yet. */
  observe(key: string, value: number): boolean {
    const series = this.series.get(key)
    if (series === undefined) return false
    let bucket = 0
    while (bucket < this.buckets.length && value > (this.buckets[bucket] as number)) bucket++
    series.counts[bucket] = (series.counts[bucket] as number) + 1
    series.sum += value
    series.count += 1
    return true
  }

  /** Makes the series `key` names, with these label values (`observe` then finds it). */
  add(key: string, labels: Record<string, string>): void {
    if (!this.series.has(key))
      this.series.set(key, { labels, counts: new Float64Array(this.buckets.length + 1), sum: 0, count: 0 })
  }

  /** The family's samples, in prom-client's form: cumulative buckets, `+Inf`, sum and count per series. */
  async get(): Promise<{ name: string; help: string; type: 'histogram'; values: Sample[]; aggregator: 'sum' }> {
    const values: Sample[] = []
    for (const { labels, counts, sum, count } of this.series.values()) {
      let cumulative = 0
      this.buckets.forEach((le, i) => {
        cumulative += counts[i] as number
        values.push({ labels: { ...labels, le }, value: cumulative, metricName: `${this.name}_bucket` })
      })
      values.push({ labels: { ...labels, le: '+Inf' }, value: count, metricName: `${this.name}_bucket` })
      values.push({ labels, value: sum, metricName: `${this.name}_sum` })
      values.push({ labels, value: count, metricName: `${this.name}_count` })
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator }
  }

  /** Forgets every series (prom-client's `registry.resetMetrics()`). */
  reset(): void {
    this.series = new Map()
  }

  /** Registers this family in `registry` (prom-client takes any object with these members). */
  registerIn(registry: Registry): this {
    registry.registerMetric(this as never)
    return this
  }
}
