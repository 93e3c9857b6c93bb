/**
 * The builder control: layered over an engine's own builder, it makes the
 * following builds fail with a given creation_status or take time, for every
 * site or one, for a number of builds or until replaced; and it can wait for
 * every async build in flight to settle.
 */
import type { Site } from '../../types/index.js'

/** Builds going a set way: `PUT /__admin/builder`. */
export interface BuilderOverride {
  outcome: 'ok' | 'FAILED' | 'FAILED_FRAMESET_UNSUPPORTED' | 'FAILED_CONTENT_TOO_BIG'
  delay_ms?: number
  /** Only builds of this site; others use the default builder. */
  site_name?: string
  /** After this many builds the default builder is back. Default: until replaced or reset. */
  times?: number
}

/** The error a failed build rejects with; the engine reads its creation_status. */
export class BuildFailure extends Error {
  constructor(readonly creation_status: string) {
    super(`build failed (${creation_status}), as the builder control says`)
    this.name = 'BuildFailure'
  }
}

/** Holds the override and builds through it or through the default builder. */
export class BuilderControl {
  private override: (BuilderOverride & { left: number }) | undefined
  /** Delays in progress: reset ends them at once, so abandoned builds do not hold engine.close() up. */
  private readonly waits = new Set<() => void>()

  constructor(private readonly base: (site: Site) => Promise<void>) {}

  /** The layered builder the engine calls. */
  readonly build = async (site: Site): Promise<void> => {
    const o = this.override
    if (o === undefined || (o.site_name !== undefined && o.site_name !== site.site_name)) return this.base(site)
    if (--o.left <= 0) this.override = undefined
    if (o.delay_ms) await this.wait(o.delay_ms)
    if (o.outcome !== 'ok') throw new BuildFailure(o.outcome)
  }

  /** Replaces the previous override. */
  set(override: BuilderOverride): void {
    this.override = { ...override, left: override.times ?? Number.POSITIVE_INFINITY }
  }

  /** The override in force, with its remaining `times`, if any. */
  get(): BuilderOverride | undefined {
    if (this.override === undefined) return undefined
    const { left, ...rest } = this.override
    return Number.isFinite(left) ? { ...rest, times: left } : rest
  }

  /** Back to the default builder; delays in progress end now. */
  reset(): void {
    this.override = undefined
    for (const end of this.waits) end()
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const end = (): void => {
        clearTimeout(timer)
        this.waits.delete(end)
        resolve()
      }
      const timer = setTimeout(end, ms)
      this.waits.add(end)
    })
  }
}
