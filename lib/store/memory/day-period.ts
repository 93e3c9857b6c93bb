/**
 * A period of UTC days, [from, to] as YYYY-MM-DD, read out of maps keyed by
 * day. A map is read by the cheaper of two ways: looking up each day of the
 * period, or scanning the map's own days when it has fewer than the period.
 * The period's day keys are built once, on first use, for all the maps a
 * query reads, not once per map.
 */
const DAY_MS = 86_400_000

export class DayPeriod {
  /** The number of days in the period; 0 when `from` is after `to`. */
  readonly length: number
  private keys: string[] | undefined

  constructor(
    readonly from: string,
    readonly to: string,
  ) {
    this.length = from > to ? 0 : (Date.parse(to) - Date.parse(from)) / DAY_MS + 1
  }

  /** The values of `days` whose day lies in the period. */
  of<T>(days: Map<string, T>): T[] {
    const out: T[] = []
    this.forEach(days, (value) => out.push(value))
    return out
  }

  /** The sum of `count` over the values of `days` in the period, with no array built. */
  sum<T>(days: Map<string, T>, count: (value: T) => number): number {
    let sum = 0
    this.forEach(days, (value) => (sum += count(value)))
    return sum
  }

  private forEach<T>(days: Map<string, T>, visit: (value: T) => void): void {
    if (this.length === 0) return
    if (this.length <= days.size) {
      for (const key of this.dayKeys()) {
        const value = days.get(key)
        if (value !== undefined) visit(value)
      }
    } else {
      const { from, to } = this
      for (const [day, value] of days) if (day >= from && day <= to) visit(value)
    }
  }

  private dayKeys(): string[] {
    if (this.keys === undefined) {
      const start = Date.parse(this.from)
      this.keys = []
      for (let i = 0; i < this.length; i++) this.keys.push(new Date(start + i * DAY_MS).toISOString().slice(0, 10))
    }
    return this.keys
  }
}
