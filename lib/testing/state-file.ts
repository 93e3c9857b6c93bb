/**
 * State kept between runs (`startServer({ stateFile })`, `mobisite --state
 * FILE`): the whole state of a MemoryStore, as a snapshot, in one JSON file.
 *
 * At start the path is checked before anything is read (state-file-lock.ts:
 * a regular file or a missing one, in a folder this process can write to,
 * held by no other process), the temporary files a killed run left are
 * removed, and the file, if present, is seeded: a file that is not JSON or
 * not a valid snapshot stops the start with an error naming the file and the
 * problems, and is left as it is. Once serving, the state is written back at
 * once (which creates the file and measures how long a write-back takes),
 * then whenever it changes, each write-back starting early enough to end
 * within `intervalSeconds` of the first change it carries (the last one's
 * duration, twice, scaled to the state's growth), and on close. A killed
 * process therefore loses at most the interval. Each write goes to a
 * temporary file that replaces the old one (state-file-writer.ts), a slice
 * at a time. A failed write-back is logged, reported, and retried with a
 * backoff. The file holds password hashes: it is created readable by its
 * owner only.
 */
import { constants } from 'node:fs'
import { open } from 'node:fs/promises'
import type { MemoryStore } from '../store/memory/store.js'
import type { Controls } from './controls.js'
import type { SeedBody } from './seed.js'
import { checkPlace, refuseUnlessRegular, StateFileRefusedError, StateLock } from './state-file-lock.js'
import { removeStaleTemporaries, writeCapture } from './state-file-writer.js'

export { StateFileRefusedError }

/** The part of a pino logger the state file uses (`startServer`'s `logger`). */
export interface StateFileLogger {
  error(fields: object, message: string): void
  warn(fields: object, message: string): void
  info(fields: object, message: string): void
}

/** Options of {@link StateFile.open}. */
export interface StateFileOptions {
  /** The file. Its folder must exist. */
  path: string
  /** An acknowledged change is in the file at most this many seconds later. Default 5. */
  intervalSeconds?: number
  /** Where failures and notices go. Default: failures and warnings as one line each on stderr. */
  logger?: StateFileLogger
  /** Called once for each failed write-back, after it is logged (the server counts them in `/metrics`). */
  onWriteFailure?: () => void
}

/** The default of {@link StateFileOptions.intervalSeconds}. */
export const DEFAULT_STATE_INTERVAL = 5

/** Added to the time a write-back is expected to take: timers and the first slice are late on a busy loop. */
const START_MARGIN_MS = 50
/** The first retry of a failed write-back; each next one waits twice as long, at most the interval. */
const FIRST_RETRY_MS = 250

/** Without a logger: errors and warnings as one line on stderr, no stack. */
const stderrLogger: StateFileLogger = {
  error: (fields, message) => process.stderr.write(`mobisite: ${message}: ${lineOf(fields)}\n`),
  warn: (fields, message) => process.stderr.write(`mobisite: ${message}: ${lineOf(fields)}\n`),
  info: () => undefined,
}

function lineOf(fields: object): string {
  return Object.entries(fields)
    .map(([key, value]) => `${key}=${value instanceof Error ? value.message : String(value)}`)
    .join(' ')
}

/** A state file being kept: loaded at open, written back while the state changes. */
export class StateFile {
  /** When (performance.now) the oldest change that no write-back has captured yet was made; undefined: none. */
  private dirtySince: number | undefined
  private running: Promise<void> | undefined
  private timer: NodeJS.Timeout | undefined
  private stopWatching: (() => void) | undefined
  private lastMs = 0
  private lastRecords = 0
  private failures = 0
  private failingInARow = 0
  private written = false
  private stopped = false
  private warnedSlow = false
  private readonly intervalMs: number
  private readonly logger: StateFileLogger

  private constructor(
    private readonly store: MemoryStore,
    private readonly options: StateFileOptions,
    private readonly lock: StateLock,
  ) {
    this.intervalMs = (options.intervalSeconds ?? DEFAULT_STATE_INTERVAL) * 1000
    this.logger = options.logger ?? stderrLogger
  }

  /**
   * Checks the path and takes the file's lock (rejecting with
   * StateFileRefusedError), removes stale temporary files, then loads the
   * file into the store behind `controls` (absent: nothing to load). Rejects
   * with an Error naming the file when it cannot be read, is not JSON or is
   * not a valid snapshot. Nothing is written until {@link start}.
   */
  static async open(controls: Controls, store: MemoryStore, options: StateFileOptions): Promise<StateFile> {
    const interval = options.intervalSeconds ?? DEFAULT_STATE_INTERVAL
    if (!(interval > 0 && interval <= 86_400))
      throw new TypeError('stateInterval must be a number of seconds above 0 and at most 86400')
    await checkPlace(options.path)
    const lock = await StateLock.acquire(options.path)
    try {
      const removed = await removeStaleTemporaries(options.path)
      if (removed.length > 0)
        options.logger?.info({ state_file: options.path, removed }, 'removed temporary files an earlier run left')
      const body = await read(options.path)
      if (body !== undefined) await load(controls, store, options.path, body)
    } catch (error) {
      await lock.release()
      throw error
    }
    return new StateFile(store, options, lock)
  }

  /** Write-backs that failed so far (each one logged, reported and retried). */
  get writeFailures(): number {
    return this.failures
  }

