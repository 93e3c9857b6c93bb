/**
 * One write-back of the state file. The state is captured in one
 * synchronous step that copies nothing (MemoryStore.captureState), then
 * turned into JSON an entry at a time, giving the event loop back at least
 * every {@link SLICE_MS} (serializing 50,000 sites at once stopped it for
 * over half a second), into a temporary file beside the state file that
 * then replaces it. So the file is always a whole snapshot, as the state
 * was at the capture, and requests are answered while it is written.
 */
import { randomBytes } from 'node:crypto'
import type { FileHandle } from 'node:fs/promises'
import { open, readdir, rename, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { StateCapture } from '../store/memory/store.js'
import { accountEntry, ledgerEntry, masterEntry, siteEntry } from './snapshot-entries.js'

/** Most milliseconds of serializing before the event loop gets a turn, while the write-back is on time. */
export const SLICE_MS = 5
/**
 * The same when it would end past its deadline (a busy server leaves it
 * little time between slices): a larger share of the time, still well
 * under the 50 ms a write-back may stop the event loop.
 */
export const LATE_SLICE_MS = 25

/** A temporary file beside `path`: the state file's name, this pid, 12 hex digits (see {@link isTemporaryOf}). */
export function temporaryPath(path: string): string {
  return `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
}

/** Whether `name` (in the state file's folder) is one of the state file's own temporary files. */
function isTemporaryOf(stateName: string, name: string): boolean {
  if (!name.startsWith(`${stateName}.`)) return false
  return /^\d+\.[0-9a-f]{12}\.tmp$/.test(name.slice(stateName.length + 1))
}

/** Removes the state file's temporary files that earlier runs left (a kill during a write-back); returns their names. */
export async function removeStaleTemporaries(path: string): Promise<string[]> {
  const stateName = basename(path)
  const folder = dirname(path)
  const stale = (await readdir(folder)).filter((name) => isTemporaryOf(stateName, name))
  const removed: string[] = []
  for (const name of stale) {
    await unlink(join(folder, name)).then(
      () => removed.push(name),
      () => undefined,
    )
  }
  return removed
}

/** JSON text gathered in memory, handed to the file at each pause. */
class SlicedJson {
  private parts: string[] = []
  private readonly started = performance.now()
  private sliceStarted = this.started
  private done = 0

  constructor(
    private readonly handle: FileHandle,
    /** Entries to write (about: analytics count as one a site). */
    private readonly total: number,
    /** When (performance.now) the write-back should be over. */
    private readonly deadline: number,
  ) {}

  add(text: string): void {
    this.parts.push(text)
  }

  /** Writes what was gathered if the slice is used up; awaiting the write is the event loop's turn. */
  async pauseIfDue(): Promise<void> {
    const now = performance.now()
    if (now - this.sliceStarted < SLICE_MS) return
    if (now - this.sliceStarted < LATE_SLICE_MS && this.late(now)) return
    await this.flush()
  }

  /** Whether, at the pace so far, the last entry would come after the deadline. */
  private late(now: number): boolean {
    return this.started + ((now - this.started) * this.total) / Math.max(1, this.done) > this.deadline
  }

  async flush(): Promise<void> {
    const text = this.parts.join('')
    this.parts = []
    if (text.length > 0) await this.handle.write(text)
    else await new Promise((resolve) => setImmediate(resolve))
    this.sliceStarted = performance.now()
  }

  /** `"key":[...]`, an entry at a time. */
  async array<T>(key: string, items: Iterable<T>, entry: (item: T) => unknown, first = false): Promise<void> {
    this.add(`${first ? '' : ','}${JSON.stringify(key)}:[`)
    let comma = ''
    for (const item of items) {
      this.add(comma + JSON.stringify(entry(item)))
      comma = ','
      this.done++
      await this.pauseIfDue()
    }
    this.add(']')
  }
}

/** The analytics of a capture, a site-day at a time. */
function* analyticsDays(capture: StateCapture): Iterable<unknown> {
  for (let days = capture.analytics.next(); days !== undefined; days = capture.analytics.next()) yield* days
}

/**
 * Writes the captured state to `path`: the same JSON as
 * `JSON.stringify(controls.snapshot())` would give for it, entries in the
 * store's order, pacing itself to end by `deadline` (performance.now) when
 * it can. Always ends the capture.
 */
export async function writeCapture(path: string, capture: StateCapture, deadline: number): Promise<void> {
  const temporary = temporaryPath(path)
  let handle: FileHandle | undefined
  try {
    handle = await open(temporary, 'wx', 0o600)
    const { masters, sites, accounts, grants, billing, analytics } = capture
    const total = masters.length + sites.length + accounts.length + grants.length + billing.length + analytics.sites
    const json = new SlicedJson(handle, total, deadline)
    json.add('{')
    await json.array('masters', capture.masters, masterEntry, true)
    await json.array('sites', capture.sites, siteEntry)
    await json.array('accounts', capture.accounts, accountEntry)
    await json.array('grants', capture.grants, (grant) => grant)
    await json.array('billing', capture.billing, ledgerEntry)
    await json.array('analytics', analyticsDays(capture), (day) => day)
    json.add('}\n')
    await json.flush()
    await handle.sync()
    await handle.close()
    handle = undefined
    await rename(temporary, path)
  } catch (error) {
    await handle?.close().catch(() => undefined)
    await unlink(temporary).catch(() => undefined)
    throw error
  } finally {
    capture.analytics.end()
  }
}
