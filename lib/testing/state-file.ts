/**
 * State kept between runs (`startServer({ stateFile })`, `mobisite --state
 * FILE`): the whole state of a MemoryStore, as a snapshot, in one JSON file.
 *
 * At start the file, if present, is seeded: a file that is not JSON or not a
 * valid snapshot stops the start with an error naming the file and the
 * problems, and is left as it is. The state is written back on close and at
 * most every `intervalSeconds` while it changes (MemoryStore.revision says
 * whether it did), each time to a temporary file in the same folder that is
 * then renamed over the old one, so the file is always a whole snapshot. A
 * killed process loses at most the last interval. The file holds password
 * hashes: it is created readable by its owner only.
 */
import { randomBytes } from 'node:crypto'
import { open, readFile, rename, stat, unlink } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { MemoryStore } from '../store/memory/store.js'
import type { Controls } from './controls.js'
import type { SeedBody } from './seed.js'

/** Options of {@link StateFile.open}. */
export interface StateFileOptions {
  /** The file. Its folder must exist. */
  path: string
  /** Write at most this often while the state changes, in seconds. Default 5. */
  intervalSeconds?: number
  /** Called when a write back fails (the server keeps serving). Default: console.error. */
  onError?: (error: unknown) => void
}

/** The default of {@link StateFileOptions.intervalSeconds}. */
export const DEFAULT_STATE_INTERVAL = 5

/** A state file being kept: loaded at open, written back while the state changes. */
export class StateFile {
  private written: number
  private writing: Promise<void> | undefined
  private timer: NodeJS.Timeout | undefined

  private constructor(
    private readonly controls: Controls,
    private readonly store: MemoryStore,
    private readonly options: StateFileOptions,
    /** Whether the file existed: written on close even unchanged if not. */
    private exists: boolean,
  ) {
    this.written = store.revision
  }

  /**
   * Loads the file into the store behind `controls` (absent: nothing to
   * load), then keeps it. Rejects with an Error naming the file when it
   * cannot be read, is not JSON or is not a valid snapshot.
   */
  static async open(controls: Controls, store: MemoryStore, options: StateFileOptions): Promise<StateFile> {
    const interval = options.intervalSeconds ?? DEFAULT_STATE_INTERVAL
    if (!(interval > 0 && interval <= 86_400))
      throw new TypeError('stateInterval must be a number of seconds above 0 and at most 86400')
    const folder = await stat(dirname(options.path)).catch(() => undefined)
    if (!folder?.isDirectory())
      throw new Error(`state file ${options.path}: the folder ${dirname(options.path)} does not exist`)
    const body = await read(options.path)
    if (body !== undefined) await load(controls, store, options.path, body)
    const file = new StateFile(controls, store, options, body !== undefined)
    file.timer = setInterval(() => void file.flush(), interval * 1000)
    // A pending write-back never keeps a process alive; close() writes the last state.
    file.timer.unref()
    return file
  }

  /** Writes the state if it changed since the last write (one write at a time). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing
    if (this.store.revision === this.written && this.exists) return
    this.writing = this.write().finally(() => {
      this.writing = undefined
    })
    await this.writing
  }

  /** Stops the interval without writing (a start that failed). */
  discard(): void {
    clearInterval(this.timer)
  }

  /** Stops the interval and writes the last state. */
  async close(): Promise<void> {
    clearInterval(this.timer)
    await this.flush()
  }

  private async write(): Promise<void> {
    const revision = this.store.revision
    try {
      const text = `${JSON.stringify(await this.controls.snapshot())}\n`
      await writeAtomically(this.options.path, text)
      this.written = revision
      this.exists = true
    } catch (error) {
      ;(this.options.onError ?? ((e) => console.error(`mobisite: could not write ${this.options.path}:`, e)))(error)
    }
  }
}

/** The parsed file; undefined when there is none. */
async function read(path: string): Promise<unknown> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined
    throw new Error(`state file ${path} cannot be read: ${(error as Error).message}`)
  }
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw new Error(
      `state file ${path} is not valid JSON (${(error as Error).message}); it was left untouched: fix it, or move it away to start empty`,
    )
  }
}

/**
 * Seeds the snapshot. Masters that already exist (those this process was
 * started with) keep their current credentials: the file's entry for them is skipped.
 */
async function load(controls: Controls, store: MemoryStore, path: string, body: unknown): Promise<void> {
  const seedBody = body as SeedBody
  try {
    if (typeof body === 'object' && body !== null && Array.isArray(seedBody.masters)) {
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

/** Writes `text` to a temporary file beside `path`, then renames it over `path`. */
async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
  const handle = await open(temporary, 'wx', 0o600)
  try {
    await handle.writeFile(text)
    await handle.sync()
  } catch (error) {
    await handle.close()
    await unlink(temporary).catch(() => {})
    throw error
  }
  await handle.close()
  await rename(temporary, path).catch(async (error: unknown) => {
    await unlink(temporary).catch(() => {})
    throw error
  })
}