  /** Starts keeping the file: a write-back now, then one for each change. */
  start(): void {
    this.stopWatching = this.store.onWrite(() => this.changed())
    this.dirtySince = performance.now()
    this.schedule()
  }

  /** Stops without writing (a start that failed), and lets the file go. */
  async discard(): Promise<void> {
    this.stop()
    await this.lock.release()
  }

  /**
   * Stops, writes the last state (when it changed, or was never written),
   * and lets the file go. Rejects when that last write fails.
   */
  async close(): Promise<void> {
    if (this.stopped) return
    this.stop()
    try {
      while (this.running) await this.running
      if (this.dirtySince !== undefined || !this.written) {
        const before = this.failures
        await this.writeBack()
        if (this.failures > before)
          throw new Error(`state file ${this.options.path}: the last state could not be written (the error is logged)`)
      }
    } finally {
      await this.lock.release()
    }
  }

  private stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
    this.stopWatching?.()
  }

  private changed(): void {
    if (this.dirtySince !== undefined || this.stopped) return
    this.dirtySince = performance.now()
    this.schedule()
  }

  /** Sets the timer of the next write-back, if one is due and none runs. */
  private schedule(): void {
    if (this.running !== undefined || this.stopped || this.dirtySince === undefined) return
    clearTimeout(this.timer)
    const delay =
      this.failingInARow > 0
        ? Math.min(this.intervalMs, FIRST_RETRY_MS * 2 ** (this.failingInARow - 1))
        : this.dirtySince + this.intervalMs - this.expectedMs() - performance.now()
    this.timer = setTimeout(
      () => {
        this.running = this.writeBack()
      },
      Math.max(0, delay),
    )
    // A pending write-back never keeps a process alive: close() writes the last state.
    this.timer.unref()
  }

  /**
   * How long the next write-back may take: twice the last one, scaled to the
   * state's growth since, plus a margin; before any, unknown (so at once).
   */
  private expectedMs(): number {
    if (!this.written) return Number.POSITIVE_INFINITY
    const growth = Math.max(1, this.store.recordCount / Math.max(1, this.lastRecords))
    return 2 * this.lastMs * growth + START_MARGIN_MS
  }

  private async writeBack(): Promise<void> {
    const started = performance.now()
    const since = this.dirtySince ?? started
    try {
      await this.lock.verify()
      const records = this.store.recordCount
      // The capture and the reset are one synchronous step: a change after it marks the next write-back due.
      const capture = this.store.captureState()
      this.dirtySince = undefined
      await writeCapture(this.options.path, capture, since + this.intervalMs - START_MARGIN_MS)
      this.lastMs = performance.now() - started
      this.lastRecords = records
      this.written = true
      this.failingInARow = 0
      if (this.lastMs > this.intervalMs && !this.warnedSlow) {
        this.warnedSlow = true
        this.logger.warn(
          { state_file: this.options.path, write_ms: Math.round(this.lastMs), interval_ms: this.intervalMs },
          'a write-back of the state file took longer than the interval: a killed process may lose more; raise the interval',
        )
      }
    } catch (error) {
      this.failures++
      this.failingInARow++
      // Those changes are still not in the file: due as early as before.
      this.dirtySince = Math.min(since, this.dirtySince ?? since)
      const retry = this.stopped
        ? {}
        : { retry_in_ms: Math.min(this.intervalMs, FIRST_RETRY_MS * 2 ** (this.failingInARow - 1)) }
      this.logger.error(
        { err: error, state_file: this.options.path, failures: this.failures, ...retry },
        'could not write the state file',
      )
      this.options.onWriteFailure?.()
    } finally {
      this.running = undefined
      this.schedule()
    }
  }
}

/** What a parsed file holds, for a message. */
function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return `a ${typeof value}`
}

/** The parsed file; undefined when there is none. Never blocks on a FIFO: it is opened non-blocking and refused. */
async function read(path: string): Promise<object | undefined> {
  let text: string
  try {
    const handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
    try {
      refuseUnlessRegular(path, await handle.stat())
      text = await handle.readFile('utf8')
    } finally {
      await handle.close()
    }
  } catch (error) {
    if (error instanceof StateFileRefusedError) throw error
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new Error(`state file ${path} cannot be read: ${(error as Error).message}`)
  }
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch (error) {
    throw new Error(
      `state file ${path} is not valid JSON (${(error as Error).message}); it was left untouched: fix it, or move it away to start empty`,
    )
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new Error(
      `state file ${path} is not a valid mobisite snapshot; it was left untouched: it holds ${describe(body)}, not an object: fix it, or move it away to start empty`,
    )
  return body
}

/**
 * Seeds the snapshot. Masters that already exist (those this process was
 * started with) keep their current credentials: the file's entry for them is skipped.
 */
async function load(controls: Controls, store: MemoryStore, path: string, body: object): Promise<void> {
  const seedBody = body as SeedBody
  try {
    if (Array.isArray(seedBody.masters)) {
      const kept = []
      for (const master of seedBody.masters) {
        const user = (master as { user?: unknown } | null)?.user
        if (typeof user !== 'string' || (await store.getMaster(user)) === undefined) kept.push(master)
      }
      await controls.seed({ ...seedBody, masters: kept })
    } else {
      await controls.seed(body)
    }
  } catch (error) {
    throw new Error(
      `state file ${path} is not a valid mobisite snapshot; it was left untouched: ${(error as Error).message}`,
      { cause: error },
    )
  }
}
