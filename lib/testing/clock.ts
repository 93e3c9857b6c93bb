/**
 * The clock control: layered over an engine's own `now`, it can freeze time,
 * move it forward (frozen or running) and go back to real time, where "real"
 * is whatever `now` the engine was given (the system clock by default).
 */
import { formatDateTime } from '../engine/shared/dates.js'

/** What every clock call answers. */
export interface ClockState {
  /** `YYYY-MM-DDThh:mm:ss`, UTC. */
  now: string
  frozen: boolean
}

/** A clock over `base`: frozen at a time, or base plus an offset. */
export class ClockControl {
  private frozenAt: number | undefined
  private offset = 0

  constructor(private readonly base: () => Date) {}

  /** The layered clock the engine reads. */
  readonly now = (): Date => new Date(this.frozenAt ?? this.base().getTime() + this.offset)

  /** The current time and whether it is frozen. */
  state(): ClockState {
    return { now: formatDateTime(this.now().getTime()), frozen: this.frozenAt !== undefined }
  }

  /** Freezes the clock at `ms` (epoch milliseconds). */
  freeze(ms: number): ClockState {
    this.frozenAt = ms
    return this.state()
  }

  /** Moves the clock forward by `seconds`, whether frozen or running. */
  advance(seconds: number): ClockState {
    const ms = Math.round(seconds * 1000)
    if (this.frozenAt !== undefined) this.frozenAt += ms
    else this.offset += ms
    return this.state()
  }

  /** Back to the engine's own clock. */
  reset(): ClockState {
    this.frozenAt = undefined
    this.offset = 0
    return this.state()
  }
}
